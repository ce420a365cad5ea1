package converge

import (
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseChallenges(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     []Challenge
		none     bool
		problems []string // substrings, one per expected problem, in order
	}{
		{
			name: "complete block",
			in:   "intro\n" + block("C1", "the cache is never invalidated", Blocking, Open, "add a TTL"),
			want: []Challenge{{ID: "C1", Claim: "the cache is never invalidated", Severity: Blocking, Status: Open,
				Concern: "concern of C1", FailureScenario: "failure of C1", Mitigation: "add a TTL", Line: 2}},
		},
		{
			name: "tolerant spelling: bold colon inside, lower case values, leading zeros, other heading level",
			in:   "## c03 — Slow start\n* **severity:** significant\n- Status: unresolved (see step 2)\n- **Failure Scenario**: users wait\n- concern: startup reads every file\n",
			want: []Challenge{{ID: "C3", Claim: "Slow start", Severity: Significant, Status: Unresolved,
				Concern: "startup reads every file", FailureScenario: "users wait", Line: 1}},
		},
		// Review CP5: shapes models give a block that were read as no
		// challenge at all, or as a block with every field missing.
		{
			name: "bold heading, bold fields without bullets, a marker before the severity",
			in:   "### **C1: the cache is never invalidated**\n**Severity:** 🔴 BLOCKING  \n**Status**: OPEN\n**Concern:** stale reads\n**Failure scenario:** a user sees old prices\n",
			want: []Challenge{{ID: "C1", Claim: "the cache is never invalidated", Severity: Blocking, Status: Open,
				Concern: "stale reads", FailureScenario: "a user sees old prices", Line: 1}},
		},
		{
			name: "bold id, brackets, a hyphen and a Challenge word",
			in: "### **C1**: one\n- **Status**: OPEN\n### [C2] two\n- **Status**: OPEN\n### C-3 — three\n- **Status**: OPEN\n" +
				"### Challenge C4: four\n- **Status**: OPEN\n### C\u20115: five\n- **Status**: OPEN\n",
			want: []Challenge{{ID: "C1", Claim: "one", Status: Open, Line: 1}, {ID: "C2", Claim: "two", Status: Open, Line: 3},
				{ID: "C3", Claim: "three", Status: Open, Line: 5}, {ID: "C4", Claim: "four", Status: Open, Line: 7},
				{ID: "C5", Claim: "five", Status: Open, Line: 9}},
		},
		{
			name: "numbered fields; numbered text in a field stays its text",
			in:   "### C5: claim\n1. **Severity**: MINOR\n2. **Status**: OPEN\n3. **Concern**: races\n4. **Failure scenario**:\n   1. User A: saves\n   2. User B: overwrites\n",
			want: []Challenge{{ID: "C5", Claim: "claim", Severity: Minor, Status: Open, Concern: "races",
				FailureScenario: "1. User A: saves 2. User B: overwrites", Line: 1}},
		},
		{
			name: "continuation lines extend a field until a blank line",
			in:   "### C2: claim\n- **Severity**: MINOR\n- **Status**: OPEN\n- **Concern**: first line\n  second line\n\nnot part of it\n- **Failure scenario**: x\n",
			want: []Challenge{{ID: "C2", Claim: "claim", Severity: Minor, Status: Open, Concern: "first line second line", FailureScenario: "x", Line: 1}},
		},
		{
			// A command's output in a code block under the Evidence line is
			// part of it, the block's fences aside; under any other field a
			// code block stays out, as before (review FF3).
			name: "a code block under evidence is read into it, under other fields not",
			in: "### C1: claim\n- **Status**: RESOLVED\n- **Mitigation**: retry\n  ```\n  retry()\n  ```\n" +
				"- **Evidence**: grep shows\n  the TTL:\n  ```\n  40: ttl\n  ```\n",
			want: []Challenge{{ID: "C1", Claim: "claim", Status: Resolved, Mitigation: "retry", Evidence: "grep shows the TTL: 40: ttl", Line: 1}},
		},
		{
			name: "evidence is read, unknown fields are ignored",
			in:   "### C1: claim\n- **Status**: RESOLVED\n- **Evidence**: main.go:12 handles it\n- **Reviewer**: the resolver\n",
			want: []Challenge{{ID: "C1", Claim: "claim", Status: Resolved, Evidence: "main.go:12 handles it", Line: 1}},
		},
		{
			name: "another heading ends the block",
			in:   "### C1: claim\n- **Status**: OPEN\n### Summary\n- **Severity**: BLOCKING\n",
			want: []Challenge{{ID: "C1", Claim: "claim", Status: Open, Line: 1}},
		},
		{
			name: "fenced code is skipped",
			in:   "```\n### C9: example\n- **Severity**: BLOCKING\n```\n" + update("C1", Open),
			want: []Challenge{{ID: "C1", Claim: "same claim", Status: Open, Line: 5}},
		},
		{
			name: "a four-backtick block quoting a three-backtick example is skipped whole",
			in:   "````md\n### C8: example\n```\n### C9: example\n- **Severity**: BLOCKING\n````\n" + update("C1", Open),
			want: []Challenge{{ID: "C1", Claim: "same claim", Status: Open, Line: 7}},
		},
		{
			name: "an indented fence is not a fence",
			in:   "    ```\n" + update("C1", Open),
			want: []Challenge{{ID: "C1", Claim: "same claim", Status: Open, Line: 2}},
		},
		{
			name: "no challenges marker",
			in:   "All settled.\n\n### NO CHALLENGES\n",
			none: true,
		},
		{
			name: "headings that are not challenges",
			in:   "### Challenges\n### Conclusion\ntext",
		},
		{
			name:     "bad severity names the value and the line",
			in:       "### C4: claim\n- **Severity**: CRITICAL\n- **Status**: OPEN\n",
			want:     []Challenge{{ID: "C4", Claim: "claim", Status: Open, Line: 1}},
			problems: []string{`C4 (line 2): severity "CRITICAL" is not one of BLOCKING, SIGNIFICANT, MINOR`},
		},
		{
			name:     "bad status names the value and the line",
			in:       "### C4: claim\n- **Severity**: MINOR\n- **Status**: FIXED\n",
			want:     []Challenge{{ID: "C4", Claim: "claim", Severity: Minor, Line: 1}},
			problems: []string{`C4 (line 3): status "FIXED" is not one of OPEN, RESOLVED, UNRESOLVED, DEFERRED, WITHDRAWN`},
		},
		{
			name:     "field given twice",
			in:       "### C1: claim\n- **Status**: OPEN\n- **Status**: RESOLVED\n",
			want:     []Challenge{{ID: "C1", Claim: "claim", Status: Open, Line: 1}},
			problems: []string{"C1 (line 3): Status is given twice (first at line 2)"},
		},
		{
			name:     "duplicate id",
			in:       update("C1", Open) + update("C1", Resolved),
			want:     []Challenge{{ID: "C1", Claim: "same claim", Status: Open, Line: 1}},
			problems: []string{"C1 (line 3): C1 already has a block at line 1"},
		},
		{
			name:     "heading without a claim",
			in:       "### C5:\n- **Status**: OPEN\n",
			want:     []Challenge{{ID: "C5", Status: Open, Line: 1}},
			problems: []string{"C5 (line 1): the heading has no claim"},
		},
		{
			name:     "id too large",
			in:       "### C12345678: claim\n",
			problems: []string{"C12345678 (line 1): challenge number is too large"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseChallenges(tt.in)
			assert.Equal(t, tt.want, got.Challenges)
			assert.Equal(t, tt.none, got.NoChallenges)
			require.Len(t, got.Problems, len(tt.problems), "problems: %v", got.Problems)
			for i, p := range tt.problems {
				assert.Contains(t, got.Problems[i].String(), p)
			}
		})
	}
}

