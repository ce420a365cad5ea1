package phases

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plansmith/plansmith/converge"
)

// mib builds a ~1 MiB answer from unit, repeated.
func mib(unit string) string {
	return strings.Repeat(unit, (1<<20)/len(unit)+1)[:1<<20]
}

// BenchmarkStep1MiB runs a 1 MiB message through each phase; the critique
// (line scan, principle parsing, promise search) and the final revise
// (heading scan against every section) are the heaviest.
func BenchmarkStep1MiB(b *testing.B) {
	seq := []string{Understand, Explore, Alternatives, Draft, Critique, Revise, Critique, Revise}
	cfg := Config{Phases: seq, CompletionPromise: "PLAN_OK", MaxRetries: 3, Request: "r"}
	cases := []struct {
		name  string
		index int
		msg   string
	}{
		{"understand", 0, mib("1. The problem and its constraint: the state file is shared, ünïcode ok.\n")},
		{"explore", 1, mib("Read and/or write input/output; nothing here is a file at all, 1.2.3.\n")},
		{"critique", 4, mib("3. P4 (Error paths): FAIL — missing timeout for the lock in the hook path\n")},
		{"final-revise", 7, mib("## Goal step\nSome text about the plan, with **bold** and `code`.\n")},
		{"final-revise-korean", 7, mib("### 단계 계획 초안\n계획에 대한 설명과 검증 방법.\n")},
		// Headings only, each naming sections: the phase-collapse check
		// before the draft matches every heading against every name
		// (review AU7: 0.4 s per MiB).
		{"understand-headings", 0, mib("## Goals and Non-Goals and Scope and Risks 1\n")},
		{"explore-headings", 1, mib("## Section 12\n")},
		// Every section present and hollow, so the content check walks
		// every section (review CP3); bold labels over deeper headings.
		{"final-revise-hollow", 7, mib("## Goal\n## Scope\n## Non-Scope\n## Steps\n## Verification\n## Risks\n## Open Questions\nTBD\n")},
		{"final-revise-hollow-labels", 7, "## Open Questions\n" + mib("**Goal**\n###### -\n**Steps**\n###### …\n")},
		// One heading naming a section over and over (review AV5: 25 s).
		{"one-long-heading", 1, "## " + mib("goal ")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.msg)))
			b.ReportAllocs()
			for b.Loop() {
				Step(cfg, Progress{Index: c.index}, c.msg)
			}
		})
	}
}

// BenchmarkConverge1MiB runs 1 MiB answers through convergence mode: a
// critique of challenge blocks (taken into a ledger of eight active
// challenges, so the guards and the rejection run too), a critique that
// is one huge valid block, and a revise checked for every active id.
func BenchmarkConverge1MiB(b *testing.B) {
	seq := []string{Understand, Explore, Alternatives, Draft, Critique, Revise, Critique, Revise, Critique, Revise}
	cfg := Config{Phases: seq, CompletionPromise: "PLAN_OK", MaxRetries: 3, Request: "r", Converge: true}
	var l converge.Ledger
	for i := 1; i <= converge.MaxActive; i++ {
		l.Challenges = append(l.Challenges, converge.Entry{ID: fmt.Sprintf("C%d", i), Claim: "c", Severity: converge.Significant, Status: converge.Open})
	}
	l.Iteration = 1
	block := "### C9: another concern\n- **Severity**: MINOR\n- **Status**: OPEN\n- **Concern**: text\n- **Failure scenario**: text\n\n"
	one := "### C1: one concern\n- **Severity**: SIGNIFICANT\n- **Status**: UNRESOLVED\n- **Mitigation**: m\n- **Concern**: " +
		mib("a long concern line with words, `code` and C12 ids. ") + "\n" + scoresOK
	cases := []struct {
		name  string
		index int
		msg   string
	}{
		{"critique-many-blocks", 6, mib(block)},
		{"critique-one-block", 6, one},
		{"revise", 7, mib("## Steps\nC1 C2 C3 C4 C5 C6 C7 text about the plan.\n")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.msg)))
			b.ReportAllocs()
			for b.Loop() {
				Step(cfg, Progress{Index: c.index, Converge: Convergence{Ledger: l}}, c.msg)
			}
		})
	}
}
