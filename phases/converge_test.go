package phases

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/converge"
)

const scoresOK = `
### Scores
- Approach soundness: 7/10
- Risk coverage: 6/10
- Assumption validity: 8/10
- Integration feasibility: 7/10
- Unknowns coverage: 5/10
- Constraint alignment: 9/10
`

// challenge writes a complete challenge block; mitigation may be empty.
func challenge(id string, sev converge.Severity, st converge.Status, mitigation string) string {
	s := fmt.Sprintf("### %s: claim of %s\n- **Severity**: %s\n- **Status**: %s\n- **Concern**: concern of %s\n- **Failure scenario**: failure of %s\n",
		id, id, sev, st, id, id)
	if mitigation != "" {
		s += "- **Mitigation**: " + mitigation + "\n"
	}
	return s + "\n"
}

// statusOnly updates an existing challenge.
func statusOnly(id string, st converge.Status) string {
	s := fmt.Sprintf("### %s: same claim\n- **Status**: %s\n", id, st)
	if st == converge.Resolved || st == converge.Withdrawn {
		s += "- **Evidence**: evidence about " + id + " in limiter.go:40\n"
	}
	return s + "\n"
}

func convCritique(blocks ...string) string {
	return "Convergence critique.\n\n" + strings.Join(blocks, "") + scoresOK
}

// convConfig is the default convergence sequence: draft then three cycles.
func convConfig(t *testing.T) Config {
	seq, err := Sequence(SequenceOptions{Refine: converge.MaxIterations, Converge: true, SkipUnderstand: true, SkipExplore: true, SkipAlternatives: true})
	require.NoError(t, err)
	require.Equal(t, []string{Draft, Critique, Revise, Critique, Revise, Critique, Revise}, seq)
	return Config{Phases: seq, CompletionPromise: "PLAN_OK", MaxRetries: 3, Request: request, Converge: true}
}

// revised is a plan that answers the given challenge ids.
func revised(promise string, ids ...string) string {
	var notes string
	for _, id := range ids {
		notes += id + ": handled in the steps.\n"
	}
	return plan(DefaultSections, "") + notes + promiseLine(promise)
}

func promiseLine(p string) string {
	if p == "" {
		return ""
	}
	return "<promise>" + p + "</promise>\n"
}

