package converge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const scoresList = `### Scores
- Approach soundness: 7/10
- Risk coverage: 6/10
- Assumption validity: 5/10
- Integration feasibility: 8/10
- Unknowns coverage: 4/10
- Constraint alignment: 9/10
`

func TestParseScores(t *testing.T) {
	want := Scores{7, 6, 5, 8, 4, 9}
	tests := []struct {
		name string
		in   string
		want Scores
		err  string // substring; empty = no error
	}{
		{"plain list", "critique text\n\n" + scoresList, want, ""},
		{"tolerant case, spacing, bold, weights, numbering",
			"## SCORES\n1. **APPROACH SOUNDNESS** (25%): **7** / 10\n* risk   coverage : 6\n- Assumption-validity: 5/10 — shaky\n- integration feasibility = 8 out of 10\n- Unknowns Coverage: 4/10\n- Constraint alignment(10%): 9/10\n",
			want, ""},
		{"markdown table with a weight column",
			"### Final scores\n| Dimension | Weight | Score |\n|---|---|---|\n| Approach soundness | 25% | 7/10 |\n| Risk coverage | 20% | 6 |\n| Assumption validity | 15% | 5 |\n| Integration feasibility | 15% | 8 |\n| Unknowns coverage | 15% | 4 |\n| Constraint alignment | 10% | 9 |\n",
			want, ""},
		{"a bold, numbered or decorated heading", "### **Scores**\n- Approach soundness: 1/10\n\n## 📊 4. Final Scores\n" + scoresList[len("### Scores\n"):], want, ""},
		{"a bold heading alone", "## __Scoring__\n" + scoresList[len("### Scores\n"):], want, ""},
		{"the last scores section wins", "### Scores\n- Approach soundness: 1/10\n\n" + scoresList, want, ""},
		{"lines after the next heading are not scores", scoresList + "### Notes\n- Approach soundness: 2/10\n", want, ""},
		{"no section", "- Approach soundness: 7/10", Scores{}, "no `### Scores` section"},
		{"missing dimensions are named", "### Scores\n- Approach soundness: 7/10\n", Scores{},
			"risk coverage is not scored; assumption validity is not scored; integration feasibility is not scored; unknowns coverage is not scored; constraint alignment is not scored"},
		{"out of range", "### Scores\n- Approach soundness: 11/10\n- Risk coverage: 0/10\n", Scores{},
			"line 2: approach soundness score 11 must be a whole number from 1 to 10; line 3: risk coverage score 0 must be"},
		{"fractions are refused", "### Scores\n- Approach soundness: 7.5/10\n", Scores{}, "approach soundness score 7.5 must be a whole number"},
		{"no number", "### Scores\n- Approach soundness: good\n", Scores{}, "line 2: approach soundness has no score"},
		{"scored twice", "### Scores\n- Risk coverage: 6/10\n- risk coverage: 7/10\n", Scores{}, "line 3: risk coverage is scored twice (first at line 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseScores(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestWeighted(t *testing.T) {
	tests := []struct {
		name string
		s    Scores
		want float64
	}{
		{"all ones", Scores{1, 1, 1, 1, 1, 1}, 1.0},
		{"all tens", Scores{10, 10, 10, 10, 10, 10}, 10.0},
		{"mixed", Scores{7, 6, 5, 8, 4, 9}, 6.4},                      // 175+120+75+120+60+90 = 640
		{"approach weighs a quarter", Scores{10, 1, 1, 1, 1, 1}, 3.3}, // 250+75 = 325 rounds half up
		{"constraint weighs a tenth", Scores{1, 1, 1, 1, 1, 10}, 1.9}, // 90+100 = 190
		{"rounds down below the half", Scores{2, 1, 1, 1, 1, 1}, 1.3}, // 50+75 = 125 -> 1.25 -> 1.3
		{"risk weighs a fifth", Scores{1, 3, 1, 1, 1, 1}, 1.4},        // 100+40 = 140
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Weighted(tt.s))
		})
	}
	sum := 0
	for _, d := range Dimensions {
		sum += d.Weight
	}
	assert.Equal(t, 100, sum)
}

func FuzzParseScores(f *testing.F) {
	f.Add(scoresList)
	f.Add("## scores\n| a | b |\n|\n| Risk coverage | 25% | 7/10 |\n1) x: 3")
	f.Add("### Scores\n- Approach soundness: 99999999999999999999/10\n- : \n= \n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseScores(in)
		if err != nil {
			return
		}
		for i, p := range s.slots() {
			if *p < 1 || *p > 10 {
				t.Fatalf("%s = %d accepted", Dimensions[i].Name, *p)
			}
		}
		if w := Weighted(s); w < 1 || w > 10 {
			t.Fatalf("weighted %v out of range", w)
		}
	})
}
