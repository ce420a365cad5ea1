package gate_test

import (
	"fmt"

	"github.com/plansmith/plansmith/gate"
)

// The gap-coverage gate over one plan: Begin asks for the critic and the
// validator (ActionRun, with the files to write); Assess reads their
// outputs. Here the critic finds a high-severity problem that no gap
// documents, so the first assessment sends the plan back to revise.
func ExampleAssess() {
	plan := "# Plan\n\n## Goal\nShip CSV export.\n\n## Steps\n1. Add the endpoint.\n\n" +
		gate.GapsStart + "\n" +
		"### GAP-1: Large exports\n- **Severity**: medium\n- **Description**: Memory over 100k rows is not measured.\n" +
		gate.GapsEnd + "\n"
	cfg := gate.Config{Dir: "/proj/.claude/plansmith/gate", MaxAttempts: 2}

	begun := gate.Begin(plan, gate.Session{}, cfg)
	fmt.Println(begun.Action, begun.Session.Status)

	reply := "<" + gate.CriticTag + ">\n### FINDING-1: No rollback\n- **Severity**: high\n- **Description**: The migration cannot be undone.\n</" + gate.CriticTag + ">\n" +
		"<" + gate.ValidatorTag + ">\n### VERDICT: FAIL\n**Reason**: FINDING-1 has no matching gap.\n</" + gate.ValidatorTag + ">"
	step := gate.Assess(begun.Plan, reply, begun.Session, cfg)
	fmt.Println(step.Action, step.Session.Status, step.Session.Attempts, step.Session.Uncovered[0].Label())
	// Output:
	// run awaiting
	// revise revising 1 FINDING-1
}
