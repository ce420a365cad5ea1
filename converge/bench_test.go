package converge

import (
	"strings"
	"testing"
)

func BenchmarkApply(b *testing.B) {
	l := sampleLedger()
	in := critique(update("C2", Resolved), update("C3", Deferred), block("C5", "new", Minor, Open, "")) + strings.Repeat("Some prose about the plan.\n", 200) + scoresList
	for b.Loop() {
		Apply(l, in)
	}
}

func BenchmarkAssess1MiB(b *testing.B) {
	text := strings.Repeat("1. Update pkg/handler.go to call the Stripe API; the retry policy is unclear?\n", 1<<20/80)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Assess(text, text)
	}
}
