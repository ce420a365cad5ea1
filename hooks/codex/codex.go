// Package codex is plansmith's edge to Codex CLI's hooks (docs/codex.md has
// what Codex 0.169.0 was seen to send and honour). It decodes Codex's hook
// inputs into the loop package's events and maps the loop's outcomes to the
// answers Codex accepts, as hooks/ does for Claude Code: the same loop, phase
// machine and tool policy run behind both.
//
// Events and tool names. Codex reports its shell tool (exec_command) as tool
// "Bash" with {"command": "<shell text>"}, judged by the same shell policy,
// and its file edits as tool "apply_patch" with the patch in "command", an
// edit tool to the policy; other names pass through unchanged. What differs
// from Claude Code:
//
//   - Codex obeys every consecutive Stop block (no cap), so the loop never
//     pauses to stay under one: BlockCap is 0.
//   - last_assistant_message may be null; Codex's transcript is not Claude
//     Code's, so a null answer is judged as an empty one.
//   - Codex runs a call on a PreToolUse answer it does not support (allow,
//     ask) or a deny without a reason, so the adapter answers only deny,
//     always with a reason, or nothing.
//   - A Stop block needs a reason, or Codex ignores it.
//   - PostToolUse (plan-mode metadata for Claude Code's plan files) has no
//     Codex counterpart and is not registered.
//   - SessionStart tells only of a loop another thread holds, or gives a
//     resumed planning thread its phase back: Claude Code's clear and fork
//     hand-overs rest on what only its hooks are told.
package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/install"
	"github.com/plansmith/plansmith/internal/deadline"
	"github.com/plansmith/plansmith/internal/hookjson"
	"github.com/plansmith/plansmith/loop"
)

// Input is the part of a Codex hook input the adapter reads (Codex's
// schemas forbid unknown fields in its own output, not ours to read).
type Input struct {
	SessionID      string          `json:"session_id"`
	TurnID         string          `json:"turn_id"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	PermissionMode string          `json:"permission_mode"`
	StopHookActive bool            `json:"stop_hook_active"`
	LastMessage    *string         `json:"last_assistant_message"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Prompt         string          `json:"prompt"`
	TranscriptPath string          `json:"transcript_path"` // the thread's rollout record
	ToolUseID      string          `json:"tool_use_id"`
	Source         string          `json:"source"` // SessionStart: startup, resume, …

	// Unreadable names the fields present with a type other than the
	// expected one; they are left zero.
	Unreadable []string `json:"-"`
	// Began is when this hook process began its work (not in the JSON):
	// a Stop of the same turn run again by another registration of
	// plansmith's hooks began before the first one's judgment was written.
	Began time.Time `json:"-"`
}

// StopAnswer is a Stop hook answer Codex honours.
type StopAnswer struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// SpecificAnswer carries hookSpecificOutput: a PreToolUse deny, or a
// UserPromptSubmit or SessionStart context; and, for the latter two, a
// message Codex shows the user (its TUI, as "Hook · <message>"; codex exec
// shows none).
type SpecificAnswer struct {
	HookSpecificOutput *Specific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
}

// Specific is Codex's hookSpecificOutput object.
type Specific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// handlers maps each event Codex runs (`plansmith hook EVENT --agent
// codex`) to its handler.
var handlers = map[string]func(Input, loop.Env) any{
	"stop":             stop,
	"pretooluse":       preToolUse,
	"userpromptsubmit": userPromptSubmit,
	"sessionstart":     sessionStart,
}

// fallbackDeny is given when a refusal came without a reason: Codex would
// run a call denied without one.
const fallbackDeny = "plansmith is planning, so the project stays read-only: this call was refused."

// fallbackBlock is given when a block came without a reason: Codex would
// ignore it.
const fallbackBlock = "Continue plansmith's planning loop: answer the current phase."

