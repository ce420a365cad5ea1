package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/smalldisk"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/planmode"
	"github.com/plansmith/plansmith/state"
)

// The gate's evidence at hook level, on payloads captured from Claude Code
// 2.1.330 (testdata/hooks/claude-code-2.1.330): a background critic, a
// foreground validator, compaction, a sub-agent's stop. Only the session's
// folder and the prompts (the gate's own prompt files) are put in.

// payload reads a captured payload and applies changes (keys set at the top
// level, or "tool_input.prompt"-style paths one level down).
func payload(t *testing.T, name, project string, changes map[string]any) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", "claude-code-2.1.330", name))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	m["cwd"] = project
	for k, v := range changes {
		if outer, inner, ok := strings.Cut(k, "."); ok {
			sub, isMap := m[outer].(map[string]any)
			require.True(t, isMap, k)
			sub[inner] = v
			continue
		}
		m[k] = v
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}

const (
	finalPlan = "## Goal\nCache the lookups.\n\n" + gate.GapsStart + "\n### GAP-1: Eviction\n- **Severity**: high\n- **Description**: Eviction under load is not measured.\n" + gate.GapsEnd + "\n\n<promise>OK</promise>"
	// What the captured critic and validator said.
	capturedCritic    = "### FINDING-1: x\n- **Severity**: high\n- **Description**: y"
	capturedValidator = "### VERDICT: PASS\n**Reason**: ok"
)

// gateProject starts a loop whose only phase is the final revise, with the
// gate on, and returns the project, its paths and a way to call a hook.
func gateProject(t *testing.T) (string, state.Paths, func(event, input string) string) {
	t.Helper()
	project := t.TempDir()
	env := testEnv(project)
	p := state.Paths{Project: project}
	_, err := loop.Start(env, p, loop.Options{Request: "add a cache", Phases: []string{"revise"}, MaxRetries: 2,
		CritiqueMode: state.CritiquePrinciples, RequiredSections: []string{"Goal"}, CompletionPromise: "OK",
		Gate: true, GateRetries: 2})
	require.NoError(t, err)
	return project, p, func(event, input string) string {
		var out bytes.Buffer
		run(t, event, input, &out, env)
		return out.String()
	}
}

func TestGateEvidenceOnCapturedPayloads(t *testing.T) {
	project, p, call := gateProject(t)
	stop := func(message string, changes map[string]any) string {
		c := map[string]any{"last_assistant_message": message}
		for k, v := range changes {
			c[k] = v
		}
		return call("stop", payload(t, "stop-after-wake.json", project, c))
	}

	begin := stop(finalPlan, nil)
	require.Contains(t, begin, `"decision":"block"`)
	assert.Contains(t, begin, "End your turn once both have finished", "2.1.330 reports runs: the agent need not relay outputs")
	critic, err := os.ReadFile(filepath.Join(p.Gate(), gate.CriticFile))
	require.NoError(t, err)
	validator, err := os.ReadFile(filepath.Join(p.Gate(), gate.ValidatorFile))
	require.NoError(t, err)

	// The critic is launched in the background on its prompt file, as the
	// gate asks (words added around it would make it no critic: review U1).
	prompt := "\n" + string(critic)
	assert.Empty(t, call("posttooluse", payload(t, "posttooluse-agent-background.json", project,
		map[string]any{"tool_input.prompt": prompt, "tool_response.prompt": prompt})))
	// The agent ends its turn to wait: not judged, no retry.
	running := []any{map[string]any{"id": "aeff946838fb8ae94", "type": "subagent", "status": "running", "description": "critic", "agent_type": "general-purpose"}}
	assert.Empty(t, stop("Waiting for the critic.", map[string]any{"background_tasks": running}))
	// Compaction meanwhile: the agent is told the critic still runs, and
	// what comes after it (review BI8: told to begin, it ran a second).
	ctx := call("sessionstart", payload(t, "sessionstart-compact.json", project, nil))
	assert.Contains(t, ctx, `"hookEventName":"SessionStart"`)
	assert.Contains(t, ctx, "The critic (`aeff946838fb8ae94`) was launched and has not finished")
	assert.Contains(t, ctx, "validator-prompt.md")
	// A resume with no loop change says the same; a startup says nothing.
	assert.Contains(t, call("sessionstart", payload(t, "sessionstart-resume.json", project, nil)), "a resumed session no longer has them")
	assert.Empty(t, call("sessionstart", payload(t, "sessionstart-resume.json", project, map[string]any{"source": "startup"})))
	// The critic finishes.
	assert.Empty(t, call("subagentstop", payload(t, "subagentstop-background.json", project, nil)))
	// A stop from inside a sub-agent and a turn ended by an API error are never answers.
	assert.Empty(t, stop(capturedValidator, map[string]any{"agent_id": "aeff946838fb8ae94"}))
	assert.Empty(t, call("stopfailure", payload(t, "stop-after-wake.json", project, map[string]any{"hook_event_name": "StopFailure"})))

	// The validator runs in the foreground on its prompt and the critic's output.
	vprompt := string(validator) + "\n\n" + capturedCritic
	assert.Empty(t, call("subagentstop", payload(t, "subagentstop-foreground.json", project, nil)))
	assert.Empty(t, call("posttooluse", payload(t, "posttooluse-agent-foreground.json", project,
		map[string]any{"tool_input.prompt": vprompt, "tool_response.prompt": vprompt})))

	f, err := state.Load(p.State())
	require.NoError(t, err)
	assert.Zero(t, f.Loop.RetriesTotal)
	require.Len(t, f.Loop.GateRuns, 2)

	done := stop("Done.", nil)
	assert.NotContains(t, done, `"decision"`)
	assert.Contains(t, done, "approved by the gate")
	saved, err := os.ReadFile(p.Output())
	require.NoError(t, err)
	for _, want := range []string{`evidence: "observed"`, `agent_id: "aeff946838fb8ae94"`, `agent_id: "ab054c901f0cd3d2a"`,
		`model: "claude-opus-5-5"`, `model: "claude-haiku-5-5"`, `output_hash: "` + gate.OutputHash(capturedCritic) + `"`} {
		assert.Contains(t, string(saved), want)
	}
}

