package phases

import (
	"strings"
	"testing"

	"github.com/plansmith/plansmith/principles"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const request = "Add a --json flag to `status` — keep 'quotes' & ünïcode"

func defaultConfig(t *testing.T) Config {
	seq, err := Sequence(SequenceOptions{Refine: DefaultRefine})
	require.NoError(t, err)
	return Config{Phases: seq, CompletionPromise: "PLAN_OK", MaxRetries: 3, Request: request}
}

// good returns an answer that passes phase at index in cfg.
func good(cfg Config, index int) string {
	switch PhaseAt(cfg, index) {
	case Understand:
		return understandEN
	case Explore:
		return exploreEN
	case Alternatives:
		return altEN
	case Draft:
		return plan(DefaultSections, "")
	case Critique:
		return critiquePrinciples
	}
	if IsFinalRevise(cfg, index) {
		return plan(DefaultSections, "PLAN_OK")
	}
	return plan(DefaultSections, "")
}

func TestStepWalksTheWholeSequence(t *testing.T) {
	cfg := defaultConfig(t)
	p := Progress{}
	for i := range cfg.Phases {
		out := Step(cfg, p, good(cfg, i))
		require.True(t, out.Passed, "phase %s: %v", cfg.Phases[i], out.Problems)
		if i == len(cfg.Phases)-1 {
			assert.Equal(t, Finalize, out.Kind)
			assert.Equal(t, strings.TrimSpace(plan(DefaultSections, "")), out.Plan)
			assert.NotContains(t, out.Plan, "promise")
			assert.Equal(t, len(cfg.Phases), out.Progress.Transitions)
			return
		}
		require.Equal(t, Block, out.Kind)
		assert.Equal(t, Progress{Index: i + 1, Transitions: i + 1}, out.Progress)
		assert.Contains(t, out.Reason, Label(cfg, p)+" passed")
		assert.Contains(t, out.Reason, Label(cfg, out.Progress))
		assert.Contains(t, out.Reason, request, "every block repeats the request")
		p = out.Progress
	}
}

func TestStepRetryThenExhausted(t *testing.T) {
	cfg := defaultConfig(t)
	p := Progress{Index: 0, Transitions: 0}
	for attempt := 1; attempt <= cfg.MaxRetries; attempt++ {
		out := Step(cfg, p, "1. only one")
		require.Equal(t, Block, out.Kind)
		assert.False(t, out.Passed)
		assert.Equal(t, attempt, out.Progress.Retries)
		assert.Equal(t, 0, out.Progress.Index)
		assert.Contains(t, out.Reason, "understand [1/8]")
		assert.Contains(t, out.Reason, "numbered items: found 1, need 3")
		assert.Contains(t, out.Reason, "problem-analysis keywords: found 0, need 2")
		assert.Contains(t, out.Reason, "Answer the understand phase again")
		assert.Contains(t, out.Reason, request)
		p = out.Progress
	}
	out := Step(cfg, p, "1. only one")
	assert.Equal(t, Exhausted, out.Kind)
	assert.Equal(t, cfg.MaxRetries+1, out.Progress.Retries)
	assert.Equal(t, problemLines(Validate(cfg, p, "1. only one")), problemLines(out.Problems), "the caller reports the last problems")
	assert.Empty(t, out.Reason, "the caller words the end of a loop")
	assert.Equal(t, "1. only one", out.Output.Text, "the caller can save the last text")
}

func TestStepPassResetsRetries(t *testing.T) {
	cfg := defaultConfig(t)
	out := Step(cfg, Progress{Index: 0, Retries: 2, Transitions: 0}, understandEN)
	assert.Equal(t, Progress{Index: 1, Retries: 0, Transitions: 1}, out.Progress)
}

func TestStepZeroRetriesExhaustsAtOnce(t *testing.T) {
	cfg := defaultConfig(t)
	cfg.MaxRetries = 0
	assert.Equal(t, Exhausted, Step(cfg, Progress{}, "nothing").Kind)
}

func TestStepMaxPhases(t *testing.T) {
	cfg := defaultConfig(t)
	cfg.MaxPhases = 3
	out := Step(cfg, Progress{Index: 2, Transitions: 2}, altEN)
	assert.Equal(t, MaxPhases, out.Kind)
	assert.True(t, out.Passed)
	assert.Equal(t, 3, out.Progress.Transitions)
	assert.Empty(t, out.Reason, "the caller words the end of a loop")

	out = Step(cfg, Progress{Index: 1, Transitions: 1}, exploreEN)
	assert.Equal(t, Block, out.Kind, "below the budget the loop goes on")

	cfg.MaxPhases = 8
	out = Step(cfg, Progress{Index: 7, Transitions: 7}, good(cfg, 7))
	assert.Equal(t, Finalize, out.Kind, "a final revise that reaches the budget still finalizes")
}

func TestStepIterate(t *testing.T) {
	cfg := Config{Phases: []string{Draft}, CompletionPromise: "OK", MaxRetries: 2, Request: request}
	out := Step(cfg, Progress{}, plan(DefaultSections, ""))
	require.Equal(t, Block, out.Kind)
	assert.Equal(t, 1, out.Progress.Index)
	assert.Contains(t, out.Reason, "iterate [1/1+]")
	assert.Contains(t, out.Reason, "<promise>OK</promise>")

	out = Step(cfg, out.Progress, plan(DefaultSections, ""))
	assert.Equal(t, Block, out.Kind)
	assert.Equal(t, 1, out.Progress.Retries)
	assert.Contains(t, out.Reason, "completion promise: found 0, need 1")

	out = Step(cfg, out.Progress, plan(DefaultSections, "OK"))
	assert.Equal(t, Finalize, out.Kind)
	assert.Equal(t, Iterate, out.Output.Phase)
}

func TestStepNonFinalReviseWithPromise(t *testing.T) {
	cfg := defaultConfig(t)
	out := Step(cfg, Progress{Index: 5, Transitions: 5}, plan(DefaultSections, "PLAN_OK"))
	assert.Equal(t, Block, out.Kind)
	assert.False(t, out.Passed)
	assert.Contains(t, out.Reason, "revise [6/8]")
	assert.Contains(t, out.Reason, "<promise> tags: found 1, must be 0")
	assert.Contains(t, out.Reason, "not** the final revise")
}

func TestStepCritiqueOutputAndPerspective(t *testing.T) {
	cfg := Config{Phases: []string{Critique, Revise, Critique, Revise, Critique, Revise}, CompletionPromise: "OK", MaxRetries: 1, Request: request}
	perspectives := []string{"Perspective — technical", "Perspective — users and maintainers", "Perspective — devil's advocate"}
	for round, idx := range []int{0, 2, 4} {
		prompt := Prompt(cfg, Progress{Index: idx}, "")
		assert.Contains(t, prompt, perspectives[round])
		assert.Contains(t, prompt, "P12 Assumption surfacing")
		out := Step(cfg, Progress{Index: idx}, critiquePrinciples)
		require.True(t, out.Passed)
		assert.Equal(t, round+1, out.Output.Round)
		assert.Equal(t, Critique, out.Output.Phase)
		assert.Equal(t, critiquePrinciples, out.Output.Text)
		require.Len(t, out.Output.Verdicts, 7)
		assert.Equal(t, principles.Verdict{ID: 4, Result: principles.Fail, Note: "unreadable state file not handled"}, out.Output.Verdicts[3])
	}
	open := cfg
	open.OpenCritique = true
	p := Prompt(open, Progress{}, "")
	assert.NotContains(t, p, "P12")
	assert.Contains(t, p, "numbered list of at least 3 concrete findings")
	out := Step(open, Progress{}, critiqueOpen)
	assert.True(t, out.Passed)
	assert.Nil(t, out.Output.Verdicts)
}

func TestPrompt(t *testing.T) {
	cfg := defaultConfig(t)
	tests := []struct {
		name   string
		cfg    func(*Config)
		index  int
		note   string
		has    []string
		hasNot []string
	}{
		{"understand", nil, 0, "", []string{"understand [1/8]", "numbered list", "success criteria", request}, []string{"rodin:gaps"}},
		{"explore with memory", func(c *Config) { c.Memory = "- P4 FAIL: forgot timeouts" }, 1, "", []string{"explore [2/8]", "read-only", "forgot timeouts"}, nil},
		{"explore without memory", nil, 1, "", nil, []string{"Lessons from earlier"}},
		{"alternatives", nil, 2, "", []string{"Option A", "trade-offs", "Recommendation"}, nil},
		{"draft lists sections, gate off", nil, 3, "", []string{"- Non-Scope", "least to most"}, []string{"rodin:gaps:start"}},
		{"draft with gate", func(c *Config) { c.Gate = true }, 3, "", []string{"<!-- rodin:gaps:start -->", "### GAP-1:", "- **Severity**: high|medium|low", "<!-- rodin:gaps:end -->"}, nil},
		{"understand with gate has no gaps block", func(c *Config) { c.Gate = true }, 0, "", nil, []string{"rodin:gaps"}},
		{"non-final revise", nil, 5, "", []string{"not** the final revise"}, []string{"<promise>PLAN_OK</promise>"}},
		{"final revise", nil, 7, "", []string{"final revise", "<promise>PLAN_OK</promise>", "answer the critique you just wrote", "every FAIL"}, nil},
		// Review AW4: a revise with no critique before it is not told to
		// answer one.
		{"revise with no critique or plan before it", func(c *Config) { c.Phases = []string{Understand, Explore, Revise} }, 2, "",
			[]string{"Write the plan", "Give the complete plan"}, []string{"critique", "FAIL", "revised plan"}},
		{"revise after a draft, no critique", func(c *Config) { c.Phases = []string{Draft, Revise} }, 1, "",
			[]string{"Rewrite the plan into its final form", "complete revised plan"}, []string{"critique you just wrote", "every FAIL"}},
		{"note is prominent", nil, 7, "Uncovered: FINDING-2 (high) no rollback", []string{"Read this first", "FINDING-2"}, nil},
		{"draft names the korean heading", nil, 3, "", []string{"`## Goal`; Korean names such as `## 목표` count too"}, nil},
		{"custom sections", func(c *Config) { c.RequiredSections = []string{"Context", "Plan"} }, 3, "", []string{"- Context", "- Plan", "## Context"}, []string{"- Goal", "Korean"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			if tt.cfg != nil {
				tt.cfg(&c)
			}
			got := Prompt(c, Progress{Index: tt.index}, tt.note)
			assert.NotContains(t, got, "internal error")
			assert.Contains(t, got, request)
			for _, s := range tt.has {
				assert.Contains(t, got, s)
			}
			for _, s := range tt.hasNot {
				assert.NotContains(t, got, s)
			}
			if tt.note != "" {
				assert.Less(t, strings.Index(got, tt.note), strings.Index(got, "**Phase:"), "the note comes before the instructions")
			}
		})
	}
}

func TestStepOddProgressDoesNotPanic(t *testing.T) {
	cfg := defaultConfig(t)
	for _, p := range []Progress{{Index: -5}, {Index: 99}, {Retries: -3}, {Transitions: -1}} {
		assert.NotPanics(t, func() { Step(cfg, p, "x") })
		assert.NotPanics(t, func() { Prompt(cfg, p, "") })
	}
	assert.NotPanics(t, func() { Step(Config{}, Progress{}, "") })
	assert.NotPanics(t, func() { Step(Config{}, Progress{Index: -1}, "x") }, "an empty sequence with a negative index")
	assert.NotPanics(t, func() { Prompt(Config{}, Progress{Index: -1}, "") })
	out := Step(Config{Phases: []string{"bogus"}, MaxRetries: 1}, Progress{}, "x")
	assert.Contains(t, out.Reason, `phase "bogus"`)
}