// Run handles one Codex hook call: env.Stdin is Codex's input, env.Stdout
// gets the answer, or nothing. It never panics and never asks for a non-zero
// exit: Codex runs the call (or ends the turn) when a hook fails, which is
// what every other hook failure does too.
func Run(event string, env loop.Env) {
	var in Input
	var raw []byte
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "plansmith: internal error in the Codex %s hook: %v\n", event, r)
			if strings.HasPrefix(event, "pretooluse") {
				// Codex runs a call whose hook says nothing: one that
				// failed outside its judging is refused too (review CI3).
				writeAnswer(env, failed(env, in, raw, r))
			}
		}
	}()
	if _, known := handlers[event]; !known && strings.HasPrefix(event, "pretooluse") {
		// A tool call under another of plansmith's names (pretooluse-loop,
		// a newer registration's) is a tool call in every respect: judged
		// in full, and failing closed as one (reviews BK8, BM1).
		event = "pretooluse"
	}
	h, ok := handlers[event]
	if !ok {
		fmt.Fprintf(env.Stderr, "plansmith: the %s hook is not used with Codex; ignoring this call\n", event)
		return
	}
	// The input is read within the deadline too: a client that holds its
	// end of the pipe open must not hold the answer (review AS note; the
	// Claude Code path's readInTime).
	start := time.Now()
	type read struct {
		raw []byte
		err error
	}
	got := deadline.Within(start, Deadline, func() read {
		raw, err := hookjson.Read(env.Stdin)
		return read{raw, err}
	}, func(why string) read {
		return read{err: errors.New("the hook input " + strings.Replace(why, "did not finish", "did not end", 1))}
	})
	raw = got.raw
	err := got.err
	if err == nil {
		in, err = decode(raw)
	}
	in.Began = start
	if event == "stop" {
		in.Began = env.Began(start)
	}
	tool := in.ToolName
	if event == "pretooluse" && err == nil {
		tool, err = hookjson.Unjudgeable(in.Unreadable, in.ToolName)
	}
	if err != nil {
		if event == "pretooluse" {
			// Fail closed: while a loop may be running, a tool call that
			// cannot be judged is refused, as for Claude Code.
			if o := loop.UndecodableTool(env, session(in, env), tool, raw, err); o.Deny {
				writeAnswer(env, denyAnswer(o.Reason))
				fmt.Fprintf(env.Stderr, "plansmith: Codex %s hook: %v; refusing this call\n", event, err)
				return
			}
		}
		fmt.Fprintf(env.Stderr, "plansmith: Codex %s hook: %v; ignoring this call\n", event, err)
		return
	}
	if event != "pretooluse" && loopHere(in, env) {
		// A Stop or prompt input that is not what Codex sends for this
		// event is not judged (a retry spent on an answer never given)
		// and is named, not passed over in silence (review BK6).
		if want := eventNames[event]; in.HookEventName != "" && in.HookEventName != want {
			fmt.Fprintf(env.Stderr, "plansmith: Codex %s hook: the input is a %s event's, not %s; ignoring this call\n", event, in.HookEventName, want)
			return
		}
		if len(in.Unreadable) > 0 || in.SessionID == "" {
			fmt.Fprintf(env.Stderr, "plansmith: Codex %s hook: the input has no usable session_id%s; a loop held by a session is not this call's\n", event, unreadableNote(in.Unreadable))
		}
	}
	writeAnswer(env, judged(event, h, in, raw, env, start))
}

// loopHere reports whether the call's project has a loop's state file.
func loopHere(in Input, env loop.Env) bool {
	p, err := env.Paths(session(in, env))
	if err != nil {
		return false
	}
	_, err = os.Lstat(p.State())
	return err == nil
}

// eventNames are the hook_event_name Codex sends for each event handled.
var eventNames = map[string]string{"stop": "Stop", "pretooluse": "PreToolUse", "userpromptsubmit": "UserPromptSubmit", "sessionstart": "SessionStart"}

// unreadableNote names the fields of the wrong type, for a note.
func unreadableNote(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	return " (fields of the wrong type: " + strings.Join(fields, ", ") + ")"
}

// Deadline is how long a Codex hook may take before it answers without its
// work: Codex runs a tool call whose hook fails or times out, so a tool
// call that could not be judged in time is refused wherever a loop may be
// running, as for Claude Code (review Y, D: a panic here let it through).
var Deadline = 20 * time.Second

// judged runs h within Deadline. A PreToolUse whose judging panics or runs
// late is refused where a loop may be running (loop.UndecodableTool); any
// other hook then answers nothing.
func judged(event string, h func(Input, loop.Env) any, in Input, raw []byte, env loop.Env, start time.Time) any {
	late := func(why string) any {
		fmt.Fprintf(env.Stderr, "plansmith: Codex %s hook: %s\n", event, why)
		if event != "pretooluse" {
			return nil
		}
		if o := loop.UndecodableTool(env, session(in, env), in.ToolName, raw, errors.New("plansmith's judging "+why)); o.Deny {
			// The input and the loop were read: the call itself could not
			// be judged, which the agent is told (review CK).
			return denyAnswer(policy.Unjudged(in.ToolName, "plansmith's judging "+why).Reason)
		}
		return nil
	}
	return deadline.Within(start, Deadline, func() any { return h(in, env) }, late)
}

