package loop

import (
	"strings"

	"github.com/plansmith/plansmith/templates"
)

// PromptSubmit resumes a paused loop: the instructions the Stop held back
// go to the agent as context with the user's prompt. For a running loop it
// only resets the block count and reminds the agent which phase it is in.
// The cancel command's own prompt gets nothing: resuming the loop it ends
// would tell the agent to carry on with a phase in the same breath. It is
// recorded instead (Loop.CancelAsked), as the one thing that lets the agent
// run plansmith cancel while the loop keeps the session read-only.
func PromptSubmit(env Env, ev PromptEvent) PromptOutcome {
	t := openSession(env, ev.Session, true)
	if t == nil {
		return PromptOutcome{}
	}
	defer t.close(env)
	l := &t.file.Loop
	// Only the user's own prompt lets the agent end the loop (the policy's
	// plansmith-cancel rule); any other prompt takes that back.
	cancel := isCancelPrompt(ev.Prompt)
	if l.CancelAsked != cancel {
		l.CancelAsked = cancel
		t.dirty = true
	}
	if cancel {
		return PromptOutcome{}
	}
	name := "messages/reminder.md"
	if l.Paused {
		name = "messages/resume.md"
	}
	text := templates.Show(name, map[string]any{
		"Label":  label(t.file),
		"Reason": l.PausedReason,
	})
	// A new prompt starts a new turn: the agent's block count starts over.
	if l.ConsecutiveBlocks != 0 || l.Paused {
		l.ConsecutiveBlocks = 0
		l.Paused = false
		l.PausedReason = ""
		t.dirty = true
	}
	return PromptOutcome{Context: text}
}

// isCancelPrompt recognises the cancel slash command, as a plugin command
// (/plansmith:cancel) or as installed into settings (/plansmith-cancel).
func isCancelPrompt(prompt string) bool {
	p := strings.TrimSpace(prompt)
	for _, c := range []string{"/plansmith:cancel", "/plansmith-cancel"} {
		if p == c || strings.HasPrefix(p, c+" ") {
			return true
		}
	}
	return false
}
