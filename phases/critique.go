package phases

import (
	"fmt"

	"github.com/plansmith/plansmith/principles"
)

// Critique: judge the draft from this round's perspective — against the
// twelve principles (PASS/FAIL each) unless the loop runs open critique.

const (
	critiqueItems    = 3
	critiqueEvidence = 6
)

// Perspectives a critique round takes, in rotation order. Rounds past the
// last keep the last one: the devil's advocate needs two rounds of
// ordinary critique before it to be worth anything.
const (
	PerspectiveTechnical       = "technical"
	PerspectiveMaintainability = "maintainability"
	PerspectiveDevilsAdvocate  = "devils-advocate"
)

// Perspective returns the perspective for a 1-based critique round.
func Perspective(round int) string {
	switch {
	case round <= 1:
		return PerspectiveTechnical
	case round == 2:
		return PerspectiveMaintainability
	}
	return PerspectiveDevilsAdvocate
}

func validateCritique(cfg Config, a *answer) []Problem {
	probs := numbered(a, critiqueItems, "list each finding or principle verdict as a numbered item")
	if !cfg.OpenCritique {
		if n := len(a.verdicts()); n < critiqueEvidence {
			probs = append(probs, Problem{Check: "principles with a PASS/FAIL verdict", Found: n, Need: critiqueEvidence,
				Detail: fmt.Sprintf("of P1–P%d", len(principles.All)),
				Hint:   "give each principle its own line, e.g. \"4. P4 (Error paths): FAIL — …\""})
		}
	}
	return append(probs, promiseTag(a, "a critique never finalizes; the promise belongs to the final revise")...)
}

func (a *answer) verdicts() []principles.Verdict {
	if !a.parsed {
		a.vs, a.parsed = principles.Parse(a.text), true
	}
	return a.vs
}
