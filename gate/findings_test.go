package gate

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFindings(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		noIssues bool
		items    []Finding
		counts   Counts
	}{
		{
			name:     "explicit no issues",
			text:     "### NO ISSUES FOUND",
			noIssues: true,
		},
		{
			name:     "no issues after a preamble, lowercase",
			text:     "I read the plan carefully.\n\n### No issues found.\n",
			noIssues: true,
		},
		{
			name: "findings of each severity with a summary heading",
			text: "## Review\n### FINDING-1: No rollback\n- **Severity**: high\n- **Description**: Migration has no way back.\n\n### FINDING-2: Slow export\n- **Severity**: medium\n- **Description**: Streams are not used.\n### FINDING-3: Naming\n- **Severity**: low\n- **Description**: Odd name.\n## Summary\nThree issues.",
			items: []Finding{
				{1, "No rollback", High, "Migration has no way back.", 2},
				{2, "Slow export", Medium, "Streams are not used.", 6},
				{3, "Naming", Low, "Odd name.", 9},
			},
			counts: Counts{High: 1, Medium: 1, Low: 1},
		},
		{
			// Review CP6: a critic that types every hyphen as U+2011.
			name:   "ids with a non-breaking hyphen",
			text:   "### FINDING\u20111: No rollback\n- **Severity**: high\n- **Description**: Migration has no way back.\n",
			items:  []Finding{{1, "No rollback", High, "Migration has no way back.", 1}},
			counts: Counts{High: 1},
		},
		{
			name:   "a bold heading (review CP6)",
			text:   "### **FINDING-1: No rollback**\n- **Severity**: high\n- **Description**: d\n### **FINDING-2**: Slow\n- **Severity**: low\n- **Description**: e\n",
			items:  []Finding{{1, "No rollback", High, "d", 1}, {2, "Slow", Low, "e", 4}},
			counts: Counts{High: 1, Low: 1},
		},
		{
			name:   "bold fields without bullets (review CP9)",
			text:   "### FINDING-1: No rollback\n**Severity:** High\n**Description:** Migration has no way back.\n",
			items:  []Finding{{1, "No rollback", High, "Migration has no way back.", 1}},
			counts: Counts{High: 1},
		},
		{
			name:     "a bold no-issues heading (review CP6)",
			text:     "### **NO ISSUES FOUND**\n",
			noIssues: true,
		},
		{
			name:   "a critic's own severity words, a range at its higher end (review DC9)",
			text:   "### FINDING-1: A\n- **Severity**: Critical\n- **Description**: d\n\n### FINDING-2: B\n- **Severity**: Medium-High\n- **Description**: e\n",
			items:  []Finding{{1, "A", High, "d", 1}, {2, "B", High, "e", 5}},
			counts: Counts{High: 2},
		},
		{
			name:   "a severity in the heading (review DC9)",
			text:   "### FINDING-1: No rollback (HIGH)\n- **Description**: d\n\n### FINDING-2: Naming [SEVERITY: Low]\n- **Description**: e\n",
			items:  []Finding{{1, "No rollback (HIGH)", High, "d", 1}, {2, "Naming [SEVERITY: Low]", Low, "e", 4}},
			counts: Counts{High: 1, Low: 1},
		},
		{
			name:     "a no-issues heading with a check mark (review DC8)",
			text:     "### NO ISSUES FOUND ✅\n",
			noIssues: true,
		},
		{
			name:   "findings win over a stray no-issues line",
			text:   "### FINDING-1: A\n- **Severity**: high\n- **Description**: d\n### NO ISSUES FOUND\n",
			items:  []Finding{{1, "A", High, "d", 1}},
			counts: Counts{High: 1},
		},
		{
			name:   "inside a fenced block the critic added",
			text:   "```markdown\n### FINDING-1: A\n- **Severity**: medium\n- **Description**: d\n```",
			items:  []Finding{{1, "A", Medium, "d", 2}},
			counts: Counts{Medium: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFindings(tt.text)
			require.NoError(t, err)
			assert.Equal(t, tt.noIssues, f.NoIssues)
			assert.Equal(t, tt.items, f.Items)
			assert.Equal(t, tt.counts, f.Counts())
		})
	}
}

// ok1 is one well-formed low finding, followed by a blank line.
const ok1 = "### FINDING-1: A\n- **Severity**: low\n- **Description**: d\n\n"

