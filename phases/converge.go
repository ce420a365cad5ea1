package phases

import (
	"slices"
	"strings"

	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/internal/lazyre"
	"github.com/plansmith/plansmith/internal/mdtext"
)

// Convergence mode (Config.Converge): a critique is a set of challenge
// blocks that the ledger takes in (converge.Apply), and the ledger — not the
// place in the sequence — decides what follows (converge.Decide):
//
//   - Continue: the next revise is an ordinary one, another critique follows;
//   - FinalRevise: the loop skips to the next revise and marks it final
//     (Progress.FinalNext): promise, sections and, when on, the gate;
//   - End (RETHINK): the loop stops with the Rethink outcome.
//
// The ledger lives in Progress.Converge, so Step stays pure: the caller
// loads it with the rest of the progress and stores what Step returns.

// Convergence is convergence mode's part of Progress; zero outside it.
type Convergence struct {
	Ledger     converge.Ledger
	Complexity *converge.Complexity // nil until assessed (see Step)
	Scores     *converge.Scores     // the last accepted critique's scores

	// Understand and Explore are inputs, not state: the recorded answers
	// of those phases. The caller supplies them while Complexity is nil, so
	// that Step can assess it; Step never returns them.
	Understand, Explore string
	// Previous is an input too: the plan the critique judged (the last
	// draft or revise recorded), which the caller supplies for a revise
	// while challenges are active, so that a revise giving it again is
	// not taken for an answer to them (see unaddressed).
	Previous string
}

// ConvergeLast is the loop's last critique iteration: the critiques in the
// sequence, at most converge.MaxIterations (never a fourth).
func ConvergeLast(cfg Config) int {
	return min(countOf(cfg.Phases, Critique), converge.MaxIterations)
}

// ConvergeLedger is p's ledger with its limit set from the sequence, so
// that converge.Decide judges the sequence's last critique as the last
// iteration.
func ConvergeLedger(cfg Config, p Progress) converge.Ledger {
	l := p.Converge.Ledger
	if last := ConvergeLast(cfg); last > 0 {
		l.Limit = last
	}
	return l
}

// ConvergeDecision is what the ledger in p decides now.
func ConvergeDecision(cfg Config, p Progress) converge.Decision {
	return converge.Decide(ConvergeLedger(cfg, p))
}

// Team is the critique team for p: the assessed one, base until then.
func (c Convergence) Team() converge.Team {
	if c.Complexity == nil || c.Complexity.Team == "" {
		return converge.Base
	}
	return c.Complexity.Team
}

// converged is what convergence mode made of a critique, computed once.
type converged struct {
	ledger   converge.Ledger
	report   converge.Report
	scores   converge.Scores
	scoreErr error
}

func (a *answer) converged(cfg Config, p Progress) *converged {
	if a.conv == nil {
		c := &converged{}
		c.ledger, c.report = converge.Apply(ConvergeLedger(cfg, p), a.text)
		c.scores, c.scoreErr = converge.ParseScores(a.text)
		a.conv = c
	}
	return a.conv
}

// validateConvergeCritique replaces the principle checks in convergence
// mode: the ledger must accept the challenge blocks, and the six
// dimensions must be scored (the prompt asks for them every round, since
// only the decision afterwards tells which round was the last).
func validateConvergeCritique(cfg Config, p Progress, a *answer) []Problem {
	c := a.converged(cfg, p)
	var probs []Problem
	for _, text := range c.report.Problems {
		probs = append(probs, Problem{Check: "challenge ledger", Need: 1, Text: "challenge ledger: " + text})
	}
	if c.scoreErr != nil {
		probs = append(probs, Problem{Check: "scores", Need: 1, Text: "scores: " + strings.TrimPrefix(c.scoreErr.Error(), "scores: ")})
	}
	return append(probs, promiseTag(a, "a critique never finalizes; the promise belongs to the final revise")...)
}

// unaddressed is the convergence check of every revise: each active
// challenge must be answered by id.
func unaddressed(cfg Config, p Progress, a *answer) []Problem {
	l := ConvergeLedger(cfg, p)
	missing := converge.Unaddressed(l, a.text)
	if len(missing) == 0 {
		if ids := l.Active(); anyOpen(l, ids) && p.Converge.Previous != "" && samePlan(p.Converge.Previous, a.text) {
			return []Problem{{
				Check:  "the plan revised for the active challenges",
				Need:   1,
				Detail: "apart from the lines naming " + strings.Join(ids, ", ") + ", it is the plan the critique judged, line for line",
				Hint:   "change the plan itself where each challenge calls for it (a step, a check, a risk with its mitigation), and say which change answers which id",
			}}
		}
		return nil
	}
	active := len(l.Active())
	return []Problem{{
		Check:  "active challenges answered by id",
		Found:  active - len(missing),
		Need:   active,
		Detail: "not named: " + strings.Join(missing, ", "),
		Hint:   "say for each active challenge how the plan now deals with it, naming its id, e.g. \"C2: …\"",
	}}
}

