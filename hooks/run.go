package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/internal/deadline"
	"github.com/plansmith/plansmith/internal/hookjson"
	"github.com/plansmith/plansmith/loop"
)

// handler answers one decoded event with its JSON answer, or nil for none.
type handler func(in Input, env loop.Env) any

// table is the one list of hook subcommands (`plansmith hook EVENT`), in
// the order of hooks/hooks.json, each with its handler.
var table = []struct {
	event string
	h     handler
}{
	{"stop", stop},
	{"pretooluse", preToolUse},
	{"pretooluse-loop", preToolUseLoop},
	{"posttooluse", postToolUse},
	{"userpromptsubmit", userPromptSubmit},
	{"subagentstop", subagentStop},
	{"sessionstart", sessionStart},
	{"sessionend", sessionEnd},
	{"stopfailure", stopFailure},
}

// Events names the hook subcommands, in the table's order.
var Events = func() []string {
	out := make([]string, len(table))
	for i, e := range table {
		out[i] = e.event
	}
	return out
}()

func lookup(event string) (handler, bool) {
	for _, e := range table {
		if e.event == event {
			return e.h, true
		}
	}
	return nil, false
}

// Run handles one hook call: it decodes the input from env.Stdin and writes
// the hook's JSON answer (or nothing) to env.Stdout. It never panics and
// never asks for a non-zero exit: a hook that fails reports on stderr and
// lets Claude Code carry on, except PreToolUse, which fails closed: a call
// it could not decode (loop.UndecodableTool), or not judge in time or
// without a panic (unjudged), is refused.
func Run(event string, env loop.Env) {
	judgesTools := event == "pretooluse" || event == "pretooluse-loop"
	var in Input
	var raw []byte
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "plansmith: internal error in the %s hook: %v\n", event, r)
			if judgesTools {
				// A tool call that could not be judged is refused wherever a
				// loop may be running, as undecodable input is.
				writeJSON(refusal(env, in, raw, fmt.Errorf("plansmith failed while judging it (%v)", r)), env)
			}
		}
	}()
	h, ok := lookup(event)
	if !ok {
		fmt.Fprintf(env.Stderr, "plansmith: unknown hook event %q\n", event)
		return
	}
	start := time.Now()
	limit := HookDeadline
	if judgesTools {
		limit = JudgeDeadline
	}
	in, raw, err := readInTime(env.Stdin, start, limit)
	in.Began = start
	if event == "stop" {
		in.Began = env.Began(start)
	}
	tool := in.ToolName
	if judgesTools && err == nil {
		tool, err = hookjson.Unjudgeable(in.Unreadable, in.ToolName)
	}
	if err != nil {
		if judgesTools {
			// The one hook that must not fail open: a malformed ExitPlanMode
			// call is refused by the plan-mode gate, and while a loop may be
			// running so are edits, Bash and calls whose tool is unknown.
			if o := loop.UndecodableTool(env, session(in), tool, raw, err); o.Deny {
				writeJSON(toolAnswer(o), env)
				fmt.Fprintf(env.Stderr, "plansmith: %s hook: %v; refusing this call\n", event, err)
				return
			}
		}
		fmt.Fprintf(env.Stderr, "plansmith: %s hook: %v; ignoring this call\n", event, err)
		if event == "stop" {
			// The user hears that this turn went unchecked (review X, F6).
			writeJSON(stopAnswer(loop.UnreadableStop(env, session(in), err)), env)
		}
		return
	}
	if !judgesTools {
		writeJSON(inTime(event, limit, start, h, in, env, func(why string) any {
			if event != "stop" {
				return nil
			}
			return stopAnswer(loop.NotChecked("plansmith "+why, false))
		}), env)
		return
	}
	// Claude Code lets a call through when the hook times out or answers
	// nothing, so a command built to be slow to judge, or a project lookup
	// that hangs, must not get that far.
	writeJSON(inTime(event, limit, start, h, in, env, func(why string) any {
		return unjudged(in, "plansmith's judging "+why)
	}), env)
}

