package gate

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Verdict
	}{
		{"pass", "### VERDICT: PASS\n**Reason**: All HIGH and MEDIUM findings covered.", Verdict{Pass: true, Reason: "All HIGH and MEDIUM findings covered."}},
		{"fail names uncovered findings once each", "### VERDICT: FAIL\n**Reason**: FINDING-2 and finding-5 are not covered; FINDING-2 matters most.", Verdict{Reason: "FINDING-2 and finding-5 are not covered; FINDING-2 matters most.", Refs: []int{2, 5}}},
		{"reason over several lines, stopped by a heading", "### VERDICT: FAIL\n**Reason**:\n- FINDING-1: no gap\n- FINDING-3: no gap\n### Notes\nFINDING-9", Verdict{Reason: "- FINDING-1: no gap\n- FINDING-3: no gap", Refs: []int{1, 3}}},
		{"bold verdict word and bold colon", "### Verdict: **pass**\n**Reason:** fine", Verdict{Pass: true, Reason: "fine"}},
		{"reason before verdict", "**Reason**: FINDING-1 uncovered\n### VERDICT: FAIL", Verdict{Reason: "FINDING-1 uncovered", Refs: []int{1}}},
		{"repeated agreeing verdict", "### VERDICT: PASS\n**Reason**: ok\n### VERDICT: PASS", Verdict{Pass: true, Reason: "ok"}},
		{"ids with a non-breaking hyphen (review CP6)", "### VERDICT: FAIL\n**Reason**: FINDING\u20112 and FINDING\u20113 are uncovered", Verdict{Reason: "FINDING\u20112 and FINDING\u20113 are uncovered", Refs: []int{2, 3}}},
		{"a bold heading (review CP6)", "### **VERDICT: FAIL**\n**Reason**: FINDING-1", Verdict{Reason: "FINDING-1", Refs: []int{1}}},
		{"a bold word and heading name", "### **Verdict**: __PASS__\n**Reason**: ok", Verdict{Pass: true, Reason: "ok"}},
		{"FINDING-12 is not FINDING-1", "### VERDICT: FAIL\n**Reason**: FINDING-12", Verdict{Reason: "FINDING-12", Refs: []int{12}}},
		// Review DC8: a mark after the verdict, and a plain "Reason:", as
		// models write reviews.
		{"a check mark", "### Verdict: PASS ✅\n**Reason**: ok", Verdict{Pass: true, Reason: "ok"}},
		{"a cross mark", "### VERDICT: **FAIL** ❌\n**Reason**: FINDING-1", Verdict{Reason: "FINDING-1", Refs: []int{1}}},
		{"a plain reason label", "### VERDICT: PASS\nReason: ok", Verdict{Pass: true, Reason: "ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseVerdict(tt.text)
			require.NoError(t, err)
			assert.Equal(t, tt.want, v)
		})
	}
}

func TestParseVerdictErrors(t *testing.T) {
	tests := []struct {
		name        string
		text        string
		unparseable bool
		want        string
	}{
		{"empty", "", true, "### VERDICT"},
		{"no verdict line", "Everything is covered.\n**Reason**: yes", true, "### VERDICT"},
		{"no reason", "### VERDICT: PASS\nAll good.", true, "**Reason**"},
		{"unknown word", "### VERDICT: MAYBE\n**Reason**: hmm", false, `line 1: verdict "MAYBE" is neither PASS nor FAIL`},
		{"contradicting verdicts", "### VERDICT: PASS\n**Reason**: ok\n### VERDICT: FAIL", false, "line 3: a second verdict contradicts the one on line 1"},
		{"a mark against the word", "### VERDICT: PASS ❌\n**Reason**: FINDING-2 is not covered", false, "line 1: the verdict PASS carries the opposite mark"},
		{"another cross against the word", "### VERDICT: PASS ✗\n**Reason**: FINDING-2 is not covered", false, "line 1: the verdict PASS carries the opposite mark"}, // review EB
		{"words after the verdict", "### VERDICT: PASS — but FINDING-2 is not covered\n**Reason**: ok", true, "### VERDICT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseVerdict(tt.text)
			require.Error(t, err)
			assert.Equal(t, tt.unparseable, errors.Is(err, ErrUnparseable))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
