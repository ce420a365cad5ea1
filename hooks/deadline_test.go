package hooks

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
)

// guardedProject starts a loop that keeps dir read-only; getPath answers
// the hook's reads of $PATH, which PreToolUse makes while it judges a
// command that runs a program by name (the policy's PATH lookup).
func guardedProject(t *testing.T, getPath func() string) (loop.Env, string) {
	t.Helper()
	dir := t.TempDir()
	env := loop.Env{
		Stderr: io.Discard,
		Getenv: func(k string) string {
			switch k {
			case "CLAUDE_PROJECT_DIR":
				return dir
			case "PATH":
				return getPath()
			}
			return ""
		},
		Getwd: func() (string, error) { return dir, nil },
		Now:   time.Now,
	}
	_, err := loop.Start(env, state.Paths{Project: dir}, loop.Options{Request: "x", Phases: []string{"understand", "draft", "revise"},
		MaxRetries: 2, CritiqueMode: state.CritiquePrinciples, RequiredSections: []string{"Goal"}, CompletionPromise: "OK", BlockTools: true})
	require.NoError(t, err)
	return env, dir
}

func bashCall(dir, command string) string {
	in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]string{"command": command}})
	return string(in)
}

// Claude Code runs a call when its PreToolUse hook times out: a call the
// hook cannot judge in time is refused before that, and so is one whose
// judging fails.
func TestPreToolUseRefusesWhatItCannotJudgeInTime(t *testing.T) {
	old := JudgeDeadline
	// Long enough that reading the input in memory meets it on a loaded
	// machine (a land running every package at once missed 50ms), so the
	// judge, which never returns, is what runs late.
	JudgeDeadline = 500 * time.Millisecond
	defer func() { JudgeDeadline = old }()
	release := make(chan struct{})
	defer close(release)
	env, dir := guardedProject(t, func() string { <-release; return "/usr/bin" })
	var out bytes.Buffer
	run(t, "pretooluse-loop", bashCall(dir, "ls"), &out, env)
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, out.String(), "plansmith's judging did not finish within 500ms")

	// A crash outside the policy (which refuses on its own crashes):
	// PreToolUse reads $HOME for the user's policy file before it judges.
	env, dir = guardedProject(t, func() string { return "/usr/bin" })
	getenv := env.Getenv
	env.Getenv = func(k string) string {
		if k == "HOME" {
			panic("boom")
		}
		return getenv(k)
	}
	out.Reset()
	run(t, "pretooluse-loop", bashCall(dir, "ls"), &out, env)
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, out.String(), "plansmith's judging failed (boom)")
	// Not "could not read the hook input or the loop's state": it was read
	// (review CK).
	assert.Contains(t, out.String(), "Rule: unjudged")
	assert.Contains(t, out.String(), "try the call again")

	// Judged in time (a deadline no loaded machine misses): allowed.
	JudgeDeadline = old
	env, dir = guardedProject(t, func() string { return "/usr/bin" })
	out.Reset()
	run(t, "pretooluse-loop", bashCall(dir, "ls"), &out, env)
	assert.Empty(t, out.String(), "judged in time: allowed")
}

// A tool the policy lets through unjudged elsewhere (Agent) is refused all
// the same when its judging runs out of time: the slow part may be the
// very check it needed (a sub-agent definition's isolation, behind
// definitions built to be slow to read).
func TestAnyToolNotJudgedInTimeIsRefused(t *testing.T) {
	// The judging is held for good, so the deadline is what ends it; a
	// second leaves the input's reading room on a loaded machine (at 50 ms
	// it ran out there first, a flaky failure with another reason).
	old := JudgeDeadline
	JudgeDeadline = time.Second
	defer func() { JudgeDeadline = old }()
	release := make(chan struct{})
	defer close(release)
	env, dir := guardedProject(t, func() string { return "/usr/bin" })
	getenv := env.Getenv
	env.Getenv = func(k string) string {
		if k == "HOME" || k == "CLAUDE_CONFIG_DIR" {
			<-release
		}
		return getenv(k)
	}
	in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse",
		"tool_name": "Agent", "tool_input": map[string]string{"description": "d", "prompt": "look", "subagent_type": "explorer"}})
	var out bytes.Buffer
	run(t, "pretooluse-loop", string(in), &out, env)
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, out.String(), "plansmith's judging did not finish within 1s")
}

