package loop

import (
	"encoding/json"
	"time"

	"github.com/plansmith/plansmith/state"
)

// Session is who calls: the agent session and the directory it works in.
// An adapter fills it from its event; Cwd may be empty (then the project is
// Env.CommandProject's) and may lie below the project after a `cd` (see
// Env.Paths).
type Session struct {
	ID  string
	Cwd string
	// ForkedFrom, when set, names the session this one was forked from
	// ("" when it was not, or cannot be told). Read only when another
	// session holds the loop: a fork carries the planning conversation on
	// and is held to its loop (Codex's fork, whose hooks name no parent;
	// Claude Code's forks are told by SessionStart instead). at is when
	// the fork was made, zero when not known.
	ForkedFrom func() (parent string, at time.Time)
}

// continues reports whether s was forked from a session that holds l: it
// is held to the loop as its parent is.
func (s Session) continues(l *state.Loop) bool {
	if s.ForkedFrom == nil || l.SessionID == "" || s.ID == "" {
		return false
	}
	parent, at := s.ForkedFrom()
	// A fork made before the loop began carries no planning conversation
	// (review BO6: its unrelated answers were judged and spent the
	// planner's retries).
	if !at.IsZero() && at.Before(l.StartedAt) {
		return false
	}
	return parent != "" && parent != s.ID && l.HeldBy(parent)
}

// StopEvent is the agent ending its turn.
type StopEvent struct {
	Session
	// LastMessage returns the agent's final answer. It is called only when
	// the project has a state file, before the lock is taken, so an adapter
	// that must read a transcript does so only then and without holding up
	// other hooks. An error (ideally a *NoAnswerError) pauses the loop
	// without judging anything. Nil means an empty answer.
	LastMessage func() (string, error)
	// BlockCap is how many consecutive blocks the agent obeys before it
	// overrides the next one; the loop pauses instead of reaching it. 0
	// means no cap.
	BlockCap int
	// BlockCapSet is the client's setting as written when BlockCap is only
	// plansmith's reading of it (a value that is not a plain integer, see
	// BlockCap): the pause then says so rather than blame the client for a
	// cap it may not have (review AJ6).
	BlockCapSet string
	// AgentID is set when the stop comes from inside a sub-agent: never a
	// phase answer.
	AgentID string
	// InFlight is how many sub-agents are still running (other background
	// work, a shell, does not count: hooks' subagentsInFlight): the agent
	// is waiting for them, so the stop is not an answer (nothing is
	// judged, no retry spent; their completion wakes the agent).
	InFlight int
	// ReportsRuns says the agent reports its sub-agents' runs to the hooks
	// (RecordSubagent): the gate then judges the runs it observed, and
	// falls back to outputs relayed in the reply only when this is false.
	ReportsRuns bool
	// WholeMessage, when set, gives the whole answer when the last
	// message only continues one the client cut at the model's output
	// limit and had the model resume (ok false otherwise). It may wait
	// for the transcript to catch up, so it is called only for an answer
	// that fails its phase's checks, before the lock is taken.
	WholeMessage func() (whole string, ok bool)
	// SentMessage, when set, gives the message the agent last sent the
	// user through SendUserMessage in this turn (brief mode: its answer
	// goes there, and its final text may be a short "Sent."); ok false
	// when it sent none. Like WholeMessage it may wait for the
	// transcript, and is called only for an answer that fails its checks.
	SentMessage func() (sent string, ok bool)
	// Scheduled lists the prompts the session's scheduled tasks will
	// submit (crons, wakeups), when the client says (SchedulesKnown): a
	// prompt among them is the client's own turn, not the user's.
	Scheduled      []string
	SchedulesKnown bool
	// TranscriptBehind, when set, reports whether a read of WholeMessage
	// or SentMessage gave up waiting with the transcript still behind the
	// Stop: what they gave may not be the whole answer (Stop then judges
	// nothing, answerBehind).
	TranscriptBehind func() bool
	// RunCut, when set, looks once more, without waiting, at the
	// transcript of the session's sub-agent agentID, whose output the
	// hooks could not check (gate.Run.Unchecked): as SubagentEvent.WasCut.
	// Called only for such runs of an assessment, under the lock.
	RunCut func(agentID, output string) (cut, checked bool)
	// Began is when the hook process began; zero when unknown. A Stop
	// that began before the same answer was judged for its session is
	// that turn's Stop run again by another of plansmith's hooks (Loop.LastStop).
	Began time.Time
}

