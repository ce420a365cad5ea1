package converge

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/internal/lazyre"
)

// Dimension is one axis of the quality score.
type Dimension struct {
	Name   string // as the critique writes it, e.g. "Approach soundness"
	Weight int    // percent; the weights add up to 100
}

// Dimensions are the six scored axes in the order the critique lists them.
var Dimensions = []Dimension{
	{"Approach soundness", 25},
	{"Risk coverage", 20},
	{"Assumption validity", 15},
	{"Integration feasibility", 15},
	{"Unknowns coverage", 15},
	{"Constraint alignment", 10},
}

// Scores are the final critique's marks, each 1–10. The quality score they
// give is informational: the ledger, not the score, ends the loop.
type Scores struct {
	ApproachSoundness      int `yaml:"approach_soundness"`
	RiskCoverage           int `yaml:"risk_coverage"`
	AssumptionValidity     int `yaml:"assumption_validity"`
	IntegrationFeasibility int `yaml:"integration_feasibility"`
	UnknownsCoverage       int `yaml:"unknowns_coverage"`
	ConstraintAlignment    int `yaml:"constraint_alignment"`
}

// slots pairs each dimension (same order as Dimensions) with its field.
func (s *Scores) slots() []*int {
	return []*int{&s.ApproachSoundness, &s.RiskCoverage, &s.AssumptionValidity,
		&s.IntegrationFeasibility, &s.UnknownsCoverage, &s.ConstraintAlignment}
}

// Weighted is the weighted quality score, 1.0–10.0, rounded half up to one
// decimal. The sum is kept in integers (score × percent) so that the
// rounding is exact.
func Weighted(s Scores) float64 {
	total := 0
	for i, p := range s.slots() {
		total += *p * Dimensions[i].Weight
	}
	// total is the score × 100; one decimal means rounding total/10.
	return float64((total+5)/10) / 10
}

var (
	// The scores heading; numbering, emphasis and an emoji before the name
	// are passed over ("### **Scores**", "## 📊 Final Scores", "### 4. Scores";
	// review CP5).
	scoresHeadingRe = lazyre.New(`(?i)^#{1,6}[^\p{L}\p{N}]*(?:\d{1,2}[.)][^\p{L}\p{N}]*)?(?:final\s+|quality\s+)?(?:scores?|scoring)(?:$|[^\p{L}\p{N}])`)
	// "7/10", "7 / 10", "7", "**7**/10", "7.5/10" (the last is refused with a reason).
	markRe = lazyre.New(`^\**\s*(-?\d+(?:[.,]\d+)?)\s*\**\s*(?:/\s*10\b.*|out of 10.*|\(.*|)$`)
)

// ParseScores reads the `### Scores` section of a critique (the last one,
// when there are several): one line per dimension, `- <name>: <n>/10`. Names
// are matched ignoring case, spacing, bold and a parenthesized weight;
// markdown table rows `| <name> | <n>/10 |` work too. Every dimension must
// appear once with a whole number from 1 to 10; the error lists every
// problem at once.
func ParseScores(text string) (Scores, error) {
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if scoresHeadingRe.MatchString(strings.TrimSpace(l)) {
			start = i + 1
		}
	}
	if start < 0 {
		return Scores{}, errors.New("no `### Scores` section: add one with a `- <dimension>: <n>/10` line for each of the six dimensions")
	}
	var (
		s     Scores
		slots = s.slots()
		found = make([]int, len(Dimensions)) // line of the dimension's mark, 0 = not yet
		errs  []string
	)
	for i := start; i < len(lines); i++ {
		line := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
		if strings.HasPrefix(line, "#") {
			break
		}
		name, mark, ok := splitScoreLine(line)
		if !ok {
			continue
		}
		d := dimensionIndex(name)
		if d < 0 {
			continue
		}
		label := strings.ToLower(Dimensions[d].Name)
		if found[d] > 0 {
			errs = append(errs, fmt.Sprintf("line %d: %s is scored twice (first at line %d)", i+1, label, found[d]))
			continue
		}
		found[d] = i + 1
		m := markRe.FindStringSubmatch(mark)
		if m == nil {
			errs = append(errs, fmt.Sprintf("line %d: %s has no score; write `%s: <n>/10`", i+1, label, Dimensions[d].Name))
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > 10 {
			errs = append(errs, fmt.Sprintf("line %d: %s score %s must be a whole number from 1 to 10", i+1, label, m[1]))
			continue
		}
		*slots[d] = n
	}
	for d, line := range found {
		if line == 0 {
			errs = append(errs, fmt.Sprintf("%s is not scored", strings.ToLower(Dimensions[d].Name)))
		}
	}
	if len(errs) > 0 {
		return Scores{}, fmt.Errorf("scores: %s", strings.Join(errs, "; "))
	}
	return s, nil
}

// splitScoreLine cuts a list line or a table row into a name and a mark.
func splitScoreLine(line string) (name, mark string, ok bool) {
	if strings.HasPrefix(line, "|") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			return "", "", false
		}
		// The mark is the cell with "/10", else the first plain number:
		// tables often carry a weight column ("25%") beside the score.
		mark = ""
		for _, c := range cells[1:] {
			c = strings.TrimSpace(strings.Trim(strings.TrimSpace(c), "*"))
			if strings.Contains(c, "/") {
				return cells[0], c, true
			}
			if mark == "" && c != "" && !strings.ContainsAny(c, "%") {
				mark = c
			}
		}
		return cells[0], mark, true
	}
	line = strings.TrimLeft(line, "-*+ \t")
	// A numbered list item ("1. Approach soundness: 7/10").
	if i := strings.IndexAny(line, ".)"); i > 0 && i <= 2 && strings.Trim(line[:i], "0123456789") == "" {
		line = line[i+1:]
	}
	i := strings.IndexAny(line, ":=")
	if i < 0 {
		return "", "", false
	}
	return line[:i], strings.TrimSpace(strings.Trim(strings.TrimSpace(line[i+1:]), "*")), true
}

// dimensionIndex matches a written name to a dimension: letters only,
// lower-cased, a parenthesized part such as "(25%)" dropped.
func dimensionIndex(name string) int {
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = name[:i]
	}
	key := lettersOnly(name)
	for i, d := range Dimensions {
		if key == lettersOnly(d.Name) {
			return i
		}
	}
	return -1
}

func lettersOnly(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
