package converge

import (
	"fmt"
	"strings"
)

// Verdict is the convergence loop's judgement of the plan.
type Verdict string

// Verdicts. The empty verdict means the loop has not decided yet.
const (
	Proceed Verdict = "PROCEED" // nothing BLOCKING or SIGNIFICANT left
	Revise  Verdict = "REVISE"  // 1–2 SIGNIFICANT left, each with a mitigation
	// ReviseStrong is the last iteration's verdict when no BLOCKING
	// challenge is left but the SIGNIFICANT ones are three or more, or lack
	// mitigations: the plan goes ahead with a loud list of what to fix.
	ReviseStrong Verdict = "REVISE (strong)"
	Rethink      Verdict = "RETHINK" // a BLOCKING challenge survived the last iteration
)

// Next says what the phase machine does after a critique.
type Next string

const (
	// Continue: a non-final revise, then another critique iteration.
	Continue Next = "continue"
	// FinalRevise: the next revise is the final one (promise, sections,
	// gate); the verdict goes into the saved plan.
	FinalRevise Next = "final_revise"
	// End: the loop ends now and the current plan is saved with the verdict
	// (RETHINK): revising it further would not fix a broken approach.
	End Next = "end"
)

// Decision is the outcome of Decide.
type Decision struct {
	Next        Next
	Verdict     Verdict  // empty when Next is Continue
	Iteration   int      // critique iterations so far
	Blocking    []string // active BLOCKING ids
	Significant []string // active SIGNIFICANT ids
	Reason      string   // one sentence on why, for the block reason and the log
}

// Decide judges the ledger after an accepted critique:
//
//   - no active BLOCKING or SIGNIFICANT: PROCEED, the next revise is final;
//   - no BLOCKING and 1–2 SIGNIFICANT, each UNRESOLVED with a mitigation:
//     REVISE, the next revise is final (an OPEN one is not settled yet, so
//     before the last iteration it keeps the loop going);
//   - otherwise, before the last iteration (l.Last()): Continue;
//   - at the last iteration every outcome is terminal: a BLOCKING
//     challenge still active gives RETHINK and the loop ends; otherwise the
//     SIGNIFICANT ones are judged as they stand (OPEN counts as
//     UNRESOLVED): 1–2 with mitigations give REVISE, anything more gives
//     REVISE (strong), and the next revise is final.
//
// Three or more mitigated SIGNIFICANT challenges before the last iteration
// continue the loop rather than finalize: another round may well resolve
// some, and REVISE (strong) is the verdict only when no round is left.
func Decide(l Ledger) Decision {
	d := Decision{Iteration: l.Iteration}
	unmitigated := 0
	for _, e := range l.Challenges {
		if !e.Status.Active() {
			continue
		}
		switch e.Severity {
		case Blocking:
			d.Blocking = append(d.Blocking, e.ID)
		case Significant:
			d.Significant = append(d.Significant, e.ID)
			settled := e.Status == Unresolved || l.Iteration >= l.Last()
			if !settled || strings.TrimSpace(e.Mitigation) == "" {
				unmitigated++
			}
		}
	}
	last := l.Iteration >= l.Last()
	switch {
	case l.Iteration == 0:
		d.Next, d.Reason = Continue, "no critique has been taken into the ledger yet"
	case len(d.Blocking) == 0 && len(d.Significant) == 0:
		d.Next, d.Verdict = FinalRevise, Proceed
		d.Reason = "no BLOCKING or SIGNIFICANT challenge is open"
	case len(d.Blocking) == 0 && len(d.Significant) <= 2 && unmitigated == 0:
		d.Next, d.Verdict = FinalRevise, Revise
		d.Reason = fmt.Sprintf("no BLOCKING challenge; SIGNIFICANT %s unresolved with mitigations", strings.Join(d.Significant, ", "))
	case !last:
		d.Next = Continue
		d.Reason = continueReason(d, unmitigated, l.Last())
	case len(d.Blocking) > 0:
		d.Next, d.Verdict = End, Rethink
		d.Reason = fmt.Sprintf("BLOCKING %s still open after %d iterations", strings.Join(d.Blocking, ", "), l.Iteration)
	default:
		d.Next, d.Verdict = FinalRevise, ReviseStrong
		d.Reason = fmt.Sprintf("no BLOCKING challenge, but SIGNIFICANT %s remain after %d iterations (%d without a mitigation)",
			strings.Join(d.Significant, ", "), l.Iteration, unmitigated)
	}
	return d
}

func continueReason(d Decision, unmitigated, last int) string {
	var parts []string
	if len(d.Blocking) > 0 {
		parts = append(parts, "BLOCKING "+strings.Join(d.Blocking, ", ")+" open")
	}
	if len(d.Significant) > 2 {
		parts = append(parts, fmt.Sprintf("%d SIGNIFICANT open (%s)", len(d.Significant), strings.Join(d.Significant, ", ")))
	}
	if unmitigated > 0 {
		parts = append(parts, fmt.Sprintf("%d SIGNIFICANT not yet UNRESOLVED with a mitigation", unmitigated))
	}
	return strings.Join(parts, "; ") + fmt.Sprintf("; iteration %d of %d", d.Iteration, last)
}
