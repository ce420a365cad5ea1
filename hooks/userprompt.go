package hooks

import (
	"fmt"
	"strings"

	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/templates"
)

// UserPromptSubmit resumes a paused loop: the instructions the Stop hook
// held back go to the agent as additional context with the user's prompt.
// For a running loop it only resets the block count and reminds the agent
// which phase it is in.
func UserPromptSubmit(in Input, env Env) any {
	if isCancelPrompt(in.Prompt) {
		// The user is ending the loop: resuming it now would tell the agent
		// to carry on with a phase in the same breath.
		return nil
	}
	s := openLoop(in, env)
	if s == nil {
		return nil
	}
	defer s.close(env)
	f := s.file
	name := "messages/reminder.md"
	if f.Loop.Paused {
		name = "messages/resume.md"
	}
	text, err := templates.Render(name, map[string]any{
		"Label":  phases.Label(MachineConfig(f, ""), MachineProgress(f)),
		"Reason": f.Loop.PausedReason,
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: %v\n", err)
		return nil
	}
	// A new prompt starts a new turn: Claude Code's block count starts over.
	if f.Loop.ConsecutiveBlocks != 0 || f.Loop.Paused {
		f.Loop.ConsecutiveBlocks = 0
		f.Loop.Paused = false
		f.Loop.PausedReason = ""
		s.dirty = true
	}
	return addContext(text)
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
