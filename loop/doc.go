// Package loop is plansmith's application service: everything a planning
// loop does between an agent's event and the pure core (phases, gate,
// converge, policy, memory), with no knowledge of any agent's wire format.
// Adapters (hooks/ for Claude Code; others beside it) decode their events
// into the plain structs below, call one function, and map the typed
// outcome to their own answer. The CLI calls the same package.
//
// # Events and outcomes
//
//	Stop(env, StopEvent) StopOutcome           the agent ends its turn: judge the answer
//	PreToolUse(env, ToolEvent) ToolOutcome     read-only policy; ExitPlanMode gate
//	PostToolUse(env, ToolEvent)                plan-mode metadata after an edit
//	PromptSubmit(env, PromptEvent) PromptOutcome  resume a paused loop / remind
//	RecordSubagent(env, SubagentEvent) PromptOutcome  a sub-agent run: the gate's evidence
//	SessionStart(env, SessionEvent) PromptOutcome  instructions back after compaction or resume
//	SessionEnd(env, SessionEvent)              a cleared planning session, for the next to continue
//	UndecodableTool(env, Session, tool, raw, err) ToolOutcome  input that could not be decoded
//	UnreadableStop(env, Session, err) StopOutcome  a Stop whose input could not be decoded
//
// Every event embeds Session{ID, Cwd}. StopEvent carries LastMessage (a
// func, called only when the project has a state file, before the lock is
// taken) and BlockCap (the
// agent's consecutive-block limit; 0 = none). ToolEvent carries Tool,
// Input, Response (JSON) and PermissionMode. StopOutcome.Kind is LetStop,
// Block (Reason for the model), Pause (Message for the user) or Finish
// (ExitReason, Message); ToolOutcome is {Deny, Reason}; PromptOutcome is
// {Context, Message}. Zero values mean "nothing to do". An answer that cannot be
// read (LastMessage's error, ideally a *NoAnswerError) pauses the loop
// instead of being judged.
//
// # Commands
//
//	Start(env, paths, Options) (Started, error)   plansmith plan; *ActiveError while one runs
//	Cancel(env, paths) (Cancelled, error)         plansmith cancel
//	Status(env, paths) (View, error)              plansmith status (View is also the --json shape)
//
// Start takes Options (the phase sequence already built by
// phases.Sequence) and returns Started for the CLI to print; Cancel returns
// Cancelled; View (with ConvergeView, ChallengeView and PlanModeGateView)
// is what status prints, as text through templates/cli/status.md or as
// JSON. Every user-facing text comes from templates/ (templates.Show).
//
// Env is the process: streams, Getenv, Getwd, Now; Env.Paths(cwd) locates
// the project (for a hook, the nearest folder from its cwd up to
// $CLAUDE_PROJECT_DIR with a loop's state, see hookProject; else
// Env.CommandProject: $CLAUDE_PROJECT_DIR, else the folder the Claude Code
// session runs in, found from its transcript (project.go), else the
// working directory). Env.LoopPaths is the loop status and cancel act on.
// The CLI and every adapter use this one Env. The loop writes only one-line
// "plansmith: ..." notes to Env.Stderr.
//
// # Inside
//
// txn.go is the one transaction on the state file: begin locks and loads
// (missing, corrupt and other failures classified once), openSessionWith binds
// the loop to the calling session, commit saves, archive ends the loop.
// machine.go is the one mapping between the stored loop (state.Loop) and
// the phase machine (phases.Config, phases.Progress): config, progress,
// store, label. Convergence mode is recorded once, as critique_mode:
// converge (older files' `converge: true` is ignored). stop.go drives the
// machine; blockcap.go holds the client's cap on Stop blocks and each
// session's run of them (counted by Stop, ended by a tool call or a new
// turn); gate.go the gap-coverage gate in the final revise, converge.go convergence mode's record, finish.go
// the end of a loop (saved plan, memory, archive). tool.go judges a tool
// call: it hands the policy (hooks/policy) what the call's text alone
// cannot tell, each answered only when asked: what git would run
// (package gitcheck), what the Bash tool's shell makes of a name (package
// bashtool), the Go toolchain, npm's config and sub-agent definitions
// (gotoolchain.go, toolconfig.go).
package loop