// readInTime is readInput within limit: an input that has not ended by
// then (stdin left open) is an error, so that the hook still answers well
// inside the client's timeout (review X, F3: it answered at end of input,
// 75 s later). The limit covers the whole call: the work gets what the
// reading left.
func readInTime(r io.Reader, start time.Time, limit time.Duration) (Input, []byte, error) {
	type result struct {
		in  Input
		raw []byte
		err error
	}
	res := deadline.Within(start, limit, func() result {
		in, raw, err := readInput(r)
		return result{in, raw, err}
	}, func(why string) result {
		return result{err: errors.New("the hook input " + strings.Replace(why, "did not finish", "did not end", 1))}
	})
	return res.in, res.raw, res.err
}

// JudgeDeadline is how long PreToolUse may take to judge a call before it
// refuses it, and HookDeadline how long any other hook may take before it
// answers without its work: well inside the 60 s timeout hooks.json gives
// a hook, after which Claude Code carries on, running the call unjudged
// or ending the turn with no word from plansmith.
var (
	JudgeDeadline = 20 * time.Second
	HookDeadline  = 45 * time.Second
)

// inTime runs h, answering within limit of start (the call's start:
// reading the input took part of it): when h has not answered by then, or
// panics, late answers in its place, told why ("did not finish within
// 20s", "failed (…)"). Work cut short when the process then exits leaves
// the state file as it was (it is only ever replaced whole).
func inTime(event string, limit time.Duration, start time.Time, h handler, in Input, env loop.Env, late func(why string) any) any {
	return deadline.Within(start, limit, func() any { return h(in, env) }, func(why string) any {
		fmt.Fprintf(env.Stderr, "plansmith: %s hook: %s\n", event, why)
		return late(why)
	})
}

// unjudged refuses a call whose judging ran out of time or failed,
// whatever the tool: the hook ran because a loop or the plan-mode gate may
// apply, and looking again for which one would do the same work, on the
// same files, that just failed (a state file planted to be slow to read,
// an agent definition slow to walk).
func unjudged(in Input, why string) any {
	return toolAnswer(loop.ToolOutcome{Deny: true, Reason: policy.Unjudged(in.ToolName, why).Reason})
}

// refusal is the answer for a tool call that could not be judged (err says
// why): refused wherever a loop may be running or the plan-mode gate
// applies, as undecodable input is (loop.UndecodableTool); nil elsewhere.
// When looking for a loop fails too, it is refused outright: the hook
// answers rather than crash (review CI3).
func refusal(env loop.Env, in Input, raw []byte, err error) (out any) {
	defer func() {
		if recover() != nil {
			out = unjudged(in, err.Error())
		}
	}()
	if o := loop.UndecodableTool(env, session(in), in.ToolName, raw, err); o.Deny {
		return toolAnswer(o)
	}
	return nil
}

// writeJSON writes v as one line of JSON; nil writes nothing.
func writeJSON(v any, env loop.Env) {
	if v == nil {
		return
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false) // the model reads these; <promise> must stay legible
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: writing hook output: %v\n", err)
	}
}

func session(in Input) loop.Session { return loop.Session{ID: in.SessionID, Cwd: in.Cwd} }

func stop(in Input, env loop.Env) any {
	wait := new(transcriptWait)
	ev := loop.StopEvent{
		Session:     session(in),
		LastMessage: func() (string, error) { return lastMessage(in, wait) },
		BlockCap:    blockCap(env),
		BlockCapSet: blockCapSet(env),
		AgentID:     in.AgentID,
		ReportsRuns: in.BackgroundTasks != nil,
		Began:       in.Began,
	}
	if in.BackgroundTasks != nil {
		ev.InFlight = subagentsInFlight(*in.BackgroundTasks)
	}
	// Whether a read below gave up with the transcript still behind: what
	// it gave may not be the whole answer.
	behind := false
	ev.TranscriptBehind = func() bool { return behind }
	if in.LastAssistantMessage != nil && in.TranscriptPath != "" {
		last, path := *in.LastAssistantMessage, in.TranscriptPath
		ev.WholeMessage = func() (string, bool) {
			whole, ok, late := wholeAnswer(path, last, wait.left(), in.Began)
			behind = behind || late
			return whole, ok
		}
	}
	if path := in.TranscriptPath; path != "" {
		ev.SentMessage = func() (string, bool) {
			sent, ok, late := sentMessage(path, wait.left(), in.Began)
			behind = behind || late
			return sent, ok
		}
		ev.RunCut = func(id, output string) (bool, bool) {
			if sub := subagentTranscript(path, id); sub != "" {
				return subagentCut(sub, output, 0)
			}
			return false, false
		}
	}
	if in.SessionCrons != nil {
		ev.Scheduled, ev.SchedulesKnown = cronPrompts(*in.SessionCrons), true
	}
	return stopAnswer(loop.Stop(env, ev))
}

