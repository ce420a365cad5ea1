package hooks

// PostToolUse maintains the plan-mode gate's metadata in Claude Code's plan
// files. TEMPORARY: wired in when the gate package merges.
func PostToolUse(in Input, env Env) any { return nil }