// convergeStep applies an accepted critique (or any passed answer) to the
// convergence state: the new ledger, scores and decision after a critique,
// and the complexity assessment once explore passes — or, when the
// sequence has no explore, as the loop reaches its first critique.
func convergeStep(cfg Config, p Progress, a *answer, phase string) (Convergence, *converge.Decision) {
	c := p.Converge
	c.Understand, c.Explore, c.Previous = "", "", ""
	var d *converge.Decision
	if phase == Critique {
		r := a.converged(cfg, p)
		c.Ledger = r.ledger
		s := r.scores
		c.Scores = &s
		dec := converge.Decide(c.Ledger)
		d = &dec
	}
	if c.Complexity == nil && (phase == Explore || PhaseAt(cfg, max(p.Index, 0)+1) == Critique) {
		understand, explore := p.Converge.Understand, p.Converge.Explore
		switch phase {
		case Understand:
			understand = a.text
		case Explore:
			explore = a.text
		}
		cx := converge.Assess(understand, explore)
		c.Complexity = &cx
	}
	return c, d
}

// nextRevise is the index of the first revise after index, or the index of
// Iterate when the sequence holds none: where a FinalRevise decision sends
// the loop, skipping any critique the sequence still had.
func nextRevise(cfg Config, index int) int {
	for i := max(index, 0) + 1; i < len(cfg.Phases); i++ {
		if cfg.Phases[i] == Revise {
			return i
		}
	}
	return len(cfg.Phases)
}

// convergeCritiquePrompt is the convergence part of a critique prompt.
func convergeCritiquePrompt(cfg Config, p Progress) string {
	return strings.TrimSpace(converge.CritiquePrompt(ConvergeLedger(cfg, p), p.Converge.Team()))
}

// convergeRevisePrompt is the convergence part of a revise prompt, empty
// before the first critique (the ledger has nothing to answer yet).
func convergeRevisePrompt(cfg Config, p Progress) string {
	l := ConvergeLedger(cfg, p)
	if l.Iteration == 0 {
		return ""
	}
	return strings.TrimSpace(converge.RevisePrompt(l, converge.Decide(l)))
}

// anyOpen reports whether one of ids is still OPEN: raised and not yet
// settled, so the plan must change for it. An UNRESOLVED one is settled as
// real with its mitigation, which the plan may already carry.
func anyOpen(l converge.Ledger, ids []string) bool {
	return slices.ContainsFunc(ids, func(id string) bool {
		e, ok := l.Get(id)
		return ok && e.Status == converge.Open
	})
}

// samePlan reports whether revise gives previous again: each of its lines
// (white space and promise tags aside) is there unchanged and in order,
// and what the revise adds says nothing once the challenge ids and the
// words that only claim an answer ("addressed", "handled", "see above")
// are set aside. A revise that copied the plan the critique judged and
// added "C1 and C2 are addressed" answered every challenge by id, and the
// next critique could mark them RESOLVED with nothing changed (review
// DC5). A change anywhere in the plan, or a rebuttal with a reason, is an
// answer.
func samePlan(previous, revise string) bool {
	lines := func(text string) []string {
		var out []string
		for _, l := range strings.Split(stripPromises(text), "\n") {
			if t := strings.Join(strings.Fields(l), " "); t != "" {
				out = append(out, t)
			}
		}
		return out
	}
	before, after := lines(previous), lines(revise)
	if len(before) == 0 {
		return false
	}
	i := 0
	for _, l := range after {
		if i < len(before) && l == before[i] {
			i++
			continue
		}
		if mdtext.SaysSomething(claimOnlyRe.Regexp().ReplaceAllString(challengeIDRe.Regexp().ReplaceAllString(l, " "), " ")) {
			return false // the revise says something new
		}
	}
	return i == len(before)
}

// challengeIDRe is a challenge id as a revise names one ("C2", "C-2", "C‑2").
var challengeIDRe = lazyre.New(`\bC[-\x{2011}]?\d+\b`)

// claimOnlyRe are the words with which a line claims challenges answered
// without saying how.
var claimOnlyRe = lazyre.New(`(?i)\b(?:all|both|and|or|the|are|is|were|was|have|has|been|now|each|every|of|in|on|by|to|with|above|below|plan|here|see|this|these|revised|revision|challenges?|responses?|changes?|critique|ids?|addressed|handled|resolved|fixed|done|covered|answered|updated|incorporated|taken|care|accounted|for)\b`)