// cronPrompts gives the prompts of the scheduled tasks a Stop lists.
func cronPrompts(crons []json.RawMessage) []string {
	var out []string
	for _, raw := range crons {
		var c struct {
			Prompt string `json:"prompt"`
		}
		if json.Unmarshal(raw, &c) == nil && strings.TrimSpace(c.Prompt) != "" {
			out = append(out, c.Prompt)
		}
	}
	return out
}

// subagentsInFlight counts the sub-agents among the background work a Stop
// lists: their reports wake the agent, so its turn is not an answer. Other
// work (a backgrounded shell, say a sleep) does not make a Stop unjudged,
// or any turn could end unjudged for as long as the shell runs.
func subagentsInFlight(tasks []json.RawMessage) int {
	n := 0
	for _, raw := range tasks {
		var task struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &task) == nil && task.Type == "subagent" {
			n++
		}
	}
	return n
}

// subagentStop records a sub-agent's final text; it never answers. One
// that ends with none (2.1.330 sends no last_assistant_message for an
// interrupted run) is recorded as ended, with nothing to wait for.
func subagentStop(in Input, env loop.Env) any {
	if in.AgentID == "" {
		return nil
	}
	output := ""
	if in.LastAssistantMessage != nil {
		output = *in.LastAssistantMessage
	}
	ev := loop.SubagentEvent{Session: session(in), PermissionMode: in.PermissionMode,
		AgentID: in.AgentID, Done: true, Output: output}
	if path := in.AgentTranscriptPath; path != "" && output != "" {
		ev.WasCut = func() (bool, bool) { return subagentCut(path, output, subagentCatchUp) }
	}
	// The user hears of an output the gate could not record; the agent is
	// told by the gate when it next ends its turn.
	if o := loop.RecordSubagent(env, ev); o.Message != "" {
		return &StopOutput{SystemMessage: o.Message}
	}
	return nil
}

// sessionStart gives a compacted or resumed session its planning loop's
// instructions back.
func sessionStart(in Input, env loop.Env) any {
	return contextAnswer("SessionStart", loop.SessionStart(env, loop.SessionEvent{Session: session(in), Source: in.Source}))
}

// sessionEnd notes a planning session the user cleared, for the session
// the clear starts to take the loop on. It answers nothing.
func sessionEnd(in Input, env loop.Env) any {
	loop.SessionEnd(env, loop.SessionEvent{Session: session(in), Reason: in.Reason})
	return nil
}

// stopFailure is a turn that ended on an API error: never a phase answer,
// so nothing is judged, no retry is spent and nothing is said. It is
// registered so that this is a decision, not an accident of the client.
func stopFailure(Input, loop.Env) any { return nil }

func preToolUse(in Input, env loop.Env) any {
	return toolAnswer(loop.PreToolUse(env, toolEvent(in)))
}

// preToolUseLoop is PreToolUse registered for every tool but judging all of
// them except ExitPlanMode, which hooks.json gives its own entry (the
// plan-mode gate, needed with no loop too). Split so, the entry that runs on
// every tool call can start nothing when no loop's state file exists; see
// the description in hooks/hooks.json.
func preToolUseLoop(in Input, env loop.Env) any {
	if in.ToolName == "ExitPlanMode" {
		return nil
	}
	return preToolUse(in, env)
}