func TestSubagentLaunchReadsBothResponseShapes(t *testing.T) {
	var in Input
	require.NoError(t, json.Unmarshal([]byte(payload(t, "posttooluse-agent-background.json", "/p", nil)), &in))
	ev, ok := subagentLaunch(in)
	require.True(t, ok)
	assert.Equal(t, loop.SubagentEvent{Session: loop.Session{ID: in.SessionID, Cwd: "/p"}, PermissionMode: "bypassPermissions", AgentID: "aeff946838fb8ae94", Launched: true,
		Prompt: "CRITIC-PROMPT please review", Requested: "opus", Model: "claude-opus-5-5", Background: true, AgentType: "general-purpose"}, ev)

	require.NoError(t, json.Unmarshal([]byte(payload(t, "posttooluse-agent-foreground.json", "/p", nil)), &in))
	ev, ok = subagentLaunch(in)
	require.True(t, ok)
	assert.True(t, ev.Done)
	assert.False(t, ev.Background)
	assert.Equal(t, capturedValidator, ev.Output)
	assert.Equal(t, "claude-haiku-5-5", ev.Model)

	// An older client's string response, or a failed call, names no agent.
	in.ToolResponse = json.RawMessage(`"done"`)
	_, ok = subagentLaunch(in)
	assert.False(t, ok)
}

// A critic the user interrupted: 2.1.330 reports its stop with no last
// message. The agent's next Stop is not a silent wait on it for good
// (review AD1): the gate asks for the critic again.
func TestAnInterruptedCriticDoesNotHoldTheGate(t *testing.T) {
	project, p, call := gateProject(t)
	stop := func(message string) string {
		return call("stop", payload(t, "stop-after-wake.json", project, map[string]any{"last_assistant_message": message}))
	}
	require.Contains(t, stop(finalPlan), `"decision":"block"`)
	critic, err := os.ReadFile(filepath.Join(p.Gate(), gate.CriticFile))
	require.NoError(t, err)
	prompt := "\n" + string(critic)
	assert.Empty(t, call("posttooluse", payload(t, "posttooluse-agent-background.json", project,
		map[string]any{"tool_input.prompt": prompt, "tool_response.prompt": prompt})))
	assert.Empty(t, call("subagentstop", payload(t, "subagentstop-background.json", project,
		map[string]any{"last_assistant_message": nil})))

	// A Stop that does not say what the client runs: only the recorded end
	// of the run tells it is over.
	again := call("stop", payload(t, "stop-after-wake.json", project,
		map[string]any{"last_assistant_message": "The critic was interrupted.", "background_tasks": nil}))
	assert.Contains(t, again, `"decision":"block"`)
	assert.Contains(t, again, "The critic run on the plan was stopped before it gave its output")
}

