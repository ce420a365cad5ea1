// Package codex is plansmith's edge to Codex CLI's hooks. Codex sends hook
// inputs in Claude Code's shape — its shell tool arrives as tool "Bash" with
// {"command": …}, its file edits as tool "apply_patch" with the patch in
// "command" — so an event is decoded as for Claude Code and runs the same
// loop, phase machine and tool policy. What differs is handled here, from
// what Codex 0.169.0 was seen to do (docs/codex.md):
//
//   - Codex has no cap on consecutive Stop blocks, so the loop never pauses
//     to stay under one (Claude Code's CLAUDE_CODE_STOP_HOOK_BLOCK_CAP is
//     read as 0, no cap).
//   - last_assistant_message may be null; the transcript is Codex's own
//     format, never parsed as Claude Code's: a null answer is empty.
//   - Codex runs the call on a PreToolUse answer it does not support (allow,
//     ask) and on a deny without a reason: the adapter only ever answers deny,
//     always with a reason, or nothing.
//   - A Stop block must carry a reason, or Codex ignores it.
package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/plansmith/plansmith/hooks"
)

// Events are the hook subcommands Codex runs, as
// `plansmith hook EVENT --agent codex`.
var Events = []string{"stop", "pretooluse", "userpromptsubmit"}

// maxInput bounds what is read from stdin, as for Claude Code's hooks.
const maxInput = 64 << 20

// fallbackDeny is the reason given when a refusal came without one: Codex
// would run a call denied without a reason.
const fallbackDeny = "plansmith is planning, so the project stays read-only: this call was refused."

// Run handles one Codex hook call: stdin is Codex's input, stdout gets the
// answer Codex honours, or nothing. Like hooks.Run it never panics and
// never asks for a non-zero exit.
func Run(event string, stdin io.Reader, stdout io.Writer, env hooks.Env) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "plansmith: internal error in the Codex %s hook: %v\n", event, r)
		}
	}()
	known := false
	for _, e := range Events {
		known = known || e == event
	}
	if !known {
		fmt.Fprintf(env.Stderr, "plansmith: the %s hook is not used with Codex; ignoring this call\n", event)
		return
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
	if err != nil || len(data) > maxInput {
		fmt.Fprintf(env.Stderr, "plansmith: Codex %s hook: reading input failed or it is over 64 MiB; ignoring this call\n", event)
		return
	}
	if event == "stop" {
		data = nullAnswerIsEmpty(data)
	}
	var out bytes.Buffer
	hooks.Run(event, bytes.NewReader(data), &out, noBlockCap(env))
	if answer := codexAnswer(event, out.Bytes(), env); answer != nil {
		stdout.Write(answer)
	}
}

// noBlockCap is env with Claude Code's block-cap variable read as 0.
func noBlockCap(env hooks.Env) hooks.Env {
	get := env.Getenv
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP" {
			return "0"
		}
		if get == nil {
			return ""
		}
		return get(k)
	}
	return env
}

// nullAnswerIsEmpty sets a missing or null last_assistant_message to "",
// so the Claude Code transcript reader never reads Codex's rollout file.
// Input that is not a JSON object is passed on unchanged for the hook to
// report.
func nullAnswerIsEmpty(data []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	if v, ok := m["last_assistant_message"]; ok && string(bytes.TrimSpace(v)) != "null" {
		return data
	}
	m["last_assistant_message"] = json.RawMessage(`""`)
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}

// codexAnswer turns the Claude Code hook's answer into one Codex honours.
func codexAnswer(event string, out []byte, env hooks.Env) []byte {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil
	}
	switch event {
	case "pretooluse":
		var a hooks.SpecificAnswer
		if err := json.Unmarshal(out, &a); err != nil {
			fmt.Fprintf(env.Stderr, "plansmith: Codex pretooluse hook: unreadable answer %q: %v\n", out, err)
			return nil
		}
		if a.HookSpecificOutput.PermissionDecision != "deny" {
			return nil // Codex supports no other decision
		}
		if strings.TrimSpace(a.HookSpecificOutput.PermissionDecisionReason) == "" {
			a.HookSpecificOutput.PermissionDecisionReason = fallbackDeny
		}
		return encode(a, env)
	case "stop":
		var o hooks.StopOutput
		if err := json.Unmarshal(out, &o); err != nil {
			fmt.Fprintf(env.Stderr, "plansmith: Codex stop hook: unreadable answer %q: %v\n", out, err)
			return nil
		}
		if o.Decision == "block" && strings.TrimSpace(o.Reason) == "" {
			o.Reason = "Continue with plansmith's planning loop: answer the current phase."
		}
		return encode(o, env)
	}
	return out
}

func encode(v any, env hooks.Env) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: writing the Codex hook answer: %v\n", err)
		return nil
	}
	return b.Bytes()
}