// SubagentEvent is a sub-agent run the hooks saw: launched (the sub-agent
// tool's PostToolUse: Prompt, models, and for a foreground run its Output)
// or finished (the sub-agent's own stop: AgentID and Output only).
type SubagentEvent struct {
	Session
	// PermissionMode is "plan" in Claude Code's plan mode: the run may be
	// the plan-mode gate's critic or validator.
	PermissionMode string
	AgentID        string
	// Launched is true for the tool call that started the run.
	Launched bool
	// Prompt, Requested (model asked for), Model (model resolved) and
	// Background describe a launch.
	Prompt     string
	Requested  string
	Model      string
	Background bool
	// AgentType is the sub-agent type the launch named (subagent_type);
	// "" is the client's general-purpose agent.
	AgentType string
	// Done and Output: the run's final text, when it is known.
	Done   bool
	Output string
	// WasCut, when set for a run's output, reports whether Output only
	// resumes a report the client cut at the model's output limit (it
	// reports the part after the cut alone); checked is false when that
	// could not be told (the sub-agent's transcript did not reach Output
	// within the wait), and the run then counts for nothing until a later
	// look tells (StopEvent.RunCut). It may wait for the sub-agent's
	// transcript, so it is called only when a gate run may be recorded,
	// before the lock is taken.
	WasCut func() (cut, checked bool)
	// Name is the run's name at its launch (the Agent tool's name).
	Name string
	// Steered is a message the agent sent the run (SendMessage); AgentID
	// is then whatever the message was addressed to, an id or a name, and
	// Resolved the agent id the client delivered it to, when it says.
	Steered  bool
	Resolved string
}

// SessionEvent is a session starting (Source is "startup", "resume",
// "clear", "compact" or "fork") or ending (Reason is "clear", "logout",
// "prompt_input_exit" or "other").
type SessionEvent struct {
	Session
	Source string
	Reason string
}

// NoAnswerError says the agent's last answer could not be read at all. It
// is not a wrong answer: nothing is judged and no retry is spent. Why is
// shown to the user.
type NoAnswerError struct {
	Why string
}

func (e *NoAnswerError) Error() string { return "could not read the agent's last answer: " + e.Why }

// ToolEvent is a tool call, before (PreToolUse) or after (PostToolUse) it runs.
type ToolEvent struct {
	Session
	Tool           string
	Input          json.RawMessage // the tool's input object
	Response       json.RawMessage // the tool's response; after the call only
	PermissionMode string          // "plan" in Claude Code's plan mode
	// Blind is set when the call may run in another folder and with a
	// terminal that the input does not show (Codex's exec_command: its
	// workdir and tty reach no hook); see policy.Config.Blind.
	Blind bool
	// ShellEnv says why a shell command's environment may not be the
	// hook's (see policy.Config.ShellEnv), or "".
	ShellEnv string
	// CmdExe is set when a program named cmd is where Codex would run it
	// for a command (see policy.Config.CmdExe).
	CmdExe bool
	// AgentID is set for a sub-agent's call: its steps are not the
	// session's own, and do not end its run of Stop blocks.
	AgentID string
}

// PromptEvent is the user sending a prompt.
type PromptEvent struct {
	Session
	Prompt string
	// Source says who authored the prompt, when the client says: Claude
	// Code (2.1.330) names "user" (typed) and "sdk" (-p, the Agent SDK),
	// and the turns it starts on its own "system" (task notifications,
	// peer messages, auto-continuation), "loop_wakeup", "schedule_wakeup"
	// (CronCreate, ScheduleWakeup) and "poll_event". "" when not said.
	Source string
}

// StopKind says what the agent must do at the end of its turn.
type StopKind int

const (
	// LetStop: the turn ends; nothing to say (no loop, or a paused one).
	LetStop StopKind = iota
	// Block: the turn continues; Reason is the model's next instructions.
	Block
	// Pause: the turn ends before the agent's block cap; Message tells the
	// user, and the next prompt resumes the loop (PromptSubmit).
	Pause
	// Finish: the loop ended with ExitReason; Message tells the user where
	// the plan was saved.
	Finish
)

// StopOutcome is what the loop decided at a Stop.
type StopOutcome struct {
	Kind       StopKind
	Reason     string // Block: for the model
	Message    string // Pause, Finish: for the user
	ExitReason string // Finish: one of the state.Exit* reasons
}

// ToolOutcome is the verdict on a tool call; the zero value allows it.
type ToolOutcome struct {
	Deny   bool
	Reason string // Deny: for the model, saying what to do instead
}

// PromptOutcome is what the loop adds to a user's prompt, or to a session
// starting again (SessionStart); the zero value adds nothing.
type PromptOutcome struct {
	Context string // for the model, alongside the prompt
	Message string // for the user
}
