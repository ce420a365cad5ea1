package e2e

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The golden hook outputs in testdata/hook-outputs (repo root) are what the
// real binary prints for each kind of answer it can give. This test
// regenerates them from the binary and fails when one changes, so a change
// in an output's shape or wording is seen in review; the contract test
// (TestHookOutputsMatchTheSDKTypes) holds the same files to Claude Code's
// published types. After an intended change:
//
//	go test ./e2e -run TestHookOutputsGolden -update
var update = flag.Bool("update", false, "rewrite testdata/hook-outputs from the binary's actual outputs")

// hookCall is one hook invocation: the event's subcommand and its input,
// to which session_id, cwd and hook_event_name are added.
type hookCall struct {
	event string
	input map[string]any
}

func stopCall(message string) hookCall {
	return hookCall{event: "stop", input: map[string]any{"stop_hook_active": false, "last_assistant_message": message}}
}

func toolCall(tool string, input map[string]any) hookCall {
	return hookCall{event: "pretooluse", input: map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_golden"}}
}

// observedStop is a Stop from a client that reports sub-agent runs (its
// input carries background_tasks, here empty).
func observedStop(message string) hookCall {
	return hookCall{event: "stop", input: map[string]any{"stop_hook_active": false, "last_assistant_message": message, "background_tasks": []any{}}}
}

func sessionCall(source string) hookCall {
	return hookCall{event: "sessionstart", input: map[string]any{"source": source}}
}

func promptCall(prompt string) hookCall {
	return hookCall{event: "userpromptsubmit", input: map[string]any{"prompt": prompt}}
}

// goldenSession owns the loops the cases start.
const goldenSession = "golden-session"

// stamp matches the archive's time stamp, the one part of an output that
// changes from run to run.
var (
	stamp = regexp.MustCompile(`\d{8}-\d{6}`)
	// day is the date a kept plan's file name starts with (docs/plans/).
	day = regexp.MustCompile(`plans/\d{4}-\d{2}-\d{2}-`)
)

func TestHookOutputsGolden(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	root := mustRepoRoot(t)
	dir := filepath.Join(root, "testdata", "hook-outputs")
	understand := sessionText(t, "01-understand.md")
	final := sessionText(t, "08-final.md")
	capOne := []string{"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=1"}
	gatePass := sessionText(t, "09-gate.md")
	gateFail := "<critic-output>\n### FINDING-1: No backoff guidance\n- **Severity**: high\n- **Description**: Clients are not told how to back off.\n</critic-output>\n<validator-output>\n### VERDICT: FAIL\n**Reason**: FINDING-1 is not covered by any gap.\n</validator-output>"

	tests := []struct {
		// name is the golden file's name without .json, "<event>-<case>";
		// empty for a call that must print nothing.
		name string
		what string
		env  []string
		// plan is `plansmith plan`'s arguments; nil starts no loop.
		plan   []string
		before []hookCall
		call   hookCall
		// session is the calling session; goldenSession when empty.
		session string
	}{
		{name: "stop-advance", what: "a passing answer: block with the next phase",
			plan: []string{"--no-gate", request}, call: stopCall(understand)},
		{name: "stop-retry", what: "a failing answer: block with what is missing",
			plan: []string{"--no-gate", request}, call: stopCall(failing)},
		{name: "stop-pause", what: "the block that would exceed the cap: pause and tell the user",
			env: capOne, plan: []string{"--no-gate", request}, before: []hookCall{stopCall(failing)}, call: stopCall(failing)},
		{name: "stop-finished", what: "the final revise passes: save, archive, tell the user",
			plan: []string{"--no-gate", "--phases", "revise", request}, call: stopCall(final)},
		{name: "stop-retries-exhausted", what: "the retry budget is spent: save the best text and stop",
			plan: []string{"--no-gate", "--max-retries", "0", request}, call: stopCall(failing)},
		{name: "stop-max-phases", what: "the phase limit is reached",
			plan: []string{"--no-gate", "--max-phases", "1", request}, call: stopCall(understand)},
		{name: "pretooluse-deny-write", what: "a file-editing tool while planning",
			plan: []string{"--no-gate", request}, call: toolCall("Write", map[string]any{"file_path": "internal/ratelimit/limiter.go", "content": "package ratelimit\n"})},
		{name: "pretooluse-deny-bash", what: "a destructive shell command while planning",
			plan: []string{"--no-gate", request}, call: toolCall("Bash", map[string]any{"command": "rm -rf build"})},
		{name: "userpromptsubmit-resume", what: "the owner's prompt after a pause: the held-back instructions",
			env: capOne, plan: []string{"--no-gate", request}, before: []hookCall{stopCall(failing), stopCall(failing)}, call: promptCall("continue")},
		{name: "userpromptsubmit-reminder", what: "a prompt while the loop runs: which phase is being answered",
			plan: []string{"--no-gate", request}, call: promptCall("how is it going?")},

		{name: "stop-gate-begin", what: "the final revise passes with the gate on: ask for the critic and validator",
			plan: []string{"--phases", "revise", request}, call: stopCall(final)},
		{name: "stop-gate-revise", what: "the validator finds an uncovered finding: back to revise",
			plan: []string{"--phases", "revise", request}, before: []hookCall{stopCall(final)}, call: stopCall(gateFail)},
		{name: "stop-gate-passed", what: "the gate passes: save the verified plan",
			plan: []string{"--phases", "revise", request}, before: []hookCall{stopCall(final)}, call: stopCall(gatePass)},
		{name: "stop-gate-failed", what: "the last allowed assessment fails: save the plan unverified",
			plan: []string{"--phases", "revise", "--gate-retries", "1", request}, before: []hookCall{stopCall(final)}, call: stopCall(gateFail)},

		{name: "stop-gate-unobserved", what: "a client that reports runs, a reply quoting outputs no run produced: refused",
			plan: []string{"--phases", "revise", request}, before: []hookCall{observedStop(final)}, call: observedStop(gatePass)},
		{name: "sessionstart-compact", what: "a compacted session gets the phase's instructions back",
			plan: []string{"--no-gate", request}, before: []hookCall{stopCall(failing)}, call: sessionCall("compact")},

		{name: "pretooluse-deny-exitplanmode", what: "ExitPlanMode with no assessed plan: the plan-mode gate refuses",
			env: []string{"HOME=" + realTempDir(t)}, call: toolCall("ExitPlanMode", map[string]any{"plan": "## Goals\n- x\n"})},

		{what: "stop without a loop", call: stopCall(understand)},
		{what: "stop while a sub-agent runs in the background", plan: []string{"--no-gate", request},
			call: hookCall{event: "stop", input: map[string]any{"stop_hook_active": false, "last_assistant_message": failing,
				"background_tasks": []any{map[string]any{"id": "a1", "type": "subagent", "status": "running"}}}}},
		{what: "stop from inside a sub-agent", plan: []string{"--no-gate", request},
			call: hookCall{event: "stop", input: map[string]any{"agent_id": "a1", "last_assistant_message": failing}}},
		{what: "a turn ended by an API error", plan: []string{"--no-gate", request},
			call: hookCall{event: "stopfailure", input: map[string]any{"last_assistant_message": failing}}},
		{what: "a sub-agent's stop", plan: []string{"--phases", "revise", request}, before: []hookCall{observedStop(final)},
			call: hookCall{event: "subagentstop", input: map[string]any{"agent_id": "a1", "last_assistant_message": "### NO ISSUES FOUND"}}},
		{what: "a startup is no compaction", plan: []string{"--no-gate", request}, call: sessionCall("startup")},
		{what: "stop in another session", plan: []string{"--no-gate", request}, session: "other-session", call: stopCall(failing)},
		{what: "stop while paused", env: capOne, plan: []string{"--no-gate", request},
			before: []hookCall{stopCall(failing), stopCall(failing)}, call: stopCall(failing)},
		{what: "a read-only tool while planning", plan: []string{"--no-gate", request}, call: toolCall("Read", map[string]any{"file_path": "cmd/api/main.go"})},
		{what: "a read-only pipeline while planning", plan: []string{"--no-gate", request}, call: toolCall("Bash", map[string]any{"command": "grep -rn TODO . | head -5"})},
		{what: "a write in another session", plan: []string{"--no-gate", request}, session: "other-session",
			call: toolCall("Write", map[string]any{"file_path": "NOTES.md", "content": "x\n"})},
		{what: "another session's prompt while paused", env: capOne, plan: []string{"--no-gate", request},
			before: []hookCall{stopCall(failing), stopCall(failing)}, session: "other-session", call: promptCall("hello")},
		{what: "plan-mode metadata outside plan mode", plan: []string{"--no-gate", request},
			call: hookCall{event: "posttooluse", input: map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "x.md"}, "tool_response": map[string]any{}}}},
	}

	produced := map[string]bool{}
	for _, tt := range tests {
		if tt.name != "" {
			produced[tt.name+".json"] = true
		}
		t.Run(tt.what, func(t *testing.T) {
			project := realTempDir(t)
			h := goldenHook{t: t, bin: bin, project: project, env: tt.env}
			if tt.plan != nil {
				h.exec(nil, append([]string{"plan"}, tt.plan...)...)
			}
			for _, c := range tt.before {
				h.call(c, goldenSession)
			}
			session := tt.session
			if session == "" {
				session = goldenSession
			}
			out := h.call(tt.call, session)
			if tt.name == "" {
				assert.Empty(t, out, "this call must print nothing")
				return
			}
			require.NotEmpty(t, out)
			require.True(t, json.Valid(out), "not JSON: %s", out)
			out = stamp.ReplaceAll(bytes.ReplaceAll(out, []byte(project), []byte("$PROJECT")), []byte("YYYYMMDD-HHMMSS"))
			out = day.ReplaceAll(out, []byte("plans/YYYY-MM-DD-"))
			for _, e := range tt.env {
				if home, ok := strings.CutPrefix(e, "HOME="); ok {
					out = bytes.ReplaceAll(out, []byte(home), []byte("$HOME"))
				}
			}
			file := filepath.Join(dir, tt.name+".json")
			if *update {
				require.NoError(t, os.WriteFile(file, out, 0o644))
				return
			}
			want, err := os.ReadFile(file)
			require.NoError(t, err, "no golden output; run go test ./e2e -run TestHookOutputsGolden -update")
			assert.Equal(t, string(want), string(out), "the binary's output changed; if intended, run go test ./e2e -run TestHookOutputsGolden -update and review the diff")
		})
	}

	// Every golden file is one the binary still produces.
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	for _, f := range files {
		if produced[filepath.Base(f)] {
			continue
		}
		if *update {
			require.NoError(t, os.Remove(f))
			continue
		}
		t.Errorf("%s is not produced by any case; remove it or add the case (go test ./e2e -run TestHookOutputsGolden -update)", f)
	}
}

// goldenHook runs the binary in one project, as Claude Code and the agent's
// Bash tool would.
type goldenHook struct {
	t       *testing.T
	bin     string
	project string
	env     []string
}

func (h goldenHook) call(c hookCall, session string) []byte {
	h.t.Helper()
	in := map[string]any{"session_id": session, "cwd": h.project, "hook_event_name": hookEvents[c.event]}
	for k, v := range c.input {
		in[k] = v
	}
	data, err := json.Marshal(in)
	require.NoError(h.t, err)
	return h.exec(data, "hook", c.event)
}

func (h goldenHook) exec(stdin []byte, args ...string) []byte {
	h.t.Helper()
	cmd := exec.Command(h.bin, args...)
	cmd.Dir = h.project
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLAUDE") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CLAUDE_CODE_SESSION_ID="+goldenSession, "CLAUDE_PROJECT_DIR="+h.project)
	cmd.Env = append(cmd.Env, h.env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(h.t, cmd.Run(), "plansmith %s\nstderr: %s", strings.Join(args, " "), stderr.String())
	assert.Empty(h.t, stderr.String(), "plansmith %s wrote to stderr", strings.Join(args, " "))
	return stdout.Bytes()
}
