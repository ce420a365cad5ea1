package gate

import (
	"strings"
	"testing"
	"time"
)

// bigPlan is a plan of about 1 MiB (the Stop hook's size target) with some
// hedging, fences and a gaps block.
func bigPlan() string {
	var b strings.Builder
	for b.Len() < 1<<20 {
		b.WriteString("## Step\n1. Add the endpoint and stream rows to the client; this is unclear.\n```go\n// TODO: hopefully\n```\n\n")
	}
	b.WriteString(GapsStart + "\n" + oneGap + GapsEnd + "\n")
	return b.String()
}

func BenchmarkLeakage1MiB(b *testing.B) {
	plan := bigPlan()
	b.SetBytes(int64(len(plan)))
	for b.Loop() {
		Leakage(plan)
	}
}

func BenchmarkBegin1MiB(b *testing.B) {
	plan := bigPlan()
	b.SetBytes(int64(len(plan)))
	for b.Loop() {
		Begin(plan, Session{}, cfg)
	}
}

func BenchmarkMaintainAndCheckExit1MiB(b *testing.B) {
	plan := bigPlan()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.SetBytes(int64(len(plan)))
	for b.Loop() {
		out, _ := Maintain(plan, "s", now)
		CheckExit(out, "s")
	}
}

// BenchmarkParseFindingsLongDescription parses a critic output of one
// finding whose description wraps over 5 MB of short lines (review BF1:
// each line was added to the whole so far, the square of its length).
func BenchmarkParseFindingsLongDescription(b *testing.B) {
	text := "### FINDING-1: Long\n- **Severity**: low\n- **Description**: starts here\n" + strings.Repeat("and goes on over many lines\n", 5<<20/28)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := ParseFindings(text); err != nil {
			b.Fatal(err)
		}
	}
}
