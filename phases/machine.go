// Package phases is the planning phase machine as pure logic: it builds the
// phase sequence, validates each answer against its phase, and decides what
// happens next. It does no I/O; the hooks package loads state, calls Step and
// writes the outcome.
package phases

import (
	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/principles"
)

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
	Converge          bool     // convergence mode: a challenge ledger decides when the plan is done (converge.go)
	Gate              bool     // gap-coverage gate on: prompts from draft on ask for a gaps block
}

// Progress is where a loop stands; the hooks package persists it.
type Progress struct {
	Index       int // position in Config.Phases; len(Config.Phases) means Iterate
	Retries     int // failed validations in the current phase
	Transitions int // phases passed so far
	// FinalNext forces the current revise (or iterate) to be validated and
	// prompted as the final one, whatever its place in the sequence. It is
	// the seam for convergence mode, which decides finality from its ledger;
	// Step sets it when the ledger decides to finalize.
	FinalNext bool
	// Converge is convergence mode's state (the challenge ledger and what
	// was judged from it); zero outside convergence mode.
	Converge Convergence
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
	// Rethink: convergence mode's verdict RETHINK — a BLOCKING challenge
	// survived the last critique iteration. The caller saves the current
	// plan marked as such and ends the loop; Decision explains it.
	Rethink
)

// String names the kind for logs and tests.
func (k Kind) String() string {
	switch k {
	case Block:
		return "block"
	case Finalize:
		return "finalize"
	case Exhausted:
		return "exhausted"
	case MaxPhases:
		return "max_phases"
	case Rethink:
		return "rethink"
	}
	return "unknown"
}

// Outcome is Step's decision. The caller persists Progress and acts on Kind.
type Outcome struct {
	Kind     Kind
	Progress Progress // the progress to persist (unchanged fields copied)
	// Reason is, for Block, the text for the model; empty otherwise: the
	// caller words the end of a loop, since only it knows where the plan
	// was saved (templates/messages/finished.md).
	Reason   string
	Plan     string    // Finalize: the plan, promise tags removed, trimmed
	Passed   bool      // the message passed the current phase's checks
	Problems []Problem // why it did not pass (empty when Passed)
	Output   Output    // what was answered, for the state body and memory
	// Decision is what the challenge ledger decided after an accepted
	// convergence critique; nil for every other answer.
	Decision *converge.Decision
}

// Output describes the answer Step judged, so the caller can record it.
type Output struct {
	Phase    string               // phase name (Iterate after the sequence)
	Round    int                  // critique round (1-based) for critique phases, else 0
	Text     string               // the assistant message as given
	Verdicts []principles.Verdict // critique in principles mode: parsed PASS/FAIL verdicts
}