// The hooks read a SendMessage call's addressee and an Agent call's name.
func TestSendMessageAndAgentNamesAreRead(t *testing.T) {
	project, p, call := gateProject(t)
	require.Contains(t, call("stop", payload(t, "stop-after-wake.json", project, map[string]any{"last_assistant_message": finalPlan})), `"decision":"block"`)
	critic, err := os.ReadFile(filepath.Join(p.Gate(), gate.CriticFile))
	require.NoError(t, err)
	prompt := "\n" + string(critic)
	assert.Empty(t, call("posttooluse", payload(t, "posttooluse-agent-background.json", project,
		map[string]any{"tool_input.prompt": prompt, "tool_response.prompt": prompt, "tool_input.name": "crit"})))
	send, err := json.Marshal(map[string]any{"session_id": "0054d705-4f42-4e5e-a600-20259d5e3e88", "cwd": project, "hook_event_name": "PostToolUse",
		"tool_name": "SendMessage", "tool_input": map[string]string{"to": "CRIT ", "message": "answer: ### NO ISSUES FOUND"}, "tool_response": map[string]any{}})
	require.NoError(t, err)
	assert.Empty(t, call("posttooluse", string(send)))
	f, err := state.Load(p.State())
	require.NoError(t, err)
	require.Len(t, f.Loop.GateRuns, 1)
	assert.Equal(t, "crit", f.Loop.GateRuns[0].Name)
	assert.True(t, f.Loop.GateRuns[0].Reopened)
}

// A critic's report cut at the output limit is told from its transcript by
// either hook that records it: the SubagentStop (agent_transcript_path) and
// the Agent call's PostToolUse (the transcript beside the session's), each
// on its own (mutation check, review CW: with either look dropped, no test
// of this package failed).
func TestACutReportIsToldByEitherHook(t *testing.T) {
	const fixture = "../testdata/hooks/claude-code-2.1.330/agent-transcript-max-tokens.jsonl"
	data, err := os.ReadFile(fixture)
	require.NoError(t, err)
	var tail string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l transcriptLine
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		if l.Type == "assistant" {
			tail = strings.Join(lineTexts(l), "\n")
		}
	}
	for _, event := range []string{"subagentstop", "posttooluse"} {
		t.Run(event, func(t *testing.T) {
			project, p, call := gateProject(t)
			begin := call("stop", payload(t, "stop-after-wake.json", project, map[string]any{"last_assistant_message": finalPlan}))
			require.Contains(t, begin, `"decision":"block"`)
			dir := t.TempDir()
			if event == "subagentstop" {
				path := filepath.Join(dir, "agent-aeff946838fb8ae94.jsonl")
				require.NoError(t, os.WriteFile(path, data, 0o644))
				assert.Empty(t, call(event, payload(t, "subagentstop-background.json", project,
					map[string]any{"last_assistant_message": tail, "agent_transcript_path": path})))
			} else {
				critic, err := os.ReadFile(filepath.Join(p.Gate(), gate.CriticFile))
				require.NoError(t, err)
				prompt := "\n" + string(critic)
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "s", "subagents"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "s", "subagents", "agent-ab054c901f0cd3d2a.jsonl"), data, 0o644))
				assert.Empty(t, call(event, payload(t, "posttooluse-agent-foreground.json", project, map[string]any{
					"transcript_path": filepath.Join(dir, "s.jsonl"), "tool_input.prompt": prompt, "tool_response.prompt": prompt,
					"tool_response.content": []any{map[string]any{"type": "text", "text": tail}}})))
			}
			f, err := state.Load(p.State())
			require.NoError(t, err)
			require.Len(t, f.Loop.GateRuns, 1)
			assert.True(t, f.Loop.GateRuns[0].Cut, "the run is recorded as cut")
		})
	}
}

