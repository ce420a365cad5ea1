package phases

import (
	"fmt"
	"strings"

	"github.com/plansmith/plansmith/principles"
)

// Problem is one failed check of an answer, phrased for the retry message.
type Problem struct {
	Check    string // what was checked, e.g. "numbered items"
	Found    int    // how many were found
	Need     int    // how many are needed (positive checks)
	Negative bool   // the thing must be absent: Found must be 0
	Detail   string // specifics: names missing or found, the wrong promise text
	Hint     string // what to do about it
	// Text, when set, is the whole problem as written by a check that does
	// not count things (the convergence ledger's rules); String returns it.
	Text string
}

// String renders the problem, e.g. "numbered items: found 1, need 3 — number
// each point (1., 2., 3.)".
func (p Problem) String() string {
	if p.Text != "" {
		return p.Text
	}
	var b strings.Builder
	b.WriteString(p.Check)
	if p.Negative {
		fmt.Fprintf(&b, ": found %d, must be 0", p.Found)
	} else {
		fmt.Fprintf(&b, ": found %d, need %d", p.Found, p.Need)
	}
	if p.Detail != "" {
		fmt.Fprintf(&b, " (%s)", p.Detail)
	}
	if p.Hint != "" {
		b.WriteString(" — ")
		b.WriteString(p.Hint)
	}
	return b.String()
}

// answer is a message prepared for validation; each part is computed at most
// once and only when a check asks for it.
type answer struct {
	text   string
	sh     *shape
	lower  string
	lowerd bool
	vs     []principles.Verdict
	parsed bool
	conv   *converged
}

func (a *answer) shape() shape {
	if a.sh == nil {
		s := scan(a.text)
		a.sh = &s
	}
	return *a.sh
}

// promises are the answer's own promise tags: none quoted in code, a
// blockquote or an HTML comment (outsideQuotes).
func (a *answer) promises() []span {
	return outsideQuotes(a.text, findPromises(a.lowered()))
}

func (a *answer) lowered() string {
	if !a.lowerd {
		a.lower, a.lowerd = asciiLower(a.text), true
	}
	return a.lower
}

// Validate checks message against the phase at p.Index (Iterate when the
// index is past the sequence) and returns what is wrong; nil means it
// passes. It is pure and linear in the message size.
func Validate(cfg Config, p Progress, message string) []Problem {
	return validate(cfg, p, &answer{text: message})
}

func validate(cfg Config, p Progress, a *answer) []Problem {
	message := a.text
	if strings.TrimSpace(message) == "" {
		return []Problem{{Check: "answer text", Need: 1, Detail: "the message was empty", Hint: "write this phase's answer as your reply"}}
	}
	phase := PhaseAt(cfg, p.Index)
	switch phase {
	case Understand:
		return validateUnderstand(cfg, a)
	case Explore:
		return validateExplore(cfg, a)
	case Alternatives:
		return validateAlternatives(cfg, a)
	case Draft:
		return validateDraft(cfg, a)
	case Critique:
		if cfg.Converge {
			return validateConvergeCritique(cfg, p, a)
		}
		return validateCritique(cfg, a)
	case Revise, Iterate:
		probs := validateRevise(cfg, a, isFinal(cfg, p))
		if cfg.Converge {
			probs = append(probs, unaddressed(cfg, p, a)...)
		}
		return probs
	}
	return []Problem{{Check: "known phase", Need: 1, Detail: fmt.Sprintf("the state names phase %q", phase), Hint: "the loop's state is damaged; cancel it and start again"}}
}

// PhaseAt returns the phase name at index: Iterate at or past the end of
// the sequence (and for any index of an empty one), the first phase for a
// negative index.
func PhaseAt(cfg Config, index int) string {
	index = max(index, 0)
	if index >= len(cfg.Phases) {
		return Iterate
	}
	return cfg.Phases[index]
}

// IsFinalRevise reports whether the phase at index is the final revise: the
// last revise of the sequence, or Iterate.
func IsFinalRevise(cfg Config, index int) bool {
	index = max(index, 0) // read like PhaseAt
	if index >= len(cfg.Phases) {
		return true
	}
	if cfg.Phases[index] != Revise {
		return false
	}
	for _, ph := range cfg.Phases[index+1:] {
		if ph == Revise {
			return false
		}
	}
	return true
}

// isFinal adds the convergence seam to IsFinalRevise: a revise marked
// FinalNext is final wherever it stands.
func isFinal(cfg Config, p Progress) bool {
	ph := PhaseAt(cfg, p.Index)
	return IsFinalRevise(cfg, p.Index) || (p.FinalNext && (ph == Revise || ph == Iterate))
}

// CritiqueRound returns the 1-based round of the critique at index (how
// many critiques the sequence holds up to and including it), or the number
// of critiques so far for any other index.
func CritiqueRound(cfg Config, index int) int {
	n := 0
	for i, ph := range cfg.Phases {
		if i > index {
			break
		}
		if ph == Critique {
			n++
		}
	}
	return n
}

// promiseTag is the negative check for phases that must not finalize.
func promiseTag(a *answer, why string) []Problem {
	n := len(a.promises())
	if n == 0 {
		return nil
	}
	return []Problem{{Check: "<promise> tags", Found: n, Negative: true, Hint: why}}
}

// numbered is the positive check for numbered items.
func numbered(a *answer, need int, what string) []Problem {
	if got := a.shape().numbered; got < need {
		return []Problem{{Check: "numbered items", Found: got, Need: need, Hint: what}}
	}
	return nil
}
