package hooks

// The plan-mode gate: Claude Code's own plan mode, guarded with the gate
// package's embedded rodin metadata. TEMPORARY stubs until it is wired in.

// PostToolUse maintains the plan-mode gate's metadata in plan files.
func PostToolUse(in Input, env Env) any { return nil }

// planModeExit judges an ExitPlanMode call.
func planModeExit(in Input, env Env) any { return nil }

// planModeMalformed answers a PreToolUse call whose input could not be
// decoded; the plan-mode gate fails closed for ExitPlanMode.
func planModeMalformed(err error) any { return nil }
