package phases

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/plansmith/plansmith/converge"
)

// Code blocks follow CommonMark: the prefix check this replaced let three
// backticks close a block opened with four, and took an indented "```"
// (indented code, not a fence) for a fence that hid the rest of the answer.
func TestScanFollowsCommonMarkFences(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		headings []string
		numbered int
	}{
		{name: "a four-backtick block shows a three-backtick example",
			text:     "````md\n```\n## Goal\n1. x\n```\n````\n## Notes\n",
			headings: []string{"Notes"}},
		{name: "tildes are not closed by backticks",
			text:     "~~~\n```\n# Steps\n~~~\n# Findings\n",
			headings: []string{"Findings"}},
		{name: "an indented fence is indented code, not a fence",
			text:     "    ```\n## Findings\n1. one\n2. two\n",
			headings: []string{"Findings"}, numbered: 2},
		{name: "a fence with info text does not close a block",
			text:     "```\n``` go\n## Goal\n```\n## Findings\n",
			headings: []string{"Findings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := scan(tt.text)
			assert.Equal(t, tt.headings, sh.headings)
			assert.Equal(t, tt.numbered, sh.numbered)
		})
	}
}

// Through the validator: a plan heading quoted in a four-backtick block is
// not a plan heading in an explore answer.
func TestExploreQuotingAPlanInALongFence(t *testing.T) {
	msg := exploreEN + "\n\nThe old README shows:\n````md\n## Steps\n```\n## Goal\n````\n"
	assert.Empty(t, Validate(Config{Phases: Known}, Progress{Index: 1}, msg))
}

// The explore check and the convergence complexity score read file
// references the same way: one list of extensions and names.
func TestExploreAndComplexityCountTheSameFiles(t *testing.T) {
	text := "Read cmd/app/main.go:12, `pkg/core`, Gemfile, flake.nix, main.scala and ./run; and/or https://x.io/a/b.go."
	assert.Equal(t, 6, countFileRefs(text, 0))
	assert.Equal(t, countFileRefs(text, 0), converge.Assess("", text).Files)
}

func TestOptionShapes(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"bold letters", "**A.** Redis cache\n\n**B.** In-process LRU\n", 2},
		{"heading letters", "### A. Redis\ntext\n### B) LRU\n", 2},
		{"one lettered line is one option", "A. Smith wrote it.\nAnother line.", 1},
		{"table columns", "| | Redis | LRU | None |\n|---|---|---|---|\n| Cost | high | low | nil |\n", 3},
		{"table rows of options", "| Option | Pros | Cons |\n|---|---|---|\n| A | x | y |\n| B | x | y |\n", 2},
		{"a two-column table is not a comparison", "| Key | Value |\n|---|---|\n| a | b |\n", 0},
		{"not a table without a delimiter row", "| a | b | c |\n| d | e | f |\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := scan(tt.text)
			assert.Equal(t, tt.want, max(len(sh.options), sh.tableOptions))
		})
	}
}