func TestConvergeCritique(t *testing.T) {
	tests := []struct {
		name      string
		ledger    converge.Ledger // before the critique
		critique  string
		kind      Kind
		passed    bool
		next      converge.Next // when passed
		verdict   converge.Verdict
		index     int // Progress.Index afterwards
		finalNext bool
		reason    []string
	}{
		{name: "a blocking challenge continues the loop",
			critique: convCritique(challenge("C1", converge.Blocking, converge.Open, "")),
			kind:     Block, passed: true, next: converge.Continue, index: 2,
			reason: []string{"revise [3/7]", "The convergence loop continues", "C1", "not** the final revise"}},
		{name: "no challenges proceeds: the next revise is final",
			critique: "Nothing holds up.\n\n### NO CHALLENGES\n" + scoresOK,
			kind:     Block, passed: true, next: converge.FinalRevise, verdict: converge.Proceed, index: 2, finalNext: true,
			reason: []string{"Final revise — verdict PROCEED", "<promise>PLAN_OK</promise>"}},
		{name: "one mitigated significant revises: the next revise is final",
			critique: convCritique(challenge("C1", converge.Significant, converge.Unresolved, "retry with backoff")),
			kind:     Block, passed: true, next: converge.FinalRevise, verdict: converge.Revise, index: 2, finalNext: true,
			reason: []string{"Final revise — verdict REVISE", "retry with backoff", "<promise>PLAN_OK</promise>"}},
		{name: "a malformed block is rejected and the ledger kept",
			critique: "### C1: vague\n- **Severity**: HUGE\n" + scoresOK,
			kind:     Block, index: 1,
			reason: []string{"critique [2/7]", "challenge ledger: C1 (line 2): severity \"HUGE\"", "Failure scenario", "iteration 1 of 3"}},
		{name: "a critique without challenges or a NO CHALLENGES heading is rejected",
			critique: "Looks fine to me.\n" + scoresOK,
			kind:     Block, index: 1,
			reason: []string{"no challenge blocks found"}},
		{name: "missing scores are rejected",
			critique: "Review.\n\n" + challenge("C1", converge.Minor, converge.Open, ""),
			kind:     Block, index: 1,
			reason: []string{"scores: no `### Scores` section"}},
		{name: "a promise in a critique is rejected",
			critique: convCritique(challenge("C1", converge.Minor, converge.Open, "")) + "<promise>PLAN_OK</promise>",
			kind:     Block, index: 1,
			reason: []string{"<promise> tags: found 1, must be 0"}},
		{name: "more than five new challenges are rejected",
			critique: convCritique(challenge("C1", converge.Minor, converge.Open, ""), challenge("C2", converge.Minor, converge.Open, ""),
				challenge("C3", converge.Minor, converge.Open, ""), challenge("C4", converge.Minor, converge.Open, ""),
				challenge("C5", converge.Minor, converge.Open, ""), challenge("C6", converge.Minor, converge.Open, "")),
			kind: Block, index: 1,
			reason: []string{"raises 6 new challenges"}},
		{name: "a blocking challenge at the last iteration ends with RETHINK",
			ledger:   converge.Ledger{Iteration: 2, Challenges: []converge.Entry{{ID: "C1", Claim: "broken", Severity: converge.Blocking, Status: converge.Open}}},
			critique: convCritique(statusOnly("C1", converge.Unresolved)),
			kind:     Rethink, passed: true, next: converge.End, verdict: converge.Rethink, index: 1,
			reason: []string{"BLOCKING C1 still open after 3 iterations"}},
		{name: "significant left at the last iteration revises strongly",
			ledger:   converge.Ledger{Iteration: 2, Challenges: []converge.Entry{{ID: "C1", Claim: "slow", Severity: converge.Significant, Status: converge.Open}}},
			critique: convCritique(statusOnly("C1", converge.Open)),
			kind:     Block, passed: true, next: converge.FinalRevise, verdict: converge.ReviseStrong, index: 2, finalNext: true,
			reason: []string{"Final revise — verdict REVISE (strong)", "C1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := convConfig(t)
			p := Progress{Index: 1, Transitions: 1, Converge: Convergence{Ledger: tt.ledger}}
			out := Step(cfg, p, tt.critique)
			assert.Equal(t, tt.kind, out.Kind, "problems: %v", out.Problems)
			assert.Equal(t, tt.passed, out.Passed)
			assert.Equal(t, tt.index, out.Progress.Index)
			assert.Equal(t, tt.finalNext, out.Progress.FinalNext)
			got := out.Reason
			if out.Decision != nil {
				got += "\n" + out.Decision.Reason
			}
			for _, s := range tt.reason {
				assert.Contains(t, got, s)
			}
			assert.Nil(t, out.Output.Verdicts, "no principle verdicts in convergence mode")
			if !tt.passed {
				assert.Nil(t, out.Decision)
				assert.Equal(t, tt.ledger, out.Progress.Converge.Ledger, "a rejected critique leaves the ledger alone")
				assert.Equal(t, 1, out.Progress.Retries)
				return
			}
			require.NotNil(t, out.Decision)
			assert.Equal(t, tt.next, out.Decision.Next)
			assert.Equal(t, tt.verdict, out.Decision.Verdict)
			assert.Equal(t, tt.ledger.Iteration+1, out.Progress.Converge.Ledger.Iteration)
			require.NotNil(t, out.Progress.Converge.Scores)
			assert.Equal(t, 7, out.Progress.Converge.Scores.ApproachSoundness)
		})
	}
}

