package hooks

import (
	"fmt"

	"github.com/plansmith/plansmith/hooks/policy"
)

// PreToolUse keeps an active loop's session read-only (the tool policy) and
// counts tool calls, which reset Claude Code's consecutive-block counter.
// ExitPlanMode is judged by the plan-mode gate whether or not a loop runs.
func PreToolUse(in Input, env Env) any {
	if in.ToolName == "ExitPlanMode" {
		return planModeExit(in, env)
	}
	s := openLoop(in, env)
	if s == nil {
		return nil
	}
	defer s.close(env)
	f := s.file
	if f.Loop.ConsecutiveBlocks != 0 {
		f.Loop.ConsecutiveBlocks = 0
		s.dirty = true
	}
	if !f.Loop.BlockTools {
		return nil
	}
	cfg, err := policy.LoadConfig(s.paths.Project)
	if err != nil {
		// A broken extension file must not widen the policy: judge with none.
		fmt.Fprintf(env.Stderr, "plansmith: %v (ignoring the project's policy extension)\n", err)
	}
	d := policy.Tool(in.ToolName, in.ToolInput, cfg)
	if d.Allow {
		return nil
	}
	return deny(d.Reason)
}
