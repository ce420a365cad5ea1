package converge

import (
	"fmt"
	"strings"
)

// block writes a complete challenge block; mitigation may be empty.
func block(id, claim string, sev Severity, st Status, mitigation string) string {
	s := fmt.Sprintf("### %s: %s\n- **Severity**: %s\n- **Status**: %s\n- **Concern**: concern of %s\n- **Failure scenario**: failure of %s\n",
		id, claim, sev, st, id, id)
	if mitigation != "" {
		s += "- **Mitigation**: " + mitigation + "\n"
	}
	return s
}

// update writes a block that only changes the status of an existing id.
// update is a block that changes only a challenge's status, with the
// evidence RESOLVED and WITHDRAWN need.
func update(id string, st Status) string {
	s := fmt.Sprintf("### %s: same claim\n- **Status**: %s\n", id, st)
	if st == Resolved || st == Withdrawn {
		s += "- **Evidence**: evidence about " + id + " in limiter.go:40\n"
	}
	return s
}

func critique(blocks ...string) string {
	return "Review of the plan.\n\n" + strings.Join(blocks, "\n")
}

// mustApply applies critiques in order, failing loudly on a rejection.
func mustApply(critiques ...string) Ledger {
	var l Ledger
	for i, c := range critiques {
		var r Report
		l, r = Apply(l, c)
		if !r.Accepted {
			panic(fmt.Sprintf("critique %d rejected: %v", i+1, r.Problems))
		}
	}
	return l
}
