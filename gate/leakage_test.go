package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPhrasesFile(t *testing.T) {
	p := Phrases()
	require.NotEmpty(t, p)
	for _, want := range []string{"unclear", "not sure", "might fail", "need to investigate", "todo", "tbd", "to be determined", "risk of", "potential issue", "may not work", "assuming", "if this works", "hopefully", "불확실"} {
		assert.Contains(t, p, want)
	}
	for _, phrase := range p {
		assert.False(t, strings.HasPrefix(phrase, "#"), "comment kept as phrase: %q", phrase)
		assert.Equal(t, strings.ToLower(phrase), phrase)
	}
}

func TestParsePhrases(t *testing.T) {
	assert.Equal(t, []string{"not sure", "tbd"}, ParsePhrases("# c\n\n  Not   Sure \nTBD\ntbd\n"))
}

func TestLeakage(t *testing.T) {
	tests := []struct {
		name string
		plan string
		want []Hit
	}{
		{"case-insensitive, one hit per phrase per line", "Steps\nThis is Unclear and unclear.\n", []Hit{{"unclear", 2, "This is Unclear and unclear."}}},
		{"word boundaries", "untested? no: tested. todos, mistodo, assumingly\n", []Hit{{"untested", 1, "untested? no: tested. todos, mistodo, assumingly"}}},
		{"punctuation is a boundary", "- TODO: wire it (TBD).\n", []Hit{{"todo", 1, "- TODO: wire it (TBD)."}, {"tbd", 1, "- TODO: wire it (TBD)."}}},
		{"phrase across extra spaces is not matched", "not  sure\n", nil},
		{"gaps block is skipped", block("### GAP-1: Unclear rollback\n- **Severity**: high\n- **Description**: might fail\n"), nil},
		{"fenced code is skipped", "```go\n// TODO: hopefully\n```\n~~~\nTBD\n~~~\n", nil},
		{"inline code is skipped", "Run `grep TODO` first.\n", nil},
		{"rodin comments are skipped", "<!-- rodin:validation={\"status\":\"pending\",\"reason\":\"unclear\"} -->\n", nil},
		{"korean attaches particles", "배포 순서가 불확실하다.\n", []Hit{{"불확실", 1, "배포 순서가 불확실하다."}}},
		{"a feature named Todo is not a hedge", "Add due dates to the Todo app and its todo list.\n", nil},
		{"identifiers and paths are not hedges", "Serve /api/v2/todo-labels and update TODO.md and todo_items.\n", nil},
		{"a quoted string is not a hedge", "The linter flags the string \"TODO: later\" and “might fail”.\n", nil},
		{"status values are not hedges", "**Phase status**: TODO\n| 1 | 3 | TODO |\n", nil},
		{"the annotation counts with or without a colon", "TODO pick a queue\nFIXME: the lock\n", []Hit{{"todo", 1, "TODO pick a queue"}, {"fixme", 2, "FIXME: the lock"}}},
		{"headings are titles", "## Unclear ownership, to be decided\n**Probably not**\n", nil},
		{"documented uncertainty is not leakage", "## Risks\n- the migration might fail on old rows\n\n| Risk | Likelihood |\n|---|---|\n| probably slow | low |\n### Mitigation\n- hopefully none\n## Steps\n1. hopefully fast\n",
			[]Hit{{"hopefully", 10, "1. hopefully fast"}}},
		{"a documenting heading with U+2011 (review CP6)", "## Non\u2011Goals\n- multi-tenant support, hopefully later\n## Trade\u2011offs\n- probably slower\n", nil},
		{"korean documented sections", "## 오픈 질문\n- 보관 기간 미정\n## 단계\n- 형식은 추후 결정\n", []Hit{{"추후", 4, "- 형식은 추후 결정"}}},
		{"hedges the list missed", "We may need a cache; the numbers are not yet validated.\n", []Hit{{"may need", 1, "We may need a cache; the numbers are not yet validated."}, {"not yet validated", 1, "We may need a cache; the numbers are not yet validated."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Leakage(tt.plan))
		})
	}
}

const leakyBody = "# Plan\n\n## Steps\n1. Migrate; this might fail on old rows.\n2. Hopefully the cache warms up.\n3. TODO: pick a queue.\n4. Hopefully again.\n"

