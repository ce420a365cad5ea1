package loop

import (
	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
)

// The one mapping between the stored loop (state.Loop) and the phase
// machine (phases.Config and phases.Progress). Nothing else copies fields
// between the two.

// converging reports whether the loop runs in convergence mode.
func converging(l *state.Loop) bool { return l.CritiqueMode == state.CritiqueConverge }

// config is the phase machine's view of a loop's options; mem is the
// rendered Reflexion memory to inject into explore.
func config(l *state.Loop, mem string) phases.Config {
	return phases.Config{
		Phases:            l.Phases,
		RequiredSections:  l.RequiredSections,
		CompletionPromise: l.CompletionPromise,
		OpenCritique:      l.CritiqueMode == state.CritiqueOpen,
		MaxPhases:         l.MaxPhases,
		MaxRetries:        l.MaxRetries,
		Request:           l.Request,
		Memory:            mem,
		Converge:          converging(l),
		Gate:              l.Gate,
	}
}

// progress is where the loop stands, in the phase machine's terms,
// convergence mode's ledger included. While the complexity is not assessed
// yet, the recorded understand and explore answers go along as the
// machine's inputs for the assessment.
func progress(f *state.File) phases.Progress {
	l := &f.Loop
	p := phases.Progress{Index: l.PhaseIndex, Retries: l.Retries, Transitions: l.Transitions, FinalNext: l.FinalNext}
	if !converging(l) {
		return p
	}
	if c := l.Convergence; c != nil {
		p.Converge.Ledger, p.Converge.Complexity, p.Converge.Scores = c.Ledger, c.Complexity, c.Scores
	}
	if ph := phases.PhaseAt(config(l, ""), p.Index); (ph == phases.Revise || ph == phases.Iterate) && len(p.Converge.Ledger.Active()) > 0 {
		// The plan the critique judged, so that a revise giving it again
		// is not taken for an answer to the challenges (review DC5).
		p.Converge.Previous = previousPlan(f)
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
	return p
}

// previousPlan is the last draft or revise the loop recorded; "" when none.
func previousPlan(f *state.File) string {
	outs := f.Outputs()
	for i := len(outs) - 1; i >= 0; i-- {
		switch outs[i].Phase {
		case phases.Draft, phases.Revise, phases.Iterate:
			return outs[i].Text
		}
	}
	return ""
}

// label names the loop's position, e.g. "critique [5/8]".
func label(f *state.File) string { return phases.Label(config(&f.Loop, ""), progress(f)) }

// store keeps the machine's progress in the loop, with the decision of an
// accepted convergence critique (nil for any other answer).
func store(l *state.Loop, p phases.Progress, d *converge.Decision) {
	l.PhaseIndex = p.Index
	l.Retries = p.Retries
	l.Transitions = p.Transitions
	l.FinalNext = p.FinalNext
	l.Phase = phases.PhaseAt(phases.Config{Phases: l.Phases}, p.Index)
	if !converging(l) {
		return
	}
	c := l.Convergence
	if c == nil {
		c = &state.Convergence{}
		l.Convergence = c
	}
	c.Ledger, c.Complexity, c.Scores = p.Converge.Ledger, p.Converge.Complexity, p.Converge.Scores
	if d != nil {
		c.Verdict, c.Next, c.Reason = d.Verdict, d.Next, d.Reason
	}
}
