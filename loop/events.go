package loop

import "encoding/json"

// Session is who calls: the agent session and the directory it works in.
// An adapter fills it from its event; Cwd may be empty (then the project is
// $CLAUDE_PROJECT_DIR or the working directory, see Env.Paths).
type Session struct {
	ID  string
	Cwd string
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
}

// PromptEvent is the user sending a prompt.
type PromptEvent struct {
	Session
	Prompt string
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

// PromptOutcome is what the loop adds to a user's prompt; the zero value
// adds nothing.
type PromptOutcome struct {
	Context string // for the model, alongside the prompt
}
