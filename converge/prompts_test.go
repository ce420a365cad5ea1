package converge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func sampleLedger() Ledger {
	return mustApply(
		critique(block("C1", "the lock is never released", Blocking, Open, ""), block("C2", "retries storm", Significant, Open, "")),
		critique(update("C1", Resolved), "### C2: x\n- **Status**: UNRESOLVED\n- **Mitigation**: jittered\n  backoff\n", block("C3", "typo", Minor, Open, ""), block("C4", "docs", Minor, Open, "")),
	)
}

func TestRenderLedger(t *testing.T) {
	assert.Equal(t, "No challenges yet. New challenges start at C1.", RenderLedger(Ledger{}))
	assert.Equal(t, `After iteration 2 of 3: 4 challenge(s), 3 active (at most 8). New challenges start at C5.

- C1 [BLOCKING, RESOLVED] the lock is never released (history: 1 OPEN, 2 RESOLVED)
- C2 [SIGNIFICANT, UNRESOLVED] retries storm — mitigation: jittered backoff (history: 1 OPEN, 2 UNRESOLVED)
- C3 [MINOR, OPEN] typo (history: 2 OPEN)
- C4 [MINOR, OPEN] docs (history: 2 OPEN)`, RenderLedger(sampleLedger()))
}

func TestCritiquePrompt(t *testing.T) {
	tests := []struct {
		name     string
		l        Ledger
		team     Team
		contains []string
		absent   []string
	}{
		{"first round, base", Ledger{}, Base,
			[]string{"iteration 1 of 3", "as the challenger.", "**Challenger**", "No challenges yet", "start at **C1**", "At most 5 new", "at most 8 active", "### Scores\n- Approach soundness: <n>/10",
				"- **Evidence**: <what settles it", "either needs an **Evidence** line"},
			[]string{"Degradation", "(the last)", "**Resolver**"}},
		{"first round, scaled pairs perspectives", Ledger{}, Scaled,
			[]string{"as the challenger and the devil's advocate", "**Devil's advocate**"}, nil},
		{"after a degraded iteration", sampleLedger(), Scaled,
			[]string{"iteration 3 of 3 (the last)", "**Synthesizer**", "C2 [SIGNIFICANT, UNRESOLVED]", "start at **C5**",
				"**Degradation: iteration 2 created 2 challenge(s) and resolved 1.**", "(C2, C3, C4)"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CritiquePrompt(tt.l, tt.team)
			for _, s := range tt.contains {
				assert.Contains(t, got, s)
			}
			for _, s := range tt.absent {
				assert.NotContains(t, got, s)
			}
		})
	}
}

func TestRevisePrompt(t *testing.T) {
	l := sampleLedger()
	tests := []struct {
		name     string
		l        Ledger
		d        Decision
		contains []string
		absent   []string
	}{
		{"non-final lists the active challenges", l, Decision{Next: Continue, Iteration: 2, Reason: "C2 is open"},
			[]string{"## Revise — after iteration 2 of 3", "do not finalize", "- **C2** [SIGNIFICANT, UNRESOLVED] retries storm — proposed mitigation: jittered backoff", "- **C4** [MINOR, OPEN] docs"},
			[]string{"C1", "Final revise"}},
		{"final after REVISE", l, Decision{Next: FinalRevise, Verdict: Revise, Reason: "because"},
			[]string{"## Final revise — verdict REVISE", "decided: because.", "**C2**"}, []string{"do not finalize"}},
		{"final with nothing open", Ledger{Iteration: 1}, Decide(Ledger{Iteration: 1}),
			[]string{"verdict PROCEED", "No challenge is open"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RevisePrompt(tt.l, tt.d)
			for _, s := range tt.contains {
				assert.Contains(t, got, s)
			}
			for _, s := range tt.absent {
				assert.NotContains(t, got, s)
			}
		})
	}
}

func TestUnaddressed(t *testing.T) {
	l := sampleLedger() // active: C2, C3, C4
	tests := []struct {
		name, revise string
		want         []string
	}{
		{"all named", "C2: backoff added. C3 fixed; C4: docs updated.", nil},
		{"none named", "A better plan.", []string{"C2", "C3", "C4"}},
		{"C1 and C12 are not C2", "C12 and C1 and (C3) and C4.", []string{"C2"}},
		{"resolved ones need not be named", "C2 C3 C4", nil},
		{"ids written with a hyphen (review CP5)", "C-2: backoff. C\u20113: fixed. C-44 is another.", []string{"C4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Unaddressed(l, tt.revise))
		})
	}
}

func TestSummary(t *testing.T) {
	l := sampleLedger()
	scores := Scores{7, 6, 5, 8, 4, 9}
	tests := []struct {
		name   string
		d      Decision
		scores *Scores
		want   Summary
		text   string
	}{
		{"while the loop runs", Decision{Next: Continue}, nil,
			Summary{Iterations: 2, Last: 3, Challenges: 4, Active: 3, BySeverity: SeverityCounts{1, 1, 2}, ByStatus: StatusCounts{Open: 2, Resolved: 1, Unresolved: 1}, Degraded: true},
			"converge: iteration 2/3, 4 challenge(s) (1 blocking, 1 significant, 2 minor; 3 active, 1 resolved), not converged yet, DEGRADATION flagged"},
		{"with a verdict and scores", Decision{Verdict: Revise}, &scores,
			Summary{Verdict: Revise, QualityScore: 6.4, Scores: &scores, Iterations: 2, Last: 3, Challenges: 4, Active: 3, BySeverity: SeverityCounts{1, 1, 2}, ByStatus: StatusCounts{Open: 2, Resolved: 1, Unresolved: 1}, Degraded: true},
			"verdict REVISE, quality 6.4/10, DEGRADATION flagged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(l, tt.d, tt.scores)
			assert.Equal(t, tt.want, s)
			assert.Contains(t, s.Text(), tt.text)
			out, err := yaml.Marshal(s)
			require.NoError(t, err)
			var back Summary
			require.NoError(t, yaml.Unmarshal(out, &back))
			assert.Equal(t, s, back)
		})
	}
}
