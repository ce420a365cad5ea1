package hooks

import (
	"fmt"

	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
)

// Convergence mode between the state file and the phase machine: the
// ledger, complexity and scores persist in the frontmatter
// (state.Convergence); the machine gets them in Progress.Converge and
// returns them updated, with the decision of an accepted critique.

// convergeProgress fills p's convergence part from the loop. While the
// complexity is not assessed yet, the recorded understand and explore
// answers go along as the machine's inputs for the assessment.
func convergeProgress(f *state.File, p *phases.Progress) {
	if !f.Loop.Converge {
		return
	}
	if c := f.Loop.Convergence; c != nil {
		p.Converge.Ledger, p.Converge.Complexity, p.Converge.Scores = c.Ledger, c.Complexity, c.Scores
	}
	if p.Converge.Complexity == nil {
		for _, o := range f.Outputs() {
			switch o.Phase {
			case phases.Understand:
				p.Converge.Understand = o.Text
			case phases.Explore:
				p.Converge.Explore = o.Text
			}
		}
	}
}

// setConverge stores the machine's convergence state, and the decision of
// an accepted critique (nil for any other answer), back into the loop.
func setConverge(f *state.File, p phases.Progress, d *converge.Decision) {
	if !f.Loop.Converge {
		return
	}
	c := f.Loop.Convergence
	if c == nil {
		c = &state.Convergence{}
		f.Loop.Convergence = c
	}
	c.Ledger, c.Complexity, c.Scores = p.Converge.Ledger, p.Converge.Complexity, p.Converge.Scores
	if d != nil {
		c.Verdict, c.Next, c.Reason = d.Verdict, d.Next, d.Reason
	}
}

// summary condenses the loop's convergence record; ok is false outside
// convergence mode.
func summary(f *state.File) (s converge.Summary, d converge.Decision, ok bool) {
	if !f.Loop.Converge {
		return s, d, false
	}
	cfg, p := MachineConfig(f, ""), MachineProgress(f)
	d = phases.ConvergeDecision(cfg, p)
	s = converge.Summarize(phases.ConvergeLedger(cfg, p), d, p.Converge.Scores)
	if cx := p.Converge.Complexity; cx != nil {
		s.Complexity, s.Team = cx.Score, cx.Team
	}
	return s, d, true
}

// ConvergeRecord is the `converge:` block of a saved plan's frontmatter:
// the summary (verdict, quality score, iterations, counts, complexity,
// team) and the ledger's challenges, each with its status history.
type ConvergeRecord struct {
	converge.Summary `yaml:",inline"`
	Ledger           []converge.Entry `yaml:"ledger"`
}

// convergeMeta puts the convergence result into the saved plan's
// frontmatter.
func convergeMeta(f *state.File, meta *state.PlanMeta) {
	if s, _, ok := summary(f); ok {
		rec := ConvergeRecord{Summary: s, Ledger: []converge.Entry{}}
		if c := f.Loop.Convergence; c != nil && c.Ledger.Challenges != nil {
			rec.Ledger = c.Ledger.Challenges
		}
		meta.Converge = rec
	}
}

// convergeLine is the one-line account added to the finish message.
func convergeLine(f *state.File) string {
	if s, _, ok := summary(f); ok {
		return s.Text()
	}
	return ""
}

// rethinkProblems names the BLOCKING challenges that forced RETHINK, for
// the saved plan's frontmatter.
func rethinkProblems(f *state.File, d *converge.Decision) []string {
	if d == nil || f.Loop.Convergence == nil {
		return nil
	}
	var out []string
	for _, id := range d.Blocking {
		e, _ := f.Loop.Convergence.Ledger.Get(id)
		out = append(out, fmt.Sprintf("%s (BLOCKING, %s): %s", id, e.Status, e.Claim))
	}
	return out
}

// convergeLessons are the serious challenges the critiques raised — what
// the first plan got wrong — for Reflexion memory. Convergence critiques
// have no principle verdicts, so without these the run would teach nothing.
func convergeLessons(f *state.File) []string {
	if !f.Loop.Converge || f.Loop.Convergence == nil {
		return nil
	}
	var out []string
	for _, e := range f.Loop.Convergence.Ledger.Challenges {
		if e.Severity == converge.Blocking || e.Severity == converge.Significant {
			out = append(out, fmt.Sprintf("challenge %s (%s, %s): %s", e.ID, e.Severity, e.Status, e.Claim))
		}
	}
	return out
}

// ConvergeStatus is convergence mode's part of `plansmith status`.
type ConvergeStatus struct {
	Iteration     int    `json:"iteration"`
	MaxIterations int    `json:"max_iterations"`
	Verdict       string `json:"verdict,omitempty"`
	Next          string `json:"next,omitempty"`   // what the last decision said comes next
	Reason        string `json:"reason,omitempty"` // why
	// Complexity is the assessed score (0–16); nil until explore passes.
	Complexity   *int              `json:"complexity,omitempty"`
	Team         string            `json:"team"`
	Perspectives []string          `json:"perspectives"` // of the next (or last) critique round
	QualityScore float64           `json:"quality_score,omitempty"`
	Challenges   int               `json:"challenges"`
	Active       int               `json:"active"`
	BySeverity   map[string]int    `json:"by_severity"`
	ByStatus     map[string]int    `json:"by_status"`
	Ledger       []ChallengeStatus `json:"ledger"`
	Summary      string            `json:"summary"` // the one-line account
}

// ChallengeStatus is one ledger entry as `plansmith status --json` shows it.
type ChallengeStatus struct {
	ID         string `json:"id"`
	Severity   string `json:"severity"`
	Status     string `json:"status"`
	Claim      string `json:"claim"`
	Mitigation string `json:"mitigation,omitempty"`
}

// Converge describes the loop's convergence state for `plansmith status`,
// or nil outside convergence mode.
func Converge(f *state.File) *ConvergeStatus {
	s, d, ok := summary(f)
	if !ok {
		return nil
	}
	cfg, p := MachineConfig(f, ""), MachineProgress(f)
	l := phases.ConvergeLedger(cfg, p)
	team := p.Converge.Team()
	st := &ConvergeStatus{
		Iteration:     l.Iteration,
		MaxIterations: l.Last(),
		Verdict:       string(d.Verdict),
		Team:          string(team),
		Perspectives:  converge.RoundPerspectives(team, min(l.Iteration+1, l.Last())),
		QualityScore:  s.QualityScore,
		Challenges:    s.Challenges,
		Active:        s.Active,
		BySeverity: map[string]int{"blocking": s.BySeverity.Blocking, "significant": s.BySeverity.Significant,
			"minor": s.BySeverity.Minor},
		ByStatus: map[string]int{"open": s.ByStatus.Open, "resolved": s.ByStatus.Resolved,
			"unresolved": s.ByStatus.Unresolved, "deferred": s.ByStatus.Deferred, "withdrawn": s.ByStatus.Withdrawn},
		Ledger:  []ChallengeStatus{},
		Summary: s.Text(),
	}
	if l.Iteration > 0 {
		st.Next, st.Reason = string(d.Next), d.Reason
	}
	if cx := p.Converge.Complexity; cx != nil {
		score := cx.Score
		st.Complexity = &score
	}
	for _, e := range l.Challenges {
		st.Ledger = append(st.Ledger, ChallengeStatus{ID: e.ID, Severity: string(e.Severity), Status: string(e.Status),
			Claim: e.Claim, Mitigation: e.Mitigation})
	}
	return st
}
