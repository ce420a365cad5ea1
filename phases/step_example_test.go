package phases_test

import (
	"fmt"

	"github.com/plansmith/plansmith/phases"
)

// One Stop of a loop: Step judges the answer for the current phase and
// says what comes next. A thin answer is sent back with what it lacks; a
// passing one moves the loop to the next phase.
func ExampleStep() {
	cfg := phases.Config{
		Phases:            []string{phases.Understand, phases.Draft, phases.Revise},
		RequiredSections:  []string{"Goal", "Steps"},
		CompletionPromise: "PLAN_OK",
		MaxRetries:        2,
		Request:           "Add rate limiting to the public API",
	}
	var p phases.Progress // the first phase, no retries yet

	oc := phases.Step(cfg, p, "Sounds good, let's build it.")
	fmt.Println(oc.Kind, oc.Progress.Retries, phases.Label(cfg, oc.Progress))
	for _, pr := range oc.Problems {
		fmt.Println("-", pr.Check)
	}

	oc = phases.Step(cfg, oc.Progress, "1. The problem: clients can flood the API.\n"+
		"2. Constraint: limits per API key, not per IP.\n"+
		"3. Success criteria: excess requests get 429 with Retry-After.")
	fmt.Println(oc.Kind, oc.Passed, phases.Label(cfg, oc.Progress))
	// Output:
	// block 1 understand [1/3]
	// - numbered items
	// - problem-analysis keywords
	// block true draft [2/3]
}