func TestMergeLeakage(t *testing.T) {
	existing := "### GAP-2: Old\n- **Severity**: low\n- **Description**: kept as is\n"
	tests := []struct {
		name    string
		plan    string
		wantIDs []int
		want    string // the plan expected back; "" means unchanged
	}{
		{
			name: "below threshold leaves the plan alone",
			plan: "# Plan\nThis might fail. Hopefully not.\n\n" + GapsStart + "\n" + GapsEnd + "\n",
		},
		{
			name:    "at threshold into an empty block starts at GAP-1",
			plan:    leakyBody + "\n" + GapsStart + "\n" + GapsEnd + "\n",
			wantIDs: []int{1, 2, 3},
			want: leakyBody + "\n" + GapsStart + "\n" +
				"### GAP-1: Unresolved wording in the plan: \"might fail\"\n- **Severity**: medium\n- **Description**: The plan says \"might fail\" outside its gaps block, an uncertainty it does not document as a gap: \"1. Migrate; this might fail on old rows.\".\n\n" +
				"### GAP-2: Unresolved wording in the plan: \"hopefully\"\n- **Severity**: medium\n- **Description**: The plan says \"hopefully\" outside its gaps block, an uncertainty it does not document as a gap: \"2. Hopefully the cache warms up.\"; \"4. Hopefully again.\".\n\n" +
				"### GAP-3: Unresolved wording in the plan: \"todo\"\n- **Severity**: medium\n- **Description**: The plan says \"todo\" outside its gaps block, an uncertainty it does not document as a gap: \"3. TODO: pick a queue.\".\n" +
				GapsEnd + "\n",
		},
		{
			name:    "next free id follows the highest existing one; existing gaps untouched",
			plan:    leakyBody + "\n" + GapsStart + "\n" + existing + GapsEnd + "\n",
			wantIDs: []int{3, 4, 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, added, err := MergeLeakage(tt.plan)
			require.NoError(t, err)
			var ids []int
			for _, a := range added {
				ids = append(ids, a.ID)
				assert.Equal(t, Medium, a.Severity)
				assert.NotZero(t, a.Line)
			}
			assert.Equal(t, tt.wantIDs, ids)
			if tt.wantIDs == nil {
				assert.Equal(t, tt.plan, out)
				return
			}
			if tt.want != "" {
				assert.Equal(t, tt.want, out)
			}
			assert.Contains(t, out, existingOr(tt.plan, existing))
			g, err := ParseGaps(out)
			require.NoError(t, err)
			assert.Len(t, g.Items, len(added)+len(mustGaps(t, tt.plan).Items))
			assert.Equal(t, PlanHash(tt.plan), PlanHash(out), "only the gaps change")
			again, more, err := MergeLeakage(out)
			require.NoError(t, err)
			assert.Empty(t, more, "a second merge adds nothing")
			assert.Equal(t, out, again)
		})
	}
}

func existingOr(plan, existing string) string {
	if strings.Contains(plan, existing) {
		return existing
	}
	return GapsStart
}

func mustGaps(t *testing.T, plan string) Gaps {
	t.Helper()
	g, err := ParseGaps(plan)
	require.NoError(t, err)
	return g
}

func TestMergeLeakageErrors(t *testing.T) {
	_, _, err := MergeLeakage(leakyBody)
	assert.True(t, errors.Is(err, ErrNoGapsBlock))
	_, _, err = MergeLeakage(leakyBody + GapsStart + "\n")
	var fe *FormatError
	assert.True(t, errors.As(err, &fe))
}

func TestMergeLeakageKeepsCRLF(t *testing.T) {
	plan := strings.ReplaceAll(leakyBody+"\n"+GapsStart+"\n"+GapsEnd+"\n", "\n", "\r\n")
	out, added, err := MergeLeakage(plan)
	require.NoError(t, err)
	assert.Len(t, added, 3)
	assert.NotContains(t, strings.ReplaceAll(out, "\r\n", ""), "\n")
}

// After a section's name in a heading, words that only name sections for
// uncertainty say nothing of it (review EB2); anything more does.
func TestOnlyNamesUncertainty(t *testing.T) {
	for text, want := range map[string]bool{
		"open questions":              true,
		" risks and known gaps":       true,
		"Risks / Open Questions":      true,
		"Non‑Goals":                   true,
		"리스크":                         true,
		"known issues with the cache": false,
		"none expected":               false,
		"add the retry queue":         false,
		"":                            false,
	} {
		assert.Equal(t, want, OnlyNamesUncertainty(text), "%q", text)
	}
}