func postToolUse(in Input, env loop.Env) any {
	if in.ToolName == "SendMessage" {
		// A message to a sub-agent: a gate run it reaches is no evidence.
		var msg struct {
			To string `json:"to"`
		}
		var resp struct {
			Pin struct {
				ID string `json:"id"`
			} `json:"pin"` // the agent the client delivered it to (2.1.330)
		}
		_ = json.Unmarshal(in.ToolResponse, &resp)
		if json.Unmarshal(in.ToolInput, &msg) == nil && (msg.To != "" || resp.Pin.ID != "") {
			return contextAnswer("PostToolUse", loop.RecordSubagent(env, loop.SubagentEvent{Session: session(in), PermissionMode: in.PermissionMode,
				AgentID: msg.To, Resolved: resp.Pin.ID, Steered: true}))
		}
		return nil
	}
	if in.ToolName == "Agent" || in.ToolName == "Task" {
		if ev, ok := subagentLaunch(in); ok {
			return contextAnswer("PostToolUse", loop.RecordSubagent(env, ev))
		}
		return nil
	}
	return contextAnswer("PostToolUse", loop.PostToolUse(env, toolEvent(in)))
}

// subagentLaunch reads the sub-agent tool's call and response: the prompt
// and model asked for, the agent id and resolved model the client reports,
// and for a foreground run its output. ok is false when the response names
// no agent (an older client, or a failed call).
func subagentLaunch(in Input) (loop.SubagentEvent, bool) {
	var call struct {
		Prompt     string `json:"prompt"`
		Model      string `json:"model"`
		Name       string `json:"name"`
		Type       string `json:"subagent_type"`
		Background *bool  `json:"run_in_background"`
	}
	var resp struct {
		Status        string `json:"status"`
		AgentID       string `json:"agentId"`
		ResolvedModel string `json:"resolvedModel"`
		Prompt        string `json:"prompt"`
		Content       []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(in.ToolInput, &call) != nil || json.Unmarshal(in.ToolResponse, &resp) != nil || resp.AgentID == "" {
		return loop.SubagentEvent{}, false
	}
	ev := loop.SubagentEvent{Session: session(in), PermissionMode: in.PermissionMode, AgentID: resp.AgentID, Launched: true,
		Prompt: call.Prompt, Requested: call.Model, Model: resp.ResolvedModel, Name: call.Name, AgentType: call.Type,
		Background: resp.Status == "async_launched"}
	if ev.Prompt == "" {
		ev.Prompt = resp.Prompt
	}
	if resp.Status == "completed" {
		var parts []string
		for _, c := range resp.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
		ev.Done, ev.Output = true, strings.Join(parts, "\n")
		// The run's own transcript, where the client keeps it (both CLIs:
		// beside the session's, <session>/subagents/agent-<id>.jsonl): its
		// SubagentStop, which names it, may be judged after the Stop
		// (2.1.197 does not wait for it).
		if path := subagentTranscript(in.TranscriptPath, resp.AgentID); path != "" && ev.Output != "" {
			output := ev.Output
			ev.WasCut = func() (bool, bool) { return subagentCut(path, output, subagentCatchUp) }
		}
	}
	return ev, true
}

// subagentTranscript is where Claude Code keeps the transcript of the
// session's sub-agent id, "" when it cannot be told.
func subagentTranscript(session, id string) string {
	dir, ok := strings.CutSuffix(session, ".jsonl")
	if !ok || id == "" || strings.ContainsAny(id, "/\\") || strings.Contains(id, "..") {
		return ""
	}
	return filepath.Join(dir, "subagents", "agent-"+id+".jsonl")
}

func userPromptSubmit(in Input, env loop.Env) any {
	return contextAnswer("UserPromptSubmit", loop.PromptSubmit(env, loop.PromptEvent{Session: session(in), Prompt: in.Prompt, Source: in.Source}))
}

func toolEvent(in Input) loop.ToolEvent {
	return loop.ToolEvent{Session: session(in), Tool: in.ToolName, Input: in.ToolInput,
		Response: in.ToolResponse, PermissionMode: in.PermissionMode, AgentID: in.AgentID}
}

// blockCap reads CLAUDE_CODE_STOP_HOOK_BLOCK_CAP (loop.BlockCap).
func blockCap(env loop.Env) int { return loop.BlockCap(env.Getenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")) }

// blockCapSet is the setting as written when blockCap is only plansmith's
// reading of it (StopEvent.BlockCapSet).
func blockCapSet(env loop.Env) string {
	v := env.Getenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")
	if _, plain := loop.BlockCapReading(v); plain {
		return ""
	}
	return v
}
