// Package phases is the planning phase machine as pure logic: it builds the
// phase sequence, validates each answer against its phase, and decides what
// happens next. It does no I/O; the hooks package loads state, calls Step and
// writes the outcome.
package phases

// Phase names, as they appear in --phases and in the state file.
const (
	Understand   = "understand"
	Explore      = "explore"
	Alternatives = "alternatives"
	Draft        = "draft"
	Critique     = "critique"
	Revise       = "revise"
	// Iterate is the phase after the last one in the sequence: it repeats
	// revise (as a final revise) until the plan is finalized.
	Iterate = "iterate"
)

// Config is what the user chose when the loop started. It never changes
// during a loop.
type Config struct {
	Phases            []string // the sequence, from Sequence
	RequiredSections  []string // section names, e.g. "Goal", "Steps"
	CompletionPromise string   // text the final revise wraps in <promise>…</promise>
	OpenCritique      bool     // free-form critique instead of the 12 principles
	MaxPhases         int      // phase transitions allowed; 0 = unlimited
	MaxRetries        int      // failed validations allowed per phase
	Request           string   // the user's original request
	Memory            string   // rendered lessons from earlier runs, for explore
	Converge          bool     // convergence mode (challenge ledger)
}

// Progress is where a loop stands; the hooks package persists it.
type Progress struct {
	Index       int // position in Config.Phases; len(Config.Phases) means Iterate
	Retries     int // failed validations in the current phase
	Transitions int // phases passed so far
}

// Kind says what the Stop hook must do with an Outcome.
type Kind int

const (
	// Block continues the turn: Reason goes to the model (a retry or the next phase).
	Block Kind = iota
	// Finalize: the final revise passed its checks; Plan holds the plan text.
	// The caller runs the gate (if on) or saves the plan.
	Finalize
	// Exhausted: the retry budget for the current phase is spent.
	Exhausted
	// MaxPhases: the phase budget is spent.
	MaxPhases
)