// A backgrounded shell (a sleep, say) listed at a Stop does not make the
// turn unjudged, or every turn could end unjudged while it runs; a
// sub-agent in flight does (its report wakes the agent).
func TestOnlySubagentsInFlightMakeAStopUnjudged(t *testing.T) {
	env, dir := guardedProject(t, func() string { return "/usr/bin" })
	stop := func(tasks []any) string {
		in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "Stop",
			"last_assistant_message": "Here is everything, all done.", "background_tasks": tasks})
		var out bytes.Buffer
		run(t, "stop", string(in), &out, env)
		return out.String()
	}
	shell := map[string]any{"id": "b1", "type": "local_bash", "status": "running", "description": "wait"}
	agent := map[string]any{"id": "a1", "type": "subagent", "status": "running", "description": "critic", "agent_type": "general-purpose"}
	assert.Empty(t, stop([]any{agent}), "waiting for a sub-agent: not an answer")
	judged := stop([]any{shell})
	assert.Contains(t, judged, `"decision":"block"`, "a background shell does not excuse the answer")
	assert.Contains(t, judged, "did not pass")
}

// A Stop that cannot finish in time does not leave the user told nothing
// when Claude Code's timeout cuts it off: it answers, saying the answer was
// not checked.
func TestStopNotDoneInTimeTellsTheUser(t *testing.T) {
	old := HookDeadline
	HookDeadline = time.Second // room for reading the input on a loaded machine
	defer func() { HookDeadline = old }()
	env, dir := guardedProject(t, func() string { return "/usr/bin" })
	// The Stop's work is held for good: let go, it would go on writing in
	// the project while the test's clean-up removes it (a flaky failure).
	hold := make(chan struct{})
	getenv := env.Getenv
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP" {
			<-hold
		}
		return getenv(k)
	}
	in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "Stop",
		"last_assistant_message": "1. an answer"})
	var out bytes.Buffer
	run(t, "stop", string(in), &out, env)
	assert.Contains(t, out.String(), `"systemMessage":"plansmith could not check the agent's last answer: plansmith did not finish within 1s`)
	assert.NotContains(t, out.String(), `"decision"`)
}

// An input whose stdin is left open is no reason to answer late: past the
// deadline the call is refused (review X, F3: it was judged only when
// stdin closed, 75 s later, after the client had run it), and a Stop tells
// the user the turn went unchecked (F6).
func TestAnInputThatNeverEndsIsAnsweredInTime(t *testing.T) {
	oldJ, oldH := JudgeDeadline, HookDeadline
	JudgeDeadline, HookDeadline = 50*time.Millisecond, 50*time.Millisecond
	defer func() { JudgeDeadline, HookDeadline = oldJ, oldH }()
	env, dir := guardedProject(t, func() string { return "/usr/bin" })
	open := func(input string) io.Reader {
		r, w := io.Pipe()
		go w.Write([]byte(input)) // never closed
		t.Cleanup(func() { w.Close() })
		return r
	}
	var out bytes.Buffer
	env.Stdin, env.Stdout = open(bashCall(dir, "ls")), &out
	Run("pretooluse-loop", env)
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, out.String(), "the hook input did not end within 50ms")

	out.Reset()
	stop, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "Stop", "last_assistant_message": "x"})
	env.Stdin = open(string(stop))
	Run("stop", env)
	assert.Contains(t, out.String(), `"systemMessage":"plansmith could not check the agent's last answer: plansmith could not read this Stop's input (the hook input did not end within 50ms)`)

	// No loop there: nothing to say.
	out.Reset()
	env.Getenv = func(string) string { return "" }
	env.Getwd = func() (string, error) { return t.TempDir(), nil }
	env.Stdin = open(string(stop))
	Run("stop", env)
	assert.Empty(t, out.String())
}

// A tool call whose hook fails outside its judging, and fails again while
// it looks for a loop to refuse it on, is refused all the same, and the
// hook does not crash (review CI3).
func TestPreToolUseThatFailsTwiceRefuses(t *testing.T) {
	env, _ := guardedProject(t, func() string { return "/usr/bin" })
	env.Getenv = func(k string) string { panic("boom") }
	var out, errb bytes.Buffer
	env.Stderr = &errb
	assert.NotPanics(t, func() { run(t, "pretooluse-loop", `{"session_id":"s","tool_name":"Write"`, &out, env) })
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, errb.String(), "internal error in the pretooluse-loop hook: boom")
}
