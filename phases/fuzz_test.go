package phases

import (
	"strings"
	"testing"

	"github.com/plansmith/plansmith/converge"
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

// FuzzConvergeStep: convergence mode never panics, never runs a critique
// past the last iteration, and changes the ledger only on a passed critique.
func FuzzConvergeStep(f *testing.F) {
	for _, s := range []string{
		"", "### NO CHALLENGES\n" + scoresOK, convCritique(challenge("C1", "BLOCKING", "OPEN", "")),
		convCritique(statusOnly("C1", "RESOLVED")), convCritique(challenge("C2", "MINOR", "DEFERRED", "x")),
		"### C1:\n- **Severity**: \n### Scores\n- Risk coverage: 11/10", "### C999999999: x\n```\n### C1: y\n", "C1 C2 ## Goal",
	} {
		for _, idx := range []int{1, 2, 5, 7} {
			f.Add(s, idx, 1)
		}
	}
	f.Fuzz(func(t *testing.T, msg string, idx, iteration int) {
		seq := []string{Draft, Critique, Revise, Critique, Revise, Critique, Revise}
		cfg := Config{Phases: seq, CompletionPromise: "PLAN_OK", MaxRetries: 2, Request: "r", Converge: true}
		l := converge.Ledger{Iteration: iteration % 5, Challenges: []converge.Entry{
			{ID: "C1", Claim: "c", Severity: converge.Blocking, Status: converge.Open, History: []converge.Mark{{Iteration: 1, Status: converge.Open}}},
		}}
		p := Progress{Index: idx % 9, FinalNext: iteration%2 == 0, Converge: Convergence{Ledger: l, Previous: msg[:len(msg)/2]}}
		out := Step(cfg, p, msg)
		if out.Passed != (len(out.Problems) == 0) {
			t.Fatalf("passed=%v with problems %v", out.Passed, out.Problems)
		}
		if out.Progress.Converge.Previous != "" {
			t.Fatalf("the previous plan, an input, was returned")
		}
		got := out.Progress.Converge.Ledger
		if !out.Passed || PhaseAt(cfg, p.Index) != Critique {
			if got.Iteration != l.Iteration || len(got.Challenges) != len(l.Challenges) {
				t.Fatalf("ledger changed without an accepted critique: %+v", got)
			}
			return
		}
		if got.Iteration > converge.MaxIterations {
			t.Fatalf("critique iteration %d accepted", got.Iteration)
		}
		if out.Decision == nil {
			t.Fatal("an accepted critique without a decision")
		}
		if got.Iteration == ConvergeLast(cfg) && out.Decision.Next == converge.Continue {
			t.Fatal("the last iteration continued")
		}
	})
}