// TestConvergeLoops drives whole loops: each critique's blocks in turn,
// each revise naming the active challenges, to the end.
func TestConvergeLoops(t *testing.T) {
	tests := []struct {
		name      string
		critiques []string
		end       Kind
		verdict   converge.Verdict
		rounds    int // critiques taken
	}{
		{"proceeds after the first critique",
			[]string{convCritique(challenge("C1", converge.Minor, converge.Deferred, ""))},
			Finalize, converge.Proceed, 1},
		{"revises after the second critique",
			[]string{
				convCritique(challenge("C1", converge.Blocking, converge.Open, ""), challenge("C2", converge.Significant, converge.Open, "")),
				convCritique(statusOnly("C1", converge.Resolved), challenge("C2", converge.Significant, converge.Unresolved, "cache it")),
			},
			Finalize, converge.Revise, 2},
		{"rethinks when a blocking challenge survives the third",
			[]string{
				convCritique(challenge("C1", converge.Blocking, converge.Open, "")),
				convCritique(statusOnly("C1", converge.Unresolved)),
				convCritique(statusOnly("C1", converge.Unresolved)),
			},
			Rethink, converge.Rethink, 3},
		{"never a fourth critique: the third always decides",
			[]string{
				convCritique(challenge("C1", converge.Significant, converge.Open, "")),
				convCritique(statusOnly("C1", converge.Open)),
				convCritique(statusOnly("C1", converge.Open)),
			},
			Finalize, converge.ReviseStrong, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := convConfig(t)
			// A fourth critique/revise pair in the sequence must still be skipped.
			cfg.Phases = append(cfg.Phases, Critique, Revise)
			p := Progress{}
			out := Step(cfg, p, plan(DefaultSections, ""))
			require.Equal(t, Block, out.Kind)
			rounds := 0
			var last *converge.Decision
			for steps := 0; steps < 20; steps++ {
				p = out.Progress
				var msg string
				switch PhaseAt(cfg, p.Index) {
				case Critique:
					require.Less(t, rounds, len(tt.critiques), "a critique past the script: %s", out.Reason)
					msg = tt.critiques[rounds]
					rounds++
				default:
					promise := ""
					if isFinal(cfg, p) {
						promise = "PLAN_OK"
					}
					msg = revised(promise, ConvergeLedger(cfg, p).Active()...)
				}
				out = Step(cfg, p, msg)
				require.True(t, out.Passed, "%s: %v", PhaseAt(cfg, p.Index), out.Problems)
				if out.Decision != nil {
					last = out.Decision
				}
				if out.Kind != Block {
					break
				}
			}
			assert.Equal(t, tt.end, out.Kind)
			assert.Equal(t, tt.rounds, rounds)
			assert.Equal(t, tt.rounds, out.Progress.Converge.Ledger.Iteration)
			require.NotNil(t, last)
			assert.Equal(t, tt.verdict, last.Verdict)
			assert.Equal(t, tt.verdict, ConvergeDecision(cfg, out.Progress).Verdict, "the stored ledger decides the same")
			assert.LessOrEqual(t, rounds, converge.MaxIterations)
		})
	}
}

func TestConvergeReviseMustNameActiveChallenges(t *testing.T) {
	cfg := convConfig(t)
	l := converge.Ledger{Iteration: 1, Challenges: []converge.Entry{
		{ID: "C1", Claim: "a", Severity: converge.Blocking, Status: converge.Open},
		{ID: "C2", Claim: "b", Severity: converge.Minor, Status: converge.Resolved},
		{ID: "C3", Claim: "c", Severity: converge.Significant, Status: converge.Unresolved},
	}}
	p := Progress{Index: 2, Transitions: 2, Converge: Convergence{Ledger: l}}
	out := Step(cfg, p, revised("", "C1"))
	assert.False(t, out.Passed)
	assert.Contains(t, out.Reason, "active challenges answered by id: found 1, need 2 (not named: C3)")
	out = Step(cfg, p, revised("", "C1", "C3"))
	assert.True(t, out.Passed)
	assert.Equal(t, 3, out.Progress.Index)
	assert.Equal(t, l, out.Progress.Converge.Ledger, "a revise leaves the ledger alone")
}

func TestConvergePrompts(t *testing.T) {
	cfg := convConfig(t)
	l := converge.Ledger{Iteration: 1, Challenges: []converge.Entry{
		{ID: "C1", Claim: "the cache is never invalidated", Severity: converge.Blocking, Status: converge.Open},
	}}
	scaled := &converge.Complexity{Score: 9, Team: converge.Scaled}
	tests := []struct {
		name   string
		p      Progress
		has    []string
		hasNot []string
	}{
		{"first critique, base team", Progress{Index: 1},
			[]string{"critique [2/7]", "iteration 1 of 3", "as the challenger", "No challenges yet", "### Scores", "### C<n>:"},
			[]string{"P12", "Perspective — technical"}},
		{"second critique carries the ledger", Progress{Index: 3, Converge: Convergence{Ledger: l}},
			[]string{"iteration 2 of 3", "as the resolver", "C1 [BLOCKING, OPEN] the cache is never invalidated", "start at **C2**"}, nil},
		{"a scaled team pairs perspectives", Progress{Index: 1, Converge: Convergence{Complexity: scaled}},
			[]string{"as the challenger and the devil's advocate"}, nil},
		{"a non-final revise lists the active challenges", Progress{Index: 2, Converge: Convergence{Ledger: l}},
			[]string{"revise [3/7]", "after iteration 1 of 3", "**C1** [BLOCKING, OPEN]", "not** the final revise"},
			[]string{"<promise>PLAN_OK</promise>", "every FAIL"}},
		{"a final revise says the verdict", Progress{Index: 2, FinalNext: true, Converge: Convergence{Ledger: converge.Ledger{Iteration: 1}}},
			[]string{"Final revise — verdict PROCEED", "<promise>PLAN_OK</promise>"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Prompt(cfg, tt.p, "")
			assert.NotContains(t, got, "internal error")
			assert.Contains(t, got, request)
			for _, s := range tt.has {
				assert.Contains(t, got, s)
			}
			for _, s := range tt.hasNot {
				assert.NotContains(t, got, s)
			}
		})
	}
}

