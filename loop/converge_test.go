package loop

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/state"
)

func convergeFile(c *state.Convergence, body string) *state.File {
	return &state.File{Loop: state.Loop{
		Active: true, CritiqueMode: critiqueMode(c), Convergence: c, CompletionPromise: "OK", MaxRetries: 2,
		Phases: []string{"understand", "explore", "draft", "critique", "revise", "critique", "revise"},
	}, Body: body}
}

func TestConvergeState(t *testing.T) {
	withLedger := &state.Convergence{
		Complexity: &converge.Complexity{Score: 8, Team: converge.Scaled},
		Scores:     &converge.Scores{ApproachSoundness: 7, RiskCoverage: 6, AssumptionValidity: 8, IntegrationFeasibility: 7, UnknownsCoverage: 5, ConstraintAlignment: 9},
		Ledger: converge.Ledger{Iteration: 1, Limit: 2, Challenges: []converge.Entry{
			{ID: "C1", Claim: "slow", Severity: converge.Significant, Status: converge.Unresolved, Mitigation: "cache"},
		}},
	}
	tests := []struct {
		name       string
		c          *state.Convergence
		body       string
		off        bool
		understand string // the machine's input while complexity is unknown
		status     ConvergeView
	}{
		{name: "outside convergence mode there is nothing", off: true},
		{name: "before any critique, the records feed the assessment",
			c:          &state.Convergence{},
			body:       recordBody(t, state.Output{Phase: "understand", Text: "1. the problem"}),
			understand: "1. the problem",
			status: ConvergeView{MaxIterations: 2, Team: "base", Perspectives: []string{converge.Challenger},
				BySeverity: map[string]int{"blocking": 0, "significant": 0, "minor": 0},
				ByStatus:   map[string]int{"open": 0, "resolved": 0, "unresolved": 0, "deferred": 0, "withdrawn": 0},
				Ledger:     []ChallengeView{}}},
		{name: "after a critique, the ledger decides",
			c: withLedger,
			status: ConvergeView{Iteration: 1, MaxIterations: 2, Verdict: "REVISE", Next: "final_revise",
				Reason: "no BLOCKING challenge; SIGNIFICANT C1 unresolved with mitigations", Complexity: ptr(8), Team: "scaled",
				Perspectives: []string{converge.Resolver, converge.DomainExpert}, QualityScore: 6.9, Challenges: 1, Active: 1,
				BySeverity: map[string]int{"blocking": 0, "significant": 1, "minor": 0},
				ByStatus:   map[string]int{"open": 0, "resolved": 0, "unresolved": 1, "deferred": 0, "withdrawn": 0},
				Ledger:     []ChallengeView{{ID: "C1", Severity: "SIGNIFICANT", Status: "UNRESOLVED", Claim: "slow", Mitigation: "cache"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := convergeFile(tt.c, tt.body)
			got := convergeView(f)
			var meta state.PlanMeta
			convergeMeta(f, &meta)
			if tt.off {
				assert.Nil(t, got)
				assert.Nil(t, meta.Converge)
				return
			}
			require.NotNil(t, got)
			tt.status.Summary = got.Summary
			assert.Equal(t, tt.status, *got)
			assert.Contains(t, got.Summary, "converge: iteration")
			assert.Equal(t, tt.understand, progress(f).Converge.Understand)

			rec, ok := meta.Converge.(ConvergeRecord)
			require.True(t, ok)
			assert.Equal(t, converge.Verdict(tt.status.Verdict), rec.Verdict)
			assert.Len(t, rec.Ledger, tt.status.Challenges)
		})
	}
}

func TestSetConvergeKeepsTheDecision(t *testing.T) {
	f := convergeFile(&state.Convergence{}, "")
	p := progress(f)
	p.FinalNext = true
	p.Converge.Ledger.Iteration = 1
	store(&f.Loop, p, nil)
	assert.True(t, f.Loop.FinalNext)
	assert.Equal(t, 1, f.Loop.Convergence.Ledger.Iteration)
	store(&f.Loop, p, &converge.Decision{Next: converge.End, Verdict: converge.Rethink, Reason: "r"})
	assert.Equal(t, converge.Rethink, f.Loop.Convergence.Verdict)
	assert.Equal(t, converge.End, f.Loop.Convergence.Next)
	store(&f.Loop, p, nil) // a later step without a decision keeps the last one
	assert.Equal(t, converge.Rethink, f.Loop.Convergence.Verdict)
}

func recordBody(t *testing.T, outs ...state.Output) string {
	t.Helper()
	f := &state.File{}
	for _, o := range outs {
		f.AppendOutput(o)
	}
	return f.Body
}

func ptr(n int) *int { return &n }

func critiqueMode(c *state.Convergence) string {
	if c == nil {
		return state.CritiquePrinciples
	}
	return state.CritiqueConverge
}
