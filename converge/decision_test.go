package converge

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ledgerAt builds a ledger at the given iteration holding entries as given.
func ledgerAt(iteration int, entries ...Entry) Ledger {
	return Ledger{Iteration: iteration, Challenges: entries}
}

func entry(id string, sev Severity, st Status, mitigation string) Entry {
	return Entry{ID: id, Claim: "claim", Severity: sev, Status: st, Mitigation: mitigation}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name    string
		l       Ledger
		next    Next
		verdict Verdict
		reason  string
	}{
		{"before any critique", ledgerAt(0), Continue, "", "no critique"},
		{"empty ledger after the first critique proceeds", ledgerAt(1), FinalRevise, Proceed, "no BLOCKING or SIGNIFICANT"},
		{"only minor and closed challenges proceed",
			ledgerAt(1, entry("C1", Minor, Open, ""), entry("C2", Blocking, Resolved, ""), entry("C3", Significant, Withdrawn, ""), entry("C4", Minor, Deferred, "")),
			FinalRevise, Proceed, ""},
		{"one significant unresolved with mitigation revises",
			ledgerAt(1, entry("C1", Significant, Unresolved, "retry")), FinalRevise, Revise, "SIGNIFICANT C1 unresolved with mitigations"},
		{"two significant unresolved with mitigations revise",
			ledgerAt(2, entry("C1", Significant, Unresolved, "a"), entry("C2", Significant, Unresolved, "b")), FinalRevise, Revise, "C1, C2"},
		{"significant without mitigation continues",
			ledgerAt(1, entry("C1", Significant, Unresolved, "")), Continue, "", "1 SIGNIFICANT not yet UNRESOLVED with a mitigation"},
		{"open significant with mitigation is not settled yet",
			ledgerAt(2, entry("C1", Significant, Open, "a")), Continue, "", "iteration 2 of 3"},
		{"three mitigated significant continue before the last iteration",
			ledgerAt(2, entry("C1", Significant, Unresolved, "a"), entry("C2", Significant, Unresolved, "b"), entry("C3", Significant, Unresolved, "c")),
			Continue, "", "3 SIGNIFICANT open"},
		{"blocking continues before the last iteration",
			ledgerAt(2, entry("C1", Blocking, Open, "")), Continue, "", "BLOCKING C1 open"},
		{"blocking with mitigated significant still continues",
			ledgerAt(1, entry("C1", Blocking, Unresolved, "x"), entry("C2", Significant, Unresolved, "y")), Continue, "", "BLOCKING C1 open"},
		{"blocking after the last iteration rethinks",
			ledgerAt(3, entry("C1", Blocking, Unresolved, "x"), entry("C2", Minor, Open, "")), End, Rethink, "BLOCKING C1 still open after 3 iterations"},
		{"last iteration proceeds when clean",
			ledgerAt(3, entry("C1", Blocking, Resolved, "")), FinalRevise, Proceed, ""},
		{"last iteration: open significant with mitigation counts as unresolved",
			ledgerAt(3, entry("C1", Significant, Open, "a")), FinalRevise, Revise, ""},
		{"last iteration: three mitigated significant revise strongly",
			ledgerAt(3, entry("C1", Significant, Unresolved, "a"), entry("C2", Significant, Unresolved, "b"), entry("C3", Significant, Open, "c")),
			FinalRevise, ReviseStrong, "SIGNIFICANT C1, C2, C3 remain after 3 iterations (0 without a mitigation)"},
		{"last iteration: unmitigated significant revises strongly",
			ledgerAt(3, entry("C1", Significant, Unresolved, "")), FinalRevise, ReviseStrong, "(1 without a mitigation)"},
		{"a corrupt iteration past the last is still terminal",
			ledgerAt(7, entry("C1", Significant, Open, "")), FinalRevise, ReviseStrong, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.l)
			assert.Equal(t, tt.next, d.Next)
			assert.Equal(t, tt.verdict, d.Verdict)
			assert.Equal(t, tt.l.Iteration, d.Iteration)
			assert.Contains(t, d.Reason, tt.reason)
		})
	}
}

// TestDecideNeverAFourthIteration checks every mix of one challenge per
// severity/status (and with or without mitigation) at the last iteration:
// none may continue the loop.
func TestDecideNeverAFourthIteration(t *testing.T) {
	var cases []Entry
	for _, sev := range severities {
		for _, st := range statuses {
			for _, m := range []string{"", "m"} {
				cases = append(cases, Entry{Severity: sev, Status: st, Mitigation: m})
			}
		}
	}
	for i, a := range cases {
		for j, b := range cases {
			a.ID, b.ID = "C1", "C2"
			d := Decide(ledgerAt(MaxIterations, a, b))
			if d.Next == Continue || d.Verdict == "" {
				t.Fatalf("cases %d,%d: %+v continues at the last iteration", i, j, d)
			}
		}
	}
}

// TestLoopEndsByTheThirdCritique runs the loop as the phase machine would:
// a critique that never settles anything still ends at iteration 3 and
// Apply refuses a fourth.
func TestLoopEndsByTheThirdCritique(t *testing.T) {
	l := mustApply(critique(block("C1", "broken", Blocking, Open, "")))
	assert.Equal(t, Continue, Decide(l).Next)
	l = mustApply(critique(block("C1", "broken", Blocking, Open, "")), critique(update("C1", Unresolved)))
	assert.Equal(t, Continue, Decide(l).Next)
	l = mustApply(critique(block("C1", "broken", Blocking, Open, "")), critique(update("C1", Unresolved)), critique(update("C1", Unresolved)))
	d := Decide(l)
	assert.Equal(t, End, d.Next)
	assert.Equal(t, Rethink, d.Verdict)
	_, r := Apply(l, critique(update("C1", Resolved)))
	assert.False(t, r.Accepted)
}

// TestLimitEndsTheLoopEarlier: a ledger limited to fewer iterations judges
// its last one as terminal, says so in its prompts, and refuses one more.
func TestLimitEndsTheLoopEarlier(t *testing.T) {
	tests := []struct {
		name    string
		limit   int
		last    int
		next    Next
		verdict Verdict
	}{
		{"no limit: three iterations", 0, 3, Continue, ""},
		{"limit 1: the first critique is the last", 1, 1, End, Rethink},
		{"limit 2: the second is", 2, 2, Continue, ""},
		{"a limit above the maximum is the maximum", 9, 3, Continue, ""},
		{"a negative limit is no limit", -1, 3, Continue, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Ledger{Limit: tt.limit}
			assert.Equal(t, tt.last, l.Last())
			prompt := CritiquePrompt(l, Base)
			assert.Contains(t, prompt, fmt.Sprintf("iteration 1 of %d", tt.last))
			l, r := Apply(l, critique(block("C1", "broken", Blocking, Open, "")))
			assert.True(t, r.Accepted)
			d := Decide(l)
			assert.Equal(t, tt.next, d.Next)
			assert.Equal(t, tt.verdict, d.Verdict)
			assert.Equal(t, tt.last, Summarize(l, d, nil).Last)
			if tt.last == 1 {
				_, r = Apply(l, critique(update("C1", Resolved)))
				assert.False(t, r.Accepted)
				assert.Contains(t, r.Problems[0], "its 1 critique iterations")
			}
		})
	}
}