func TestConvergeComplexity(t *testing.T) {
	seq, err := Sequence(SequenceOptions{Refine: 3, Converge: true})
	require.NoError(t, err)
	cfg := Config{Phases: seq, CompletionPromise: "PLAN_OK", MaxRetries: 3, Request: request, Converge: true}

	out := Step(cfg, Progress{}, understandEN)
	require.True(t, out.Passed)
	assert.Nil(t, out.Progress.Converge.Complexity, "assessed once explore is known")

	heavy := exploreEN + "\nThe API talks to Stripe and Auth0, stores data in Postgres, must meet GDPR; unclear how retries work; unknown load; TBD owner; assume a queue?"
	p := Progress{Index: 1, Transitions: 1, Converge: Convergence{Understand: understandEN}}
	out = Step(cfg, p, heavy)
	require.True(t, out.Passed)
	c := out.Progress.Converge
	require.NotNil(t, c.Complexity)
	assert.Equal(t, converge.Assess(understandEN, heavy), *c.Complexity)
	assert.Equal(t, converge.Scaled, c.Team())
	assert.Empty(t, c.Understand, "inputs are not returned")

	// Without explore in the sequence, the assessment happens on the way
	// into the first critique, from whatever was recorded.
	cfg.Phases = []string{Understand, Draft, Critique, Revise}
	out = Step(cfg, Progress{Index: 1, Converge: Convergence{Understand: understandEN}}, plan(DefaultSections, ""))
	require.NotNil(t, out.Progress.Converge.Complexity)
	assert.Equal(t, converge.Assess(understandEN, ""), *out.Progress.Converge.Complexity)
	assert.Equal(t, converge.Base, out.Progress.Converge.Team())

	// Outside convergence mode nothing is assessed.
	cfg.Converge = false
	out = Step(cfg, Progress{Index: 1}, plan(DefaultSections, ""))
	assert.Nil(t, out.Progress.Converge.Complexity)
}

func TestConvergeLimitFromSequence(t *testing.T) {
	tests := []struct {
		name   string
		opts   SequenceOptions
		last   int
		errMsg string
	}{
		{"default three cycles", SequenceOptions{Refine: 3, Converge: true}, 3, ""},
		{"fewer cycles end sooner", SequenceOptions{Refine: 1, Converge: true}, 1, ""},
		{"four cycles are refused", SequenceOptions{Refine: 4, Converge: true}, 0, "--refine-iterations: 4 is out of range with --converge (1–3)"},
		{"four are fine without converge", SequenceOptions{Refine: 4}, 3, ""},
		{"explicit phases with one critique", SequenceOptions{Phases: []string{"draft", "critique", "revise"}, Converge: true}, 1, ""},
		{"explicit phases without a critique", SequenceOptions{Phases: []string{"draft", "revise"}, Converge: true}, 0, "--phases: --converge needs 1 to 3 critique phases (got 0)"},
		{"explicit phases with four critiques", SequenceOptions{Phases: strings.Split("critique,critique,critique,critique,revise", ","), Converge: true}, 0, "(got 4)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq, err := Sequence(tt.opts)
			if tt.errMsg != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errMsg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.last, ConvergeLast(Config{Phases: seq}))
		})
	}

	// With one cycle, the only critique is the last iteration.
	cfg := Config{Phases: []string{Draft, Critique, Revise}, CompletionPromise: "OK", MaxRetries: 1, Converge: true}
	out := Step(cfg, Progress{Index: 1}, convCritique(challenge("C1", converge.Blocking, converge.Open, "")))
	assert.Equal(t, Rethink, out.Kind)
	require.NotNil(t, out.Decision)
	assert.Contains(t, out.Decision.Reason, "after 1 iterations")
	assert.Equal(t, 1, out.Progress.Converge.Ledger.Limit)
}

