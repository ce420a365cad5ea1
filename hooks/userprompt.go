package hooks

import (
	"fmt"

	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/templates"
)

// UserPromptSubmit resumes a paused loop: the instructions the Stop hook
// held back go to the agent as additional context with the user's prompt.
// For a running loop it only resets the block count and reminds the agent
// which phase it is in.
func UserPromptSubmit(in Input, env Env) any {
	s := openLoop(in, env)
	if s == nil {
		return nil
	}
	defer s.close(env)
	f := s.file
	f.Loop.ConsecutiveBlocks = 0
	s.dirty = true
	label := phases.Label(MachineConfig(f, ""), MachineProgress(f))
	name := "messages/reminder.md"
	if f.Loop.Paused {
		name = "messages/resume.md"
		f.Loop.Paused = false
	}
	text, err := templates.Render(name, map[string]any{
		"Label":  label,
		"Reason": f.Loop.PausedReason,
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: %v\n", err)
		return nil
	}
	f.Loop.PausedReason = ""
	return addContext(text)
}
