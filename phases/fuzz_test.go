package phases

import (
	"strings"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		"", understandEN, understandKO, exploreEN, altEN, altOptions, altKO, critiquePrinciples, critiqueOpen,
		plan(DefaultSections, "PLAN_OK"), plan(sectionsKO, ""), "```\n# Steps\n", "**", "**Goal", "__x__:", "#",
		"<promise>", "<promise></promise><promise>", "1.", "1) ", "Option", "Option A", "방안", "a/b/c://", "`",
		"\xff\xfe## \xffGoal", "## İ", strings.Repeat("#", 10) + " Steps",
	} {
		for _, idx := range []int{0, 1, 2, 3, 4, 7, 8} {
			f.Add(s, idx, false)
		}
	}
}

// FuzzStep: Step never panics, and its outcome is consistent.
func FuzzStep(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, msg string, idx int, open bool) {
		seq := []string{Understand, Explore, Alternatives, Draft, Critique, Revise, Critique, Revise}
		cfg := Config{Phases: seq, CompletionPromise: "PLAN_OK", MaxRetries: 2, OpenCritique: open, Gate: idx%2 == 0, Request: "r"}
		out := Step(cfg, Progress{Index: idx % 12}, msg)
		if out.Passed != (len(out.Problems) == 0) {
			t.Fatalf("passed=%v with problems %v", out.Passed, out.Problems)
		}
		if out.Kind == Block && out.Reason == "" {
			t.Fatal("block without a reason")
		}
		if out.Kind == Finalize && strings.Contains(strings.ToLower(out.Plan), "</promise>") {
			t.Fatal("plan keeps a promise tag")
		}
	})
}

// FuzzValidate: every validator is safe on arbitrary text.
func FuzzValidate(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, msg string, idx int, open bool) {
		cfg := Config{Phases: Known, CompletionPromise: "PLAN_OK", OpenCritique: open, RequiredSections: []string{"Goal", "범위", msg}}
		for _, p := range Validate(cfg, Progress{Index: idx % 8}, msg) {
			if !p.Negative && p.Found >= p.Need {
				t.Fatalf("positive problem already satisfied: %v", p)
			}
			_ = p.String()
		}
	})
}