// Prose that opens with a finding's id, and a summary table after the
// findings, are not findings in another shape (review BB5).
func TestParseFindingsProseNamingAFinding(t *testing.T) {
	for _, extra := range []string{"Finding 1 is the only one that matters.\n", "finding 1 shows the rest is fine.\n",
		"| FINDING-1 | low | config |\n",
		// Review BC3/BC4: summary lines, and a legend before the findings.
		"## Summary\n- FINDING-1 (low): config naming.\n1. **FINDING-1** — low\n"} {
		f, err := ParseFindings(ok1 + extra)
		require.NoError(t, err, extra)
		assert.Len(t, f.Items, 1)
	}
	f, err := ParseFindings("Severity legend:\n- **Severity**: high means it blocks the release\n\n" + ok1)
	require.NoError(t, err, "a legend before the first finding")
	assert.Len(t, f.Items, 1)
	// A whole finding in another shape before the first read one is no
	// legend (review BD3).
	_, err = ParseFindings("### [HIGH] FINDING-1: No rollback\n- **Severity:** **High**\n- **Description**: cannot be undone\n\n" +
		"### FINDING-2: A\n- **Severity**: low\n- **Description**: d\n")
	assert.ErrorContains(t, err, "description line outside any item")
}

func TestParseFindingsErrors(t *testing.T) {
	tests := []struct {
		name        string
		text        string
		unparseable bool
		want        string
	}{
		{"empty output", "", true, "FINDING-<n>"},
		{"prose only", "The plan looks fine to me.", true, "NO ISSUES FOUND"},
		{"no issues crossed out", "### NO ISSUES FOUND ❌", true, "NO ISSUES FOUND"}, // a cross is no declaration (review DC8; EB: a mutant reading it as one survived)
		{"wrong heading level", "## FINDING-1: A\n- **Severity**: high\n- **Description**: d", true, "FINDING"},
		{"finding without severity", "### FINDING-1: A\n- **Description**: d", false, "line 1: FINDING-1 has no severity"},
		{"finding with bad severity", "### FINDING-1: A\n- **Severity**: cleared\n- **Description**: d", false, `line 2: FINDING-1 has severity "cleared"`},
		{"finding without description", "### FINDING-1: A\n- **Severity**: low", false, "FINDING-1 has no description"},
		{"duplicate finding id", "### FINDING-1: A\n- **Severity**: low\n- **Description**: d\n### FINDING-1: B\n- **Severity**: low\n- **Description**: d", false, "FINDING-1 is used twice"},
		// Review BA1: one finding in another shape beside good ones was
		// dropped, and the gate passed a plan with it uncovered.
		{"a finding heading without its dash", ok1 + "### FINDING 2: B\n- **Severity**: high\n- **Description**: e", false, "line 6: severity line outside any item"},
		{"a finding heading with a dash for the colon", ok1 + "### FINDING-2 — B\n- **Severity**: high\n- **Description**: e", false, "severity line outside any item"},
		{"a bold finding", ok1 + "**FINDING-2: B**\n- **Severity**: high\n- **Description**: e", false, "FINDING-1 has a second severity"},
		// Review BB3: other headings; the finding's fields then stand
		// outside any finding, which is an error too.
		{"a numbered finding heading", ok1 + "### 2. FINDING-2: B\n- **Severity**: high\n- **Description**: e", false, "severity line outside any item"},
		{"a severity tag before the id", ok1 + "### [HIGH] FINDING-2: B\n- **Severity**: high\n- **Description**: e", false, "severity line outside any item"},
		{"an issue heading", ok1 + "### Issue 2: B\n- **Severity**: high\n- **Description**: e", false, "severity line outside any item"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFindings(tt.text)
			require.Error(t, err)
			assert.Equal(t, tt.unparseable, errors.Is(err, ErrUnparseable))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestFindingsHelpers(t *testing.T) {
	f := Findings{Items: []Finding{{ID: 1, Severity: Low}, {ID: 4, Severity: High}, {ID: 2, Severity: Medium}}}
	assert.Equal(t, []Finding{{ID: 4, Severity: High}, {ID: 2, Severity: Medium}}, f.Serious())
	got, ok := f.ByID(2)
	assert.True(t, ok)
	assert.Equal(t, Medium, got.Severity)
	_, ok = f.ByID(3)
	assert.False(t, ok)
	assert.Equal(t, Counts{High: 1, Medium: 1, Low: 1}, f.Counts())
	assert.Equal(t, "FINDING-4", f.Items[1].Label())
}