// failed answers a tool call whose hook failed (r) before it could judge
// it: refused where a loop may be running, as undecodable input is, and
// refused outright when even that cannot be told.
func failed(env loop.Env, in Input, raw []byte, r any) (out any) {
	why := fmt.Errorf("plansmith failed while judging it (%v)", r)
	defer func() {
		if recover() != nil {
			out = denyAnswer(policy.Unreadable(in.ToolName, why.Error()).Reason)
		}
	}()
	if o := loop.UndecodableTool(env, session(in, env), in.ToolName, raw, why); o.Deny {
		return denyAnswer(o.Reason)
	}
	return nil
}

func writeAnswer(env loop.Env, out any) {
	if out == nil {
		return
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false) // the model reads these; <promise> must stay legible
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: writing the Codex hook answer: %v\n", err)
	}
}

// decode reads a Codex hook input leniently (internal/hookjson): a field of
// an unexpected type is left zero and named in Unreadable.
func decode(data []byte) (Input, error) {
	var in Input
	bad, err := hookjson.Fields(data, map[string]any{
		"session_id": &in.SessionID, "turn_id": &in.TurnID, "cwd": &in.Cwd,
		"hook_event_name": &in.HookEventName, "permission_mode": &in.PermissionMode,
		"stop_hook_active": &in.StopHookActive, "last_assistant_message": &in.LastMessage,
		"tool_name": &in.ToolName, "tool_input": &in.ToolInput, "prompt": &in.Prompt,
		"transcript_path": &in.TranscriptPath, "tool_use_id": &in.ToolUseID, "source": &in.Source,
	})
	in.Unreadable = bad
	return in, err
}

// session is the loop's view of a call: Codex's thread, and the folder the
// hook looks for the loop from. Codex sends the folder it runs in as cwd and
// runs the hook there (docs/codex.md); a cwd that is not an absolute path
// to a folder is malformed input and must not lead the hook away from the
// loop (review AS2: a relative one found none, and an edit went through),
// so the hook's own working folder stands in for it.
//
// A tool call's cwd is the workdir the model asked for, not the thread's
// folder, while Codex still runs the hook in the thread's folder (0.169.0,
// seen in e2e): a workdir outside the project, or in a checkout nested in
// it, named no loop, and the call was let through (review CL1); one at
// another folder's state file (another session's loop) was judged by that
// loop. The thread's loop is kept where its hooks run (loop.CodexProject),
// so when the hook's own folder finds a state entry, it is looked from.
func session(in Input, env loop.Env) loop.Session {
	cwd := in.Cwd
	wd := ""
	if env.Getwd != nil {
		if d, err := env.Getwd(); err == nil && isFolder(d) {
			wd = filepath.Clean(d)
		}
	}
	switch {
	case !isFolder(cwd):
		if wd != "" {
			cwd = wd
		}
	case wd != "" && wd != filepath.Clean(cwd) && stateAt(env, in.SessionID, wd):
		cwd = wd
	}
	return loop.Session{ID: in.SessionID, Cwd: cwd,
		// A forked thread's hooks name no parent; its record does (review
		// BK10). Read only when another thread holds the loop.
		ForkedFrom: func() (string, time.Time) { return loop.CodexForkedFrom(in.TranscriptPath, in.SessionID) }}
}

// stateAt reports whether a hook looking from dir finds a loop's state
// entry, any entry.
func stateAt(env loop.Env, id, dir string) bool {
	p, err := env.Paths(loop.Session{ID: id, Cwd: dir})
	if err != nil {
		return false
	}
	_, err = os.Lstat(p.State())
	return err == nil
}

