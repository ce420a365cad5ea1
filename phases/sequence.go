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
	// (after validation, see CheckPhases), Refine is ignored and a Skip
	// field set with it is an error; a non-nil empty list is an error.
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
		for _, skip := range []struct {
			set  bool
			flag string
		}{{opts.SkipUnderstand, "--skip-understand"}, {opts.SkipExplore, "--skip-explore"}, {opts.SkipAlternatives, "--skip-alternatives"}} {
			if skip.set {
				return nil, fmt.Errorf("%s cannot be combined with --phases (leave the phase out of the list instead)", skip.flag)
			}
		}
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

// CheckPhases validates an explicit phase list and returns the names in
// canonical lower case. It refuses, with one line naming the position, what
// would make no sense to run: an empty list or entry, an unknown name,
// understand/explore/alternatives/draft twice or out of their natural order
// (or after a critique), a revise that does not answer a critique right
// before it (only the last phase may be a revise on its own: it writes the
// final plan), and more critiques than --refine-iterations allows.
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
	if err := checkOrder(out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkOrder applies CheckPhases's ordering rules to canonical names.
func checkOrder(seq []string) error {
	rank := map[string]int{Understand: 0, Explore: 1, Alternatives: 2, Draft: 3, Critique: 4, Revise: 4}
	const order = "understand, explore, alternatives, draft, then critique/revise"
	last := -1
	seen := map[string]bool{}
	for i, ph := range seq {
		pos := i + 1
		switch ph {
		case Critique:
		case Revise:
			if (i == 0 || seq[i-1] != Critique) && i != len(seq)-1 {
				return fmt.Errorf("--phases: revise at position %d does not follow a critique (each revise answers the critique right before it; only the last phase may be a revise on its own)", pos)
			}
		default:
			if seen[ph] {
				return fmt.Errorf("--phases: %s appears twice (at position %d)", ph, pos)
			}
			if rank[ph] < last {
				return fmt.Errorf("--phases: %s at position %d comes after %s (the order is %s)", ph, pos, seq[i-1], order)
			}
		}
		seen[ph] = true
		last = max(last, rank[ph])
	}
	if n := countOf(seq, Critique); n > MaxRefine {
		return fmt.Errorf("--phases: %d critique phases, at most %d (as --refine-iterations allows)", n, MaxRefine)
	}
	return nil
}

// Shape is what a sequence will run, for the start banner: it must not
// promise a critique, gate or promise the loop never reaches, nor leave the
// iterate phase unannounced.
type Shape struct {
	Critiques int // critique phases in the sequence
	// Iterate: the sequence does not end with a revise, so after its last
	// phase comes iterate, a final revise (repeated until it passes).
	Iterate bool
	// Final is the number of phases passed before the final revise (the
	// last revise, or iterate) is answered.
	Final int
	// Stops: --max-phases ends the loop after this many phases, before the
	// final revise (so no promise and no gate); 0 when it does not.
	Stops int
}

// ShapeOf describes what the sequence seq runs with maxPhases (0 =
// unlimited) phase transitions allowed.
func ShapeOf(seq []string, maxPhases int) Shape {
	sh := Shape{Critiques: countOf(seq, Critique), Final: len(seq)}
	if n := len(seq); n > 0 && seq[n-1] == Revise {
		sh.Final = n - 1
	} else {
		sh.Iterate = true
	}
	if maxPhases > 0 && maxPhases <= sh.Final {
		sh.Stops = maxPhases
	}
	return sh
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