func TestChallengeMissing(t *testing.T) {
	tests := []struct {
		name    string
		c       Challenge
		isNew   bool
		invalid map[string]bool
		want    []string
	}{
		{"new and complete", Challenge{ID: "C1", Severity: Minor, Status: Open, Concern: "c", FailureScenario: "f"}, true, nil, nil},
		{"new without severity", Challenge{ID: "C1", Line: 3, Status: Open, Concern: "c", FailureScenario: "f"}, true, nil,
			[]string{"C1 (line 3): missing `- **Severity**:` line (BLOCKING, SIGNIFICANT or MINOR)"}},
		{"new without concern and failure scenario", Challenge{ID: "C2", Line: 1, Severity: Minor, Status: Open}, true, nil,
			[]string{"C2 (line 1): missing `- **Concern**:` line", "C2 (line 1): missing `- **Failure scenario**:` line (what concretely goes wrong if the concern is real)"}},
		{"update needs only status", Challenge{ID: "C1", Status: Resolved}, false, nil, nil},
		{"update without status", Challenge{ID: "C1", Line: 7}, false, nil,
			[]string{"C1 (line 7): missing `- **Status**:` line (OPEN, RESOLVED, UNRESOLVED, DEFERRED or WITHDRAWN)"}},
		{"a field given with a bad value is not also missing", Challenge{ID: "C1", Line: 2}, false, map[string]bool{"C1/status": true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range tt.c.missing(tt.isNew, tt.invalid) {
				got = append(got, p.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

var canonicalID = regexp.MustCompile(`^C[0-9]+$`)

func FuzzParseChallenges(f *testing.F) {
	f.Add(block("C1", "claim", Blocking, Open, "m"))
	f.Add("### C2: x\n- **Status**: RESOLVED\n```\n### C3: y\n")
	f.Add("## c007 — x\n* **severity:** minor\n  more\n\n- Concern: y\n### NO CHALLENGES\n")
	f.Add("### C99999999999999999999: x\n- **Status**:\n- **Severity**: ***\n")
	f.Fuzz(func(t *testing.T, in string) {
		got := ParseChallenges(in)
		seen := map[string]bool{}
		lines := strings.Count(in, "\n") + 1
		for _, c := range got.Challenges {
			if !canonicalID.MatchString(c.ID) || seen[c.ID] {
				t.Fatalf("bad or duplicate id %q", c.ID)
			}
			seen[c.ID] = true
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("line %d out of range", c.Line)
			}
			if c.Severity != "" && c.Severity.rank() == 0 {
				t.Fatalf("bad severity %q", c.Severity)
			}
			if c.Status != "" && !strings.Contains("OPEN RESOLVED UNRESOLVED DEFERRED WITHDRAWN", string(c.Status)) {
				t.Fatalf("bad status %q", c.Status)
			}
		}
		for _, p := range got.Problems {
			if p.String() == "" {
				t.Fatal("empty problem")
			}
		}
		// Apply must not panic either, whatever the parser made of it.
		Apply(Ledger{}, in)
	})
}

// A field's value runs on over its further lines, and under Evidence over a
// code block: a command's output may be long. Joined a line at a time, each
// line copied all that came before it, and a 1 MiB critique took seconds
// and gigabytes in the Stop hook (review FF7). The bytes allocated, not the
// time, tell the two apart on any machine: twice the lines must cost about
// twice the bytes, not four times.
func TestLongFieldsAreReadInLinearSpace(t *testing.T) {
	line := "40: ttl := 30 * time.Second // one line of the output\n"
	allocated := func(critique string) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p := ParseChallenges(critique)
		runtime.ReadMemStats(&after)
		require.Len(t, p.Challenges, 1)
		c := p.Challenges[0]
		require.Equal(t, strings.Count(critique, "40: ttl"), strings.Count(c.Evidence+c.Concern, "40: ttl"), "every line is read")
		return after.TotalAlloc - before.TotalAlloc
	}
	for name, shape := range map[string]func(body string) string{
		"code under evidence": func(body string) string {
			return "### C1: b\n- **Status**: RESOLVED\n- **Evidence**:\n```\n" + body + "```\n"
		},
		"continued concern": func(body string) string {
			return "### C1: b\n- **Severity**: MINOR\n- **Status**: OPEN\n- **Failure scenario**: f\n- **Concern**: c\n" + body
		},
	} {
		n := (128 << 10) / len(line)
		once, twice := allocated(shape(strings.Repeat(line, n))), allocated(shape(strings.Repeat(line, 2*n)))
		assert.Less(t, float64(twice), 3*float64(once), "%s: %d bytes allocated for %d lines, %d for %d", name, once, n, twice, 2*n)
	}
}
