package loop

import (
	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/planmode"
)

// PreToolUse keeps an active loop's session read-only (the tool policy)
// and counts tool calls, which reset the agent's consecutive-block count.
// ExitPlanMode is judged by the plan-mode gate whether or not a loop runs.
func PreToolUse(env Env, ev ToolEvent) ToolOutcome {
	if ev.Tool == "ExitPlanMode" {
		return denyIf(planmode.CheckExit(planCall(env, ev), env.Stderr))
	}
	t := openSessionHead(env, ev.Session) // the policy needs no phase answers
	if t == nil {
		return ToolOutcome{}
	}
	defer t.close(env)
	l := &t.file.Loop
	if l.ConsecutiveBlocks != 0 {
		l.ConsecutiveBlocks = 0
		t.dirty = true
	}
	if !l.BlockTools {
		return ToolOutcome{}
	}
	cfg, err := policy.LoadConfig(t.paths.Project)
	if err != nil {
		// A broken extension file must not widen the policy: judge with none.
		env.note("%v (ignoring the project's policy extension)", err)
	}
	d := policy.Tool(ev.Tool, ev.Input, cfg)
	if d.Allow {
		return ToolOutcome{}
	}
	return ToolOutcome{Deny: true, Reason: d.Reason}
}

// PostToolUse maintains the plan-mode gate's metadata after the agent
// writes its plan file in plan mode (planmode.Maintain). It never answers.
func PostToolUse(env Env, ev ToolEvent) {
	planmode.Maintain(planCall(env, ev), env.Now(), env.Stderr)
}

// UndecodableTool judges a tool call whose input could not be decoded: raw
// is what was read, err why it failed, s whatever decoded before the error.
// Only input that names ExitPlanMode is refused (the plan-mode gate fails
// closed); every other tool passes, since the policy cannot judge it either.
func UndecodableTool(env Env, s Session, raw []byte, err error) ToolOutcome {
	return denyIf(planmode.CheckMalformed(project(env, s), raw, err, env.Stderr))
}

func planCall(env Env, ev ToolEvent) planmode.Call {
	return planmode.Call{
		Project:        project(env, ev.Session),
		Home:           env.Getenv("HOME"),
		SessionID:      ev.ID,
		PermissionMode: ev.PermissionMode,
		Tool:           ev.Tool,
		Input:          ev.Input,
		Response:       ev.Response,
	}
}

// project is s's project folder, or "" when it cannot be found.
func project(env Env, s Session) string {
	p, _ := env.Paths(s.Cwd)
	return p.Project
}

func denyIf(reason string) ToolOutcome {
	if reason == "" {
		return ToolOutcome{}
	}
	return ToolOutcome{Deny: true, Reason: reason}
}