// A gate run recorded by no hook for the project's lock (held by another
// plansmith process past state.LockWait): the Agent call's PostToolUse
// tells the agent and the user, the sub-agent's stop tells the user, in
// the JSON Claude Code reads from those hooks.
func TestAGateRunNotRecordedForTheLockIsSaidInTheHooksAnswers(t *testing.T) {
	project, p, call := gateProject(t)
	begin := call("stop", payload(t, "stop-after-wake.json", project, map[string]any{"last_assistant_message": finalPlan}))
	require.Contains(t, begin, `"decision":"block"`)
	critic, err := os.ReadFile(filepath.Join(p.Gate(), gate.CriticFile))
	require.NoError(t, err)
	old := state.LockWait
	state.LockWait = 50 * time.Millisecond
	t.Cleanup(func() { state.LockWait = old })
	unlock, err := state.Lock(p)
	require.NoError(t, err)
	defer unlock()

	prompt := string(critic)
	launch := call("posttooluse", payload(t, "posttooluse-agent-background.json", project,
		map[string]any{"tool_input.prompt": prompt, "tool_response.prompt": prompt}))
	var answer SpecificAnswer
	require.NoError(t, json.Unmarshal([]byte(launch), &answer), launch)
	assert.Equal(t, "PostToolUse", answer.HookSpecificOutput.HookEventName)
	assert.Contains(t, answer.HookSpecificOutput.AdditionalContext, "could not record the start of the critic run aeff946838fb8ae94")
	assert.Contains(t, answer.SystemMessage, "will not count")

	var stopped StopOutput
	out := call("subagentstop", payload(t, "subagentstop-background.json", project, nil))
	require.NoError(t, json.Unmarshal([]byte(out), &stopped), out)
	assert.Empty(t, stopped.Decision, "the sub-agent is not kept going")
	assert.Contains(t, stopped.SystemMessage, "could not record the output of sub-agent aeff946838fb8ae94")
}

