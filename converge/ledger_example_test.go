package converge_test

import (
	"fmt"

	"github.com/plansmith/plansmith/converge"
)

// Two critique iterations through the challenge ledger: the first raises
// a BLOCKING challenge, so the loop continues; the second resolves it, and
// with nothing serious left the next revise is the final one.
func ExampleApply() {
	var l converge.Ledger // before the first critique
	first := "### C1: The cache is never invalidated\n" +
		"- **Severity**: BLOCKING\n- **Status**: OPEN\n" +
		"- **Concern**: stale prices after an update\n" +
		"- **Failure scenario**: a customer pays yesterday's price\n"
	l, r := converge.Apply(l, first)
	d := converge.Decide(l)
	fmt.Println(r.Accepted, r.New, l.Active(), d.Next)

	l, r = converge.Apply(l, "### C1: same claim\n- **Status**: RESOLVED\n- **Evidence**: the plan's step 2 now holds the lock with a TTL\n")
	d = converge.Decide(l)
	fmt.Println(r.Accepted, r.Resolved, l.Active(), d.Verdict, d.Next)
	// Output:
	// true 1 [C1] continue
	// true 1 [] PROCEED final_revise
}
