package phases

import (
	"errors"
	"fmt"
	"strings"

	"github.com/plansmith/plansmith/converge"
)

// DefaultRefine is the default number of critique/revise cycles.
const DefaultRefine = 2

// MinRefine and MaxRefine bound --refine-iterations.
const (
	MinRefine = 1
	MaxRefine = 4
)

// Known lists the phase names --phases accepts, in their natural order.
// Iterate is not among them: it only ever follows the sequence.
var Known = []string{Understand, Explore, Alternatives, Draft, Critique, Revise}

// DefaultSections are the plan sections required when the user names none.
var DefaultSections = []string{"Goal", "Scope", "Non-Scope", "Steps", "Verification", "Risks", "Open Questions"}

// SequenceOptions are the plan flags that shape the phase sequence.
type SequenceOptions struct {
	// Phases is the explicit --phases list. When non-nil it is used exactly
	// (after validation) and the other fields are ignored; a non-nil empty
	// list is an error.
	Phases           []string
	Refine           int // critique/revise cycles, MinRefine..MaxRefine (pass DefaultRefine when unset)
	SkipUnderstand   bool
	SkipExplore      bool
	SkipAlternatives bool
	// Converge: convergence mode runs at most converge.MaxIterations
	// critiques, so Refine is capped there and an explicit list must hold
	// one to converge.MaxIterations critiques. (The caller picks the
	// default: converge.MaxIterations cycles unless the user chose Refine.)
	Converge bool
}

// Sequence builds the phase list for a loop: understand, explore,
// alternatives, draft, then critique/revise Refine times, minus the skipped
// phases — or exactly opts.Phases when given. Errors name the flag involved.
func Sequence(opts SequenceOptions) ([]string, error) {
	if opts.Phases != nil {
		seq, err := CheckPhases(opts.Phases)
		if err != nil || !opts.Converge {
			return seq, err
		}
		if n := ConvergeLast(Config{Phases: seq}); n == 0 || n < countOf(seq, Critique) {
			return nil, fmt.Errorf("--phases: --converge needs 1 to %d critique phases (got %d)", converge.MaxIterations, countOf(seq, Critique))
		}
		return seq, nil
	}
	if opts.Converge && (opts.Refine < MinRefine || opts.Refine > converge.MaxIterations) {
		return nil, fmt.Errorf("--refine-iterations: %d is out of range with --converge (%d–%d)", opts.Refine, MinRefine, converge.MaxIterations)
	}
	if opts.Refine < MinRefine || opts.Refine > MaxRefine {
		return nil, fmt.Errorf("--refine-iterations: %d is out of range (%d–%d)", opts.Refine, MinRefine, MaxRefine)
	}
	var seq []string
	if !opts.SkipUnderstand {
		seq = append(seq, Understand)
	}
	if !opts.SkipExplore {
		seq = append(seq, Explore)
	}
	if !opts.SkipAlternatives {
		seq = append(seq, Alternatives)
	}
	seq = append(seq, Draft)
	for range opts.Refine {
		seq = append(seq, Critique, Revise)
	}
	return seq, nil
}

// ParseList splits a comma-separated flag value ("a, b,c") into trimmed
// items. It returns a non-nil slice, so an explicitly empty --phases is
// still recognised as given.
func ParseList(s string) []string {
	parts := strings.Split(s, ",")
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// CheckPhases validates an explicit phase list: non-empty, known names only
// (case-insensitive). It returns the names in canonical lower case.
func CheckPhases(list []string) ([]string, error) {
	if len(list) == 0 {
		return nil, errors.New("--phases: no phases given (allowed: " + strings.Join(Known, ", ") + ")")
	}
	out := make([]string, 0, len(list))
	for i, name := range list {
		n := strings.ToLower(strings.TrimSpace(name))
		if n == "" {
			return nil, fmt.Errorf("--phases: empty phase name at position %d (allowed: %s)", i+1, strings.Join(Known, ", "))
		}
		if !isKnown(n) {
			return nil, fmt.Errorf("--phases: unknown phase %q (allowed: %s)", name, strings.Join(Known, ", "))
		}
		out = append(out, n)
	}
	return out, nil
}

func countOf(seq []string, phase string) int {
	n := 0
	for _, ph := range seq {
		if ph == phase {
			n++
		}
	}
	return n
}

func isKnown(name string) bool {
	for _, k := range Known {
		if k == name {
			return true
		}
	}
	return false
}