// A critic's report cut at the output limit whose transcript had not
// caught up when its SubagentStop gave up waiting is looked at again by
// the Stop, in the session's sub-agent folder: the cut is found there and
// the report refused as cut (it counted, the transcript 5 s behind).
func TestACutCriticReportIsFoundByTheStopWhenItsTranscriptWasBehind(t *testing.T) {
	project, p, call := gateProject(t)
	old := subagentCatchUp
	subagentCatchUp = 50 * time.Millisecond
	t.Cleanup(func() { subagentCatchUp = old })
	dir := t.TempDir()
	session := filepath.Join(dir, "0054d705.jsonl")
	require.NoError(t, os.WriteFile(session, nil, 0o644))
	agent := filepath.Join(dir, "0054d705", "subagents", "agent-aeff946838fb8ae94.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(agent), 0o755))
	require.NoError(t, os.WriteFile(agent, []byte(`{"type":"user","isSidechain":true,"message":{"content":"review"}}`+"\n"+
		`{"type":"assistant","isSidechain":true,"message":{"id":"m1","stop_reason":"max_tokens","content":[{"type":"text","text":"### FINDING-0: No rollback\n- **Severity**: high\n"}]}}`+"\n"), 0o644))

	stop := func(message string) string {
		return call("stop", payload(t, "stop-after-wake.json", project, map[string]any{"last_assistant_message": message, "transcript_path": session}))
	}
	require.Contains(t, stop(finalPlan), `"decision":"block"`)
	critic, err := os.ReadFile(filepath.Join(p.Gate(), gate.CriticFile))
	require.NoError(t, err)
	validator, err := os.ReadFile(filepath.Join(p.Gate(), gate.ValidatorFile))
	require.NoError(t, err)
	prompt := string(critic)
	assert.Empty(t, call("posttooluse", payload(t, "posttooluse-agent-background.json", project,
		map[string]any{"tool_input.prompt": prompt, "tool_response.prompt": prompt, "transcript_path": session})))
	assert.Empty(t, call("subagentstop", payload(t, "subagentstop-background.json", project, map[string]any{"agent_transcript_path": agent, "transcript_path": session})))
	f, err := state.Load(p.State())
	require.NoError(t, err)
	require.NotEmpty(t, f.Loop.GateRuns)
	assert.True(t, f.Loop.GateRuns[0].Unchecked, "its transcript had not reached its output")

	// The client writes the rest of the critic's transcript: its prompt to
	// resume, and the part after the cut, all it reported.
	rest, err := os.OpenFile(agent, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = rest.WriteString(`{"type":"user","isSidechain":true,"isMeta":true,"message":{"content":"Output token limit hit. Resume directly"}}` + "\n" +
		`{"type":"assistant","isSidechain":true,"message":{"id":"m2","stop_reason":"end_turn","content":[{"type":"text","text":` + strconv.Quote(capturedCritic) + `}]}}` + "\n")
	require.NoError(t, err)
	require.NoError(t, rest.Close())
	vprompt := string(validator) + "\n\n" + capturedCritic
	assert.Empty(t, call("subagentstop", payload(t, "subagentstop-foreground.json", project, nil)))
	assert.Empty(t, call("posttooluse", payload(t, "posttooluse-agent-foreground.json", project,
		map[string]any{"tool_input.prompt": vprompt, "tool_response.prompt": vprompt})))

	done := stop("Done.")
	assert.Contains(t, done, `"decision":"block"`)
	assert.Contains(t, done, "The critic's report was cut off at the model's output limit and resumed")
	assert.NotContains(t, done, "approved by the gate")
}

// The Stop hook tells the loop when its transcript reads gave up with the
// transcript still behind: a plan cut at the output limit, whose resumed
// part alone reaches the hook, is then not judged by that part (it spent a
// retry, told that the Goal it wrote was missing), and the user hears why.
func TestAStopWhoseTranscriptStaysBehindJudgesNothing(t *testing.T) {
	project, p, call := gateProject(t)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"plan it"}}`+"\n"+
		`{"type":"assistant","message":{"id":"m1","stop_reason":"max_tokens","content":[{"type":"text","text":"## Goal\nCache the lookups.\n"}]}}`+"\n"), 0o644))
	out := call("stop", payload(t, "stop-after-wake.json", project, map[string]any{
		"last_assistant_message": "## Steps\n1. Add it.", "transcript_path": transcript}))
	var answer StopOutput
	require.NoError(t, json.Unmarshal([]byte(out), &answer), out)
	assert.Equal(t, "block", answer.Decision)
	assert.Contains(t, answer.Reason, "plansmith could read only your final message")
	assert.Contains(t, answer.SystemMessage, "no retry was spent")
	f, err := state.Load(p.State())
	require.NoError(t, err)
	assert.Zero(t, f.Loop.RetriesTotal)
}

// The plan-mode gate's record of a plan edit that cannot be written (a
// full disk under the home) is said in the edit's PostToolUse answer, to
// the agent and the user (review FB3: stderr alone said it).
func TestAPlanRecordNotWrittenIsSaidInPostToolUse(t *testing.T) {
	home := smalldisk.Mount(t, "256k")
	env := testEnv(home)
	plan := filepath.Join(home, planmode.PlansDir, "brave-otter.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(plan), 0o755))
	require.NoError(t, os.WriteFile(plan, []byte("# Plan\n\n## Goal\nShip it.\n"), 0o644))
	edit := `{"session_id":"s1","cwd":"` + home + `","permission_mode":"plan","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"` + plan + `"},"tool_response":{"filePath":"` + plan + `"}}`
	var out bytes.Buffer
	run(t, "posttooluse", edit, &out, env)
	require.Empty(t, out.String(), "written: nothing to say")

	b, err := os.ReadFile(plan)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(plan, append(b, "\n## Steps\n1. Ship.\n"...), 0o644))
	smalldisk.Fill(t, home)
	run(t, "posttooluse", edit, &out, env)
	var answer SpecificAnswer
	require.NoError(t, json.Unmarshal(out.Bytes(), &answer), out.String())
	assert.Equal(t, "PostToolUse", answer.HookSpecificOutput.HookEventName)
	assert.Contains(t, answer.HookSpecificOutput.AdditionalContext, "could not write the gate's record into the plan file "+plan+": no space left on device")
	assert.Equal(t, answer.HookSpecificOutput.AdditionalContext, answer.SystemMessage)
}
