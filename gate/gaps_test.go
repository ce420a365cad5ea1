package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func block(body string) string {
	return "# Plan\n\n## Goals\n- g\n\n" + GapsStart + "\n" + body + GapsEnd + "\n"
}

func TestParseGaps(t *testing.T) {
	tests := []struct {
		name  string
		plan  string
		want  []Gap
		start int
		end   int
	}{
		{
			name:  "two gaps",
			plan:  block("### GAP-1: Rollback\n- **Severity**: high\n- **Description**: No rollback.\n\n### GAP-2: Auth timeout\n- **Severity**: Medium\n- **Description**: Token expiry mid-call.\n"),
			want:  []Gap{{1, "Rollback", High, "No rollback.", 7}, {2, "Auth timeout", Medium, "Token expiry mid-call.", 11}},
			start: 6, end: 14,
		},
		{
			// Review CP6: a model that types every hyphen as U+2011.
			name:  "ids with a non-breaking hyphen or a minus sign",
			plan:  block("### GAP\u20111: Rollback\n- **Severity**: high\n- **Description**: No rollback.\n\n### gap\u22122: Auth timeout\n- **Severity**: Medium\n- **Description**: Token expiry mid\u2011call.\n"),
			want:  []Gap{{1, "Rollback", High, "No rollback.", 7}, {2, "Auth timeout", Medium, "Token expiry mid\u2011call.", 11}},
			start: 6, end: 14,
		},
		{
			// Review CP9: bold names without their bullet, a marker before
			// the severity.
			name:  "bold fields without bullets and a marked severity",
			plan:  block("### GAP-1: Rollback\n**Severity:** 🔴 High\n**Description**: No rollback.\n"),
			want:  []Gap{{1, "Rollback", High, "No rollback.", 7}},
			start: 6, end: 10,
		},
		{
			name:  "empty block claims no gaps",
			plan:  block(""),
			start: 6, end: 7,
		},
		{
			name:  "bold variants, trailing words and a continued description",
			plan:  block("### GAP-3: Load\n- **Severity:** **LOW** (cosmetic)\n- Description: first part\n  second part\n"),
			want:  []Gap{{3, "Load", Low, "first part second part", 7}},
			start: 6, end: 11,
		},
		{
			name:  "prose inside the block is tolerated",
			plan:  block("Known gaps follow.\n### GAP-1: A\n- **Severity**: low\n- **Description**: d\n"),
			want:  []Gap{{1, "A", Low, "d", 8}},
			start: 6, end: 11,
		},
		{
			name:  "indented markers and CRLF",
			plan:  strings.ReplaceAll("  "+GapsStart+"\n### GAP-1: A\n- **Severity**: high\n- **Description**: d\n"+GapsEnd+"  \n", "\n", "\r\n"),
			want:  []Gap{{1, "A", High, "d", 2}},
			start: 1, end: 5,
		},
		{
			name:  "fenced example does not open a block",
			plan:  "```\n" + GapsStart + "\n```\n" + GapsStart + "\n" + GapsEnd + "\n",
			start: 4, end: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ParseGaps(tt.plan)
			require.NoError(t, err)
			assert.True(t, g.Present)
			assert.Equal(t, tt.want, g.Items)
			assert.Equal(t, tt.start, g.Start)
			assert.Equal(t, tt.end, g.End)
		})
	}
}

// Prose in a block, and an item that mentions another, are not items in a
// list: "none" stays no gaps.
// A code sample in a gap's description is not read for headings (review
// BA4: its "# comment" was refused as a heading).
func TestParseGapsCodeInADescription(t *testing.T) {
	g, err := ParseGaps(block("### GAP-1: Eviction\n- **Severity**: medium\n- **Description**: the job runs:\n```sh\n# nightly\nrun-eviction\n```\n"))
	require.NoError(t, err)
	require.Len(t, g.Items, 1)
	assert.Equal(t, "the job runs:", g.Items[0].Description)
}

func TestParseGapsProseIsNotAListedGap(t *testing.T) {
	for _, body := range []string{"None known.\n", "- None identified.\n", "The plan has no known gaps: every step was checked.\n",
		// Review AX3: honest "none" lines in list shapes.
		"- No significant gaps identified.\n", "- (none)\n", "* No open gaps remain.\n", "> There are no known gaps: all were closed.\n",
		"1. All critique findings were addressed in the Steps above.\n",
		// Review BB5: prose after a gap that opens with an id.
		"### GAP-1: A\n- **Severity**: high\n- **Description**: d\n\nGAP-1, but only for the old rows.\n",
		// Review BC3: a description wrapped onto a line opening with an id.
		"### GAP-1: A\n- **Severity**: high\n- **Description**: depends on\nGAP-2 (see below).\n### GAP-2: B\n- **Severity**: low\n- **Description**: e\n",
		"### GAP-1: A\n- **Severity**: high\n- **Description**: d, and see GAP-2 below\n- Mitigation: GAP-2 covers the rest\n"} {
		_, err := ParseGaps(block(body))
		assert.NoError(t, err, body)
	}
}

