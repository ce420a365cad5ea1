package loop

import (
	"fmt"

	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
)

// Convergence mode's glue: the ledger, complexity and scores persist in
// the frontmatter (state.Convergence, see machine.go); here they become the
// saved plan's record, memory lessons and the status view.

// summary condenses the loop's convergence record; ok is false outside
// convergence mode.
func summary(f *state.File) (s converge.Summary, d converge.Decision, ok bool) {
	if !converging(&f.Loop) {
		return s, d, false
	}
	cfg, p := config(&f.Loop, ""), progress(f)
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
func convergeLessons(l *state.Loop) []string {
	if !converging(l) || l.Convergence == nil {
		return nil
	}
	var out []string
	for _, e := range l.Convergence.Ledger.Challenges {
		if e.Severity == converge.Blocking || e.Severity == converge.Significant {
			out = append(out, fmt.Sprintf("challenge %s (%s, %s): %s", e.ID, e.Severity, e.Status, e.Claim))
		}
	}
	return out
}

// ConvergeView is convergence mode's part of the status view.
type ConvergeView struct {
	Iteration     int    `json:"iteration"`
	MaxIterations int    `json:"max_iterations"`
	Verdict       string `json:"verdict,omitempty"`
	Next          string `json:"next,omitempty"`   // what the last decision said comes next
	Reason        string `json:"reason,omitempty"` // why
	// Complexity is the assessed score (0–16); nil until explore passes.
	Complexity   *int            `json:"complexity,omitempty"`
	Team         string          `json:"team"`
	Perspectives []string        `json:"perspectives"` // of the next (or last) critique round
	QualityScore float64         `json:"quality_score,omitempty"`
	Challenges   int             `json:"challenges"`
	Active       int             `json:"active"`
	BySeverity   map[string]int  `json:"by_severity"`
	ByStatus     map[string]int  `json:"by_status"`
	Ledger       []ChallengeView `json:"ledger"`
	Summary      string          `json:"summary"` // the one-line account
}

// ChallengeView is one ledger entry as `plansmith status --json` shows it.
type ChallengeView struct {
	ID         string `json:"id"`
	Severity   string `json:"severity"`
	Status     string `json:"status"`
	Claim      string `json:"claim"`
	Mitigation string `json:"mitigation,omitempty"`
}

// convergeView describes the loop's convergence state for the status view,
// or nil outside convergence mode.
func convergeView(f *state.File) *ConvergeView {
	s, d, ok := summary(f)
	if !ok {
		return nil
	}
	cfg, p := config(&f.Loop, ""), progress(f)
	l := phases.ConvergeLedger(cfg, p)
	team := p.Converge.Team()
	st := &ConvergeView{
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
		Ledger:  []ChallengeView{},
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
		st.Ledger = append(st.Ledger, ChallengeView{ID: e.ID, Severity: string(e.Severity), Status: string(e.Status),
			Claim: e.Claim, Mitigation: e.Mitigation})
	}
	return st
}