// TestConvergeFinalReviseSkipsCritiques: a FinalRevise decision jumps over
// critiques the sequence still holds, to the next revise (or to iterate).
func TestConvergeFinalReviseSkipsCritiques(t *testing.T) {
	proceed := "Nothing holds up.\n\n### NO CHALLENGES\n" + scoresOK
	tests := []struct {
		name  string
		seq   []string
		index int // of the critique judged
		want  int // Progress.Index afterwards
	}{
		{"to the revise after a second critique", []string{Critique, Critique, Revise}, 0, 2},
		{"to iterate when no revise follows", []string{Draft, Critique, Critique}, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Phases: tt.seq, CompletionPromise: "OK", MaxRetries: 1, Request: request, Converge: true}
			out := Step(cfg, Progress{Index: tt.index}, proceed)
			require.True(t, out.Passed, "%v", out.Problems)
			require.Equal(t, Block, out.Kind)
			assert.Equal(t, tt.want, out.Progress.Index)
			assert.True(t, out.Progress.FinalNext)
			assert.Contains(t, out.Reason, "<promise>OK</promise>")
		})
	}
}

// A revise that gives again the plan the critique judged, with lines naming
// the ids, answers no OPEN challenge (review DC5); a plan changed anywhere,
// or one whose challenges are all settled as UNRESOLVED with a mitigation,
// passes.
func TestConvergeReviseMustChangeThePlan(t *testing.T) {
	cfg := convConfig(t)
	judged := plan(DefaultSections, "")
	open := converge.Ledger{Iteration: 1, Challenges: []converge.Entry{
		{ID: "C1", Claim: "a", Severity: converge.Significant, Status: converge.Open},
		{ID: "C2", Claim: "b", Severity: converge.Minor, Status: converge.Unresolved},
	}}
	at := func(l converge.Ledger) Progress {
		return Progress{Index: 2, Transitions: 2, Converge: Convergence{Ledger: l, Previous: judged}}
	}
	for name, text := range map[string]string{
		"ids after it":   judged + "\nC1 and C2 are addressed.\n",
		"a preamble":     "Revised plan for C1, C2:\n\n" + judged,
		"a changes list": judged + "\n## Changes\n- C1: addressed.\n- C2: handled, see above.\n",
		"re-wrapped":     strings.ReplaceAll(judged, "\n", "  \n") + "C1 C2\n",
		// Ids of two digits, or with a non-breaking hyphen, are ids too
		// (review EB).
		"other spellings of ids": judged + "\nC1, C2, C12 and C‑1 are addressed.\n",
	} {
		out := Step(cfg, at(open), text)
		assert.False(t, out.Passed, name)
		assert.Contains(t, out.Reason, "the plan revised for the active challenges: found 0, need 1", name)
		assert.Empty(t, out.Progress.Converge.Previous, "an input, never returned")
	}
	changed := strings.Replace(judged, "## Risks\n", "## Risks\n- C1: a failover resets the buckets; alert on it.\n", 1) + "C2: noted.\n"
	assert.True(t, Step(cfg, at(open), changed).Passed, "a changed plan")
	rebuttal := judged + "\nC1: the premise is wrong: each replica keeps its own bucket, so a failover resets none.\nC2: noted.\n"
	assert.True(t, Step(cfg, at(open), rebuttal).Passed, "the plan kept, with a reason")
	settled := open
	settled.Challenges = []converge.Entry{{ID: "C1", Claim: "a", Severity: converge.Significant, Status: converge.Unresolved, Mitigation: "alert"}}
	assert.True(t, Step(cfg, at(settled), judged+"\nC1: the alert is in the risks.\n").Passed, "only UNRESOLVED with a mitigation")
	// Review EB (mutants that survived): only an OPEN challenge asks for a
	// change, an UNRESOLVED one alone does not, even for a bare claim; and
	// a plan with a line taken out is a changed plan.
	assert.True(t, Step(cfg, at(settled), judged+"\nC1 is addressed.\n").Passed, "only UNRESOLVED, a bare claim")
	onlyOpen := open
	onlyOpen.Challenges = []converge.Entry{{ID: "C1", Claim: "a", Severity: converge.Significant, Status: converge.Open}}
	assert.False(t, Step(cfg, at(onlyOpen), judged+"\nC1 is addressed.\n").Passed, "only OPEN, a near-copy")
	kept := strings.Split(strings.TrimRight(judged, "\n"), "\n")
	cut := strings.Join(kept[:len(kept)-1], "\n") + "\n" // its last line
	require.NotEqual(t, judged, cut)
	assert.True(t, Step(cfg, at(open), cut+"\nC1 and C2 are addressed.\n").Passed, "a line taken out")
}