func TestParseGapsAbsent(t *testing.T) {
	g, err := ParseGaps("# Plan\n\nno block here; " + GapsStart + " inline does not count\n")
	require.NoError(t, err)
	assert.False(t, g.Present)
	assert.Empty(t, g.Items)
}

func TestParseGapsMalformed(t *testing.T) {
	item := "### GAP-1: A\n- **Severity**: high\n- **Description**: d\n"
	tests := []struct {
		name string
		plan string
		want []string // fragments, each must appear in the error
	}{
		{"unclosed start", "x\n" + GapsStart + "\n" + item, []string{"line 2: gaps block is never closed", "add " + GapsEnd}},
		{"end without start", "x\n" + GapsEnd + "\n", []string{"line 2: end marker", "without a start marker"}},
		{"two blocks", block(item) + GapsStart + "\n" + GapsEnd + "\n", []string{"line 11: a second gaps block", "keep a single block"}},
		{"start inside a block", "a\n" + GapsStart + "\n" + GapsStart + "\n" + GapsEnd + "\n", []string{"line 3: start marker inside an open gaps block"}},
		{"duplicate id", block(item + item), []string{"line 10: GAP-1 is used twice (first on line 7)", "next unused number"}},
		// Review DC6: the block claimed none, the critic read the gap.
		{"a gap outside the block", "x\n\n## Known gaps\n" + item + "\n" + GapsStart + "\n" + GapsEnd + "\n", []string{"line 4: a gap outside the gaps block", "move it between " + GapsStart}},
		{"missing severity", block("### GAP-1: A\n- **Description**: d\n"), []string{"line 7: GAP-1 has no severity", "- **Severity**: high|medium|low"}},
		{"bad severity", block("### GAP-1: A\n- **Severity**: critical\n- **Description**: d\n"), []string{`line 8: GAP-1 has severity "critical"`, "one of high, medium, low"}},
		{"missing description", block("### GAP-1: A\n- **Severity**: low\n"), []string{"line 7: GAP-1 has no description"}},
		{"empty description", block("### GAP-1: A\n- **Severity**: low\n- **Description**:\n"), []string{"GAP-1 has no description"}},
		{"missing title", block("### GAP-1:\n- **Severity**: low\n- **Description**: d\n"), []string{"line 7: GAP-1 has no title"}},
		{"wrong heading form", block("### Gap 1: A\n- **Severity**: low\n- **Description**: d\n"), []string{`line 7: "### Gap 1: A" names GAP item in a shape plansmith does not read`, "line 8: severity line outside any item"}},
		{"id zero", block("### GAP-0: A\n- **Severity**: low\n- **Description**: d\n"), []string{`GAP id "0" is not a positive number`}},
		{"two severities", block("### GAP-1: A\n- **Severity**: low\n- **Severity**: high\n- **Description**: d\n"), []string{"line 9: GAP-1 has a second severity"}},
		// Gaps listed in a table or a list were read as no gaps at all
		// (review AU2).
		{"a table", block("| Gap | Title | Severity |\n|---|---|---|\n| GAP-1 | No rollback | high |\n| GAP-2 | Quotas | low |\n"),
			[]string{`line 9: "| GAP-1 | No rollback | high |" names GAP item in a shape plansmith does not read`, "line 10:", "### GAP-<n>: <title>"}},
		{"bullets", block("- **GAP-1**: No rollback (high)\n"), []string{"line 7:", "in a shape plansmith does not read"}},
		{"a numbered list", block("1. GAP-1 - No rollback, high\n"), []string{"line 7:", "in a shape plansmith does not read"}},
		{"a second gap as a bullet", block(item + "- GAP-2: quotas, low\n"), []string{"line 10:", "in a shape plansmith does not read"}},
		// Review AV4: other shapes of a list of gaps.
		{"a numbered table", block("| # | Gap | Severity |\n|---|---|---|\n| 1 | No rollback plan | high |\n"), []string{"line 7:", "no gap plansmith can read", "leave the block empty"}},
		{"G ids", block("| ID | Gap |\n|---|---|\n| G1 | No rollback |\n"), []string{"no gap plansmith can read"}},
		{"a checkbox", block("- [ ] GAP-1: No rollback\n"), []string{"line 7:"}},
		{"plain bullets", block("- **Eviction untested** (medium): memory may grow\n"), []string{"no gap plansmith can read"}},
		{"a quote", block("> GAP-1: No rollback\n"), []string{"in a shape plansmith does not read"}},
		{"a unicode bullet", block("• GAP-1: No rollback\n"), []string{"in a shape plansmith does not read"}},
		// Review AX2: a gap's id or severity in a plain or bold line, and
		// other list markers.
		{"a plain line", block("GAP-1: Eviction policy untested (medium). No load test covers it.\n"), []string{"in a shape plansmith does not read"}},
		{"a bold paragraph", block("**GAP-1 (medium): Eviction policy untested.** No load test covers it.\n"), []string{"in a shape plansmith does not read"}},
		{"an en dash", block("– Eviction policy untested\n"), []string{"no gap plansmith can read"}},
		{"a lettered list", block("a. Eviction policy untested\n"), []string{"no gap plansmith can read"}},
		{"a severity in prose", block("Eviction policy untested — severity medium.\n"), []string{"no gap plansmith can read"}},
		// Review BA5: a second gap in another shape beside a good one.
		{"a bold gap after a good one", block(item + "\n**GAP-2: Quotas** (low): not measured\n"), []string{"line 11:", "names GAP item in a shape"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseGaps(tt.plan)
			require.Error(t, err)
			var fe *FormatError
			require.True(t, errors.As(err, &fe))
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestGapContentAndPlanContent(t *testing.T) {
	plan := "# P\n\n" + GapsStart + "\n### GAP-1: A\n- **Severity**: low\n- **Description**: d\n" + GapsEnd + "\ntext\n<!-- rodin:session=x -->\n  <!-- rodin:plan:hash=abc -->\n"
	assert.Equal(t, "# P\n\ntext", PlanContent(plan))
	assert.Equal(t, "### GAP-1: A\n- **Severity**: low\n- **Description**: d", GapsContent(plan))
	assert.Equal(t, "", GapsContent("# no block\n"))
	assert.Equal(t, GapsHash("# no block\n"), GapsHash(block("")), "absent and empty blocks hash alike")
	assert.Equal(t, "01ba4719c80b6fe911b091a7c05124b64eeece964e09c058ef8f9805daca546b", GapsHash(block("")), "empty content hashes as a lone newline, like echo \"\"")
	assert.NotEqual(t, PlanHash("a\n"), PlanHash("a \n"), "trailing spaces count")
	assert.Equal(t, PlanHash(plan), PlanHash(strings.Replace(plan, "- **Description**: d", "- **Description**: e", 1)), "gaps do not change the plan hash")
}

// Text in the gaps block outside every gap is part of the saved plan, so
// the critic is shown it (review DC1: a step kept there passed unread); a
// gap, its fields, its wrapped description and its code sample are not.
func TestLooseText(t *testing.T) {
	gap := "### GAP-1: Failover\n- **Severity**: medium\n- **Description**: counters reset\nfor up to a minute.\n"
	tests := []struct {
		name, body, want string
	}{
		{"gaps only", gap + "\n### GAP-2: B\n**Severity:** low\n- Description: e\n", ""},
		{"none", "", ""},
		{"a command under a description", "### GAP-1: Eviction\n- **Severity**: medium\n- **Description**: the job runs:\n```sh\nredis-cli FLUSHALL\n```\n", "```sh\nredis-cli FLUSHALL\n```"},
		{"a step after a gap", gap + "\n6. Before deploying, run `redis-cli FLUSHALL` on production.\n", "6. Before deploying, run `redis-cli FLUSHALL` on production."},
		{"a step before the gaps", "Deploy with `--force` first.\n\n" + gap, "Deploy with `--force` first."},
		{"a fenced command after a gap", gap + "\n```sh\nrm -rf /var/lib/app\n```\n", "```sh\nrm -rf /var/lib/app\n```"},
		{"a field the gate does not read", gap + "- **Mitigation**: skip the canary\n", "- **Mitigation**: skip the canary"},
		{"prose where a block claims none", "Step 6: drop the audit table.\n", "Step 6: drop the audit table."},
		// Prose that does not continue a description (review EB: a mutant
		// hiding each of these survived).
		{"prose after a blank line past a gap", gap + "\nThen run `redis-cli FLUSHALL` on production.\n", "Then run `redis-cli FLUSHALL` on production."},
		{"prose under a severity", "### GAP-1: Failover\n- **Severity**: medium\nrun `redis-cli FLUSHALL` first.\n- **Description**: counters reset.\n", "run `redis-cli FLUSHALL` first."},
		{"prose under a heading", "### GAP-1: Failover\nrun `redis-cli FLUSHALL` first.\n- **Severity**: medium\n- **Description**: counters reset.\n", "run `redis-cli FLUSHALL` first."},
		{"prose after an unread field", gap + "- **Mitigation**: skip the canary\nand run `redis-cli FLUSHALL` on production.\n", "- **Mitigation**: skip the canary\nand run `redis-cli FLUSHALL` on production."},
		{"a description before any gap", "- **Description**: run `redis-cli FLUSHALL` first,\nthen deploy.\n\n" + gap, "- **Description**: run `redis-cli FLUSHALL` first,\nthen deploy."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := block(tt.body)
			assert.Equal(t, tt.want, LooseText(plan))
			critic := PromptsOf(plan).Critic
			if tt.want == "" {
				assert.Equal(t, strings.TrimSpace(PlanContent(plan)), CriticInput(plan))
			} else {
				assert.Contains(t, critic, tt.want)
			}
			assert.NotContains(t, critic, "GAP-1", "a gap is never shown to the critic")
		})
	}
}

// A gap that says nothing makes the block non-empty without documenting
// anything, and the gate's check of a PASS over high findings against an
// empty block then did not apply (review DC2): it is refused, with the gap
// named; a gap that names an id among words is a gap.
func TestParseGapsHollow(t *testing.T) {
	refused := []struct{ name, body, want string }{
		{"placeholder description", "### GAP-1: Rollback of the limiter\n- **Severity**: low\n- **Description**: TBD\n", `GAP-1's description, "TBD", says nothing`},
		{"only an id as title", "### GAP-1: FINDING-1\n- **Severity**: low\n- **Description**: The limiter cannot be turned off without a deploy.\n", `GAP-1's title, "FINDING-1", says nothing`},
		{"ids as description", "### GAP-2: Review findings\n- **Severity**: medium\n- **Description**: FINDING-1, FINDING‑2, Finding 3.\n", "GAP-2's description"},
		{"a template's slot", "### GAP-1: <title>\n- **Severity**: high\n- **Description**: <what is missing>\n", "GAP-1's title"},
		{"an id of two digits as title", "### GAP-1: FINDING-12\n- **Severity**: low\n- **Description**: The limiter cannot be turned off without a deploy.\n", `GAP-1's title, "FINDING-12", says nothing`}, // review EB
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseGaps(block(tt.body))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "delete the gap (an empty block claims none)")
		})
	}
	for _, body := range []string{
		"### GAP-1: FINDING-2 of the first review: rollback\n- **Severity**: high\n- **Description**: TBD until ops confirm a feature flag can turn the limiter off.\n",
		"### GAP-1: 실패율 기준 미확정\n- **Severity**: medium\n- **Description**: 재무팀 확인이 필요하다.\n",
		"### GAP-1: N+1 queries\n- **Severity**: low\n- **Description**: See GAP-2; the list view may issue one query per row.\n",
	} {
		g, err := ParseGaps(block(body))
		require.NoError(t, err, body)
		assert.Len(t, g.Items, 1)
	}
}

// A severity range is read as its higher end (review DC9: a critic's
// "Medium-High" was unreadable, and its re-run failed the plan closed).
func TestParseSeverity(t *testing.T) {
	for in, want := range map[string]string{
		"high": High, "**Medium**": Medium, "🔴 HIGH": High, "**High** – blocks rollout": High,
		"Medium-High": High, "MEDIUM-HIGH": High, "high-medium": High, "low/medium": Medium, "Low‑Medium": Medium,
		"Medium to High": High, "low or medium": Medium, "Medium – High (CVSS 6.5)": High,
		"High-impact": High, "low-risk": Low,
		"Critical": High, "**MAJOR**": High, "Blocker": High, "Moderate": Medium, "Minor": Low, "Informational": Low, "minor-to-moderate": Medium,
		// A range is never read at its lower end, however it is written
		// (review EB: mutants reading each of these as low survived).
		"Blocking": High, "Low - High": High, "Low / High": High, "low-or-high": High, "Low to High.": High, "low to **high**": High,
	} {
		got, ok := parseSeverity(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"cleared", "huge", "huge-medium", "to high", ""} {
		_, ok := parseSeverity(in)
		assert.False(t, ok, in)
	}
}