// isFolder reports whether dir is an absolute path to a folder.
func isFolder(dir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

func stop(in Input, env loop.Env) any {
	o := loop.Stop(env, loop.StopEvent{
		Session: session(in, env),
		LastMessage: func() (string, error) {
			if slices.Contains(in.Unreadable, "last_assistant_message") {
				return "", &loop.NoAnswerError{Why: "last_assistant_message is not a string"}
			}
			if in.LastMessage == nil {
				return "", nil // no text in the turn: an empty answer
			}
			return *in.LastMessage, nil
		},
		BlockCap: 0, // Codex has none
		Began:    in.Began,
	})
	switch o.Kind {
	case loop.Block:
		reason := o.Reason
		if strings.TrimSpace(reason) == "" {
			reason = fallbackBlock
		}
		return &StopAnswer{Decision: "block", Reason: reason, SystemMessage: o.Message}
	case loop.Pause, loop.Finish:
		if o.Message == "" {
			return nil
		}
		return &StopAnswer{SystemMessage: o.Message}
	}
	return nil
}

func preToolUse(in Input, env loop.Env) any {
	if in.ToolName == "Bash" {
		// plan, run by this call, learns that a hook judged it: Codex runs
		// plansmith's hooks for this thread (loop.CodexCallJudged).
		var shell struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(in.ToolInput, &shell) == nil && loop.RunsPlansmithPlan(shell.Command) {
			if err := loop.NoteCodexCall(env, in.ToolUseID, in.SessionID, shell.Command, otherHooks(in, env)); err != nil {
				fmt.Fprintf(env.Stderr, "plansmith: Codex pretooluse hook: noting the call: %v\n", err)
			}
		}
	}
	// Codex tells the hook the command alone: the workdir and tty the model
	// asked for, where and how it runs, are not passed.
	ev := loop.ToolEvent{Session: session(in, env), Tool: in.ToolName, Input: in.ToolInput,
		PermissionMode: in.PermissionMode, Blind: true}
	if in.ToolName == "Bash" {
		// The variables the command starts with may come from the
		// repository (shellenv.go): looked for from the call's cwd and
		// the folder Codex runs the hook in, the thread's.
		wd := ""
		if env.Getwd != nil {
			wd, _ = env.Getwd()
		}
		ev.ShellEnv = projectShellEnv(ev.Cwd, in.Cwd, wd)
		// For the shell "cmd", Codex runs a cmd found on its PATH, which
		// the hook shares (its variables from the repository are refused
		// above).
		ev.CmdExe = onPath(env.Getenv("PATH"), "cmd")
	}
	o := loop.PreToolUse(env, ev)
	if !o.Deny {
		return nil // Codex supports no allow: saying nothing lets the call run
	}
	return denyAnswer(o.Reason)
}

// otherHooks says why Codex would not run plansmith's other hooks for the
// project (a Stop untrusted while this hook runs: review BQ1), as told from
// here, outside the sandbox plan runs in: Codex itself is asked where it
// is on PATH, else its config files are read (install.Unenforced).
func otherHooks(in Input, env loop.Env) string {
	p, err := env.Paths(session(in, env))
	if err != nil {
		return ""
	}
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	e := install.DoctorEnv{Project: p.Project, Home: env.Getenv("HOME"), Binary: self, Getenv: env.Getenv, Environ: os.Environ()}
	if codex, err := exec.LookPath("codex"); err == nil {
		e.Codex = codex
	}
	return install.Unenforced(e, "codex")
}

// onPath reports whether a program named name (or name.exe) is in a folder
// of path. A folder named by a relative entry counts too: what it holds
// depends on where the command runs.
func onPath(path, name string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		for _, file := range []string{name, name + ".exe"} {
			if fi, err := os.Stat(filepath.Join(dir, file)); err == nil && !fi.IsDir() {
				return true
			}
		}
		if !filepath.IsAbs(dir) {
			return true
		}
	}
	return false
}

// denyAnswer is a PreToolUse refusal Codex honours: it needs a reason.
func denyAnswer(reason string) *SpecificAnswer {
	if strings.TrimSpace(reason) == "" {
		reason = fallbackDeny
	}
	return &SpecificAnswer{HookSpecificOutput: &Specific{HookEventName: "PreToolUse",
		PermissionDecision: "deny", PermissionDecisionReason: reason}}
}

func userPromptSubmit(in Input, env loop.Env) any {
	o := loop.PromptSubmit(env, loop.PromptEvent{Session: session(in, env), Prompt: in.Prompt})
	ctx := o.Context
	if ctx == "" {
		ctx = o.Message // the agent passes it on: codex exec shows no systemMessage
	}
	if ctx == "" {
		return nil
	}
	// What is said to the user is shown to them too, where Codex shows it
	// (its TUI; review DA5: only the agent was told, to pass it on).
	return &SpecificAnswer{SystemMessage: o.Message,
		HookSpecificOutput: &Specific{HookEventName: "UserPromptSubmit", AdditionalContext: ctx}}
}

// sessionStart tells a thread that begins where another thread's loop is
// active that the loop runs there, which this thread is not part of, and
// how to go on with it or end it (loop.SessionStart; review DA2: a loop
// whose Codex session had ended stayed active without a word to the
// thread the user started next, as it did in Claude Code before review
// BI6). A resumed planning thread gets the current phase back. Codex's
// other sources (a new thread, a clear) are a start: Claude Code's clear
// and fork hand-overs rest on what only its hooks are told.
func sessionStart(in Input, env loop.Env) any {
	source := "startup"
	if in.Source == "resume" {
		source = "resume"
	}
	o := loop.SessionStart(env, loop.SessionEvent{Session: session(in, env), Source: source})
	if o.Context == "" && o.Message == "" {
		return nil
	}
	a := &SpecificAnswer{SystemMessage: o.Message}
	if o.Context != "" {
		a.HookSpecificOutput = &Specific{HookEventName: "SessionStart", AdditionalContext: o.Context}
	}
	return a
}
