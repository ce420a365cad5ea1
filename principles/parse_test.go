package principles

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Verdict
	}{
		{"colon and dash note", "P4: FAIL — no timeout handling", []Verdict{{4, Fail, "no timeout handling"}}},
		{"bold with name", "**P4 (Error paths)**: FAIL", []Verdict{{4, Fail, ""}}},
		{"list item no colon", "- P4 FAIL", []Verdict{{4, Fail, ""}}},
		{"numbered with name", "1. P1 (Step ordering): PASS — steps build up", []Verdict{{1, Pass, "steps build up"}}},
		{"bold verdict", "3. **P3 Interface contracts** — **PASS**: signatures given", []Verdict{{3, Pass, "signatures given"}}},
		{"table row", "| P7 | Breaking changes | FAIL | config format changes |", []Verdict{{7, Fail, "config format changes"}}},
		{"title case", "P2 — Pass. Paths are concrete.", []Verdict{{2, Pass, "Paths are concrete."}}},
		{"past tense", "P5: FAILED (no empty-input case)", []Verdict{{5, Fail, "(no empty-input case)"}}},
		{"two digit", "P10: PASS\nP11: FAIL\nP12: PASS", []Verdict{{10, Pass, ""}, {11, Fail, ""}, {12, Pass, ""}}},
		{"verdict on next line", "### P6 Runnable verification\n\nVerdict: FAIL — commands missing", []Verdict{{6, Fail, "commands missing"}}},
		{"verdict too far away", "P6 comes next\na\nb\nc\nFAIL", nil},
		// Review CP4: the shapes models write that were read as no verdict.
		{"a heading's verdict anywhere in its section", "### P6 Runnable verification\nThe plan runs `go test`.\n\nIt names no output.\n\nA third thought.\n\n**Verdict: FAIL**", []Verdict{{6, Fail, ""}}},
		{"a heading's section ends at the next heading", "### P6\na\nb\nc\n### Summary\nFAIL", nil},
		{"an emoji opens the line", "- ✅ **P1 (Step ordering)**: steps build up\n- ❌ P2 File references — no paths", []Verdict{{1, Pass, "steps build up"}, {2, Fail, "no paths"}}},
		{"an emoji and a word open the line", "1. ✅ PASS — P1 Step ordering: ordered\n2. ❌️ **FAIL** P2: none", []Verdict{{1, Pass, "ordered"}, {2, Fail, "none"}}},
		{"a bold word opens the line", "3. **FAILED** P3 (Interface contracts): no signature", []Verdict{{3, Fail, "no signature"}}},
		{"heavy check marks", "P4 ✔️ handled\nP5: ✘ no empty case\nP6 ✓\nP7 ✗", []Verdict{{4, Pass, "handled"}, {5, Fail, "no empty case"}, {6, Pass, ""}, {7, Fail, ""}}},
		{"prose before a reference gives no verdict", "Pass the context to P4 so it can retry\nFAIL fast in P5 they said\n✅ and ❌ both appear before P6", nil},
		{"a reason in parentheses is kept", "- ❌ P4 (no timeout on the lock)", []Verdict{{4, Fail, "(no timeout on the lock)"}}},
		// Review CS: the reason after an opening verdict may start with a
		// verdict-like word; the opening verdict is the line's.
		{"an opening verdict over a reason that starts like one", "- ❌ **P6 (Runnable verification)**: Pass-through of the context is not checked\n- ✅ **P4 (Error paths)**: Fail-fast on bad input is covered",
			[]Verdict{{6, Fail, "Pass-through of the context is not checked"}, {4, Pass, "Fail-fast on bad input is covered"}}},
		{"two tokens that disagree give no verdict", "- ✅ FAIL P4 x", nil},
		{"a word that only starts like a verdict", "- Passing P4 along\n- FAILURE P5", nil},
		{"korean", "P8 범위 경계: 실패 — 비범위 없음\nP9: 통과", []Verdict{{8, Fail, "비범위 없음"}, {9, Pass, ""}}},
		{"emoji", "- P1 ✅ ordered\n- P2 ❌ no paths", []Verdict{{1, Pass, "ordered"}, {2, Fail, "no paths"}}},
		{"lowercase prose ignored", "P4: the tests pass but nothing says what happens on fail", nil},
		{"first verdict wins per principle", "P4: FAIL\nsummary: P4 PASS", []Verdict{{4, Fail, ""}}},
		{"out of range ids", "P0: PASS\nP13: FAIL\nP123: PASS", nil},
		{"glued prefix ignored", "HTTP2: PASS\nSP1 FAIL", nil},
		{"word containing verdict ignored", "P3: PASSING grade", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Parse(tt.in))
		})
	}
}

func TestParseCountsEachPrincipleOnce(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "%d. P%d: PASS\n", i, i)
	}
	assert.Len(t, Parse(b.String()), 12)
	assert.Empty(t, Parse(""))
	assert.Len(t, Parse("P1 P2 P3 PASS PASS PASS"), 1, "one line gives one principle, not six pieces of evidence")
}

func TestAllAndRender(t *testing.T) {
	require.Len(t, All, 12)
	for i, p := range All {
		assert.Equal(t, i+1, p.ID)
		assert.NotEmpty(t, p.Name)
		assert.True(t, strings.HasSuffix(p.Question, "?"), p.Label())
	}
	_, ok := ByID(13)
	assert.False(t, ok)
	out := Render()
	for _, p := range All {
		assert.Contains(t, out, p.Label()+" "+p.Name)
	}
	assert.Contains(t, out, "PASS")
	assert.Contains(t, out, "FAIL")
}

func FuzzParsePrinciples(f *testing.F) {
	for _, s := range []string{"P4: FAIL — x", "**P4 (Error paths)**: FAIL", "- P4 FAIL", "### P6\n\nFAIL", "P12 ❌", "P1\xff: PASS \xfe", "P", "P1", "P99999999999999999999: PASS"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs := Parse(s)
		seen := map[int]bool{}
		for _, v := range vs {
			if v.ID < 1 || v.ID > 12 || seen[v.ID] || (v.Result != Pass && v.Result != Fail) {
				t.Fatalf("bad verdict %+v", v)
			}
			seen[v.ID] = true
		}
	})
}
