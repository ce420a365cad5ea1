package phases

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutcomeMissing(t *testing.T) {
	cfg := Config{Phases: []string{Draft}, RequiredSections: []string{"Goal", "Scope", "Steps", "Risks"}, MaxRetries: 3}
	none := Step(cfg, Progress{}, "Not an analysis at all.")
	two := Step(cfg, Progress{}, "## Goal\n\nFast pages.\n\n## Steps\n\n1. Cache.\n")
	all := Step(cfg, Progress{}, "## Goal\n\nFast pages.\n\n## Scope\n\nThe API.\n\n## Steps\n\n1. Cache.\n\n## Risks\n\nStale reads.\n")
	assert.False(t, none.Passed)
	assert.Equal(t, 0, all.Missing(), "a passing answer misses nothing: %v", all.Problems)
	assert.Greater(t, none.Missing(), two.Missing(), "four sections missing rank below two: %v / %v", none.Problems, two.Problems)
	assert.Greater(t, two.Missing(), 0)

	assert.Equal(t, 6, Outcome{Problems: []Problem{
		{Check: "numbered items", Found: 1, Need: 3},       // 2
		{Check: "plan headings", Found: 2, Negative: true}, // 2
		{Check: "promise", Found: 0, Need: 0},              // at least 1
		{Text: "C3 is missing a failure scenario"},         // 1
	}}.Missing())
}
