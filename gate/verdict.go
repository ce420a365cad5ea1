package gate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/internal/lazyre"
)

// Verdict is a parsed validator output.
type Verdict struct {
	Pass   bool
	Reason string
	// Refs are the FINDING-<n> ids the reason names, in order of first
	// mention; on FAIL they are the findings the validator says are
	// uncovered.
	Refs []int
}

var (
	// The verdict heading, also bold as a whole ("### **VERDICT: FAIL**";
	// review CP6).
	verdictRe = lazyre.New(`^###\s+[*_]*(?i:verdict)[*_]*\s*:\s*[*_]*\s*([A-Za-z]+)\s*[*_]*\s*\.?[*_]*$`)
	reasonRe  = lazyre.New(`^\*\*(?i:reason)\*\*\s*:\s*(.*)$|^(?:\*\*)?(?i:reason):(?:\*\*)?\s*(.*)$`)
	refRe     = lazyre.New(`(?i)\bFINDING` + hyphen + `(\d+)\b`)
)

// ParseVerdict parses a validator's output: one "### VERDICT: PASS" or
// "### VERDICT: FAIL" line and a "**Reason**: ..." that may run over the
// following lines up to the next heading. Text without a verdict line or
// without a reason gives an error wrapping ErrUnparseable; a verdict word
// other than PASS or FAIL, or two verdict lines that disagree, give a
// *FormatError.
//
// The client's hand-back frame around a copied report is tolerated (Unframe).
func ParseVerdict(text string) (Verdict, error) {
	text = Unframe(text)
	var v Verdict
	var probs []Problem
	verdictLine, reasonLine := 0, 0
	var reason []string
	inReason := false
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		t := strings.TrimSpace(raw)
		bare, mark := cutMark(t)
		if m := verdictRe.FindStringSubmatch(bare); m != nil {
			inReason = false
			var pass bool
			switch strings.ToUpper(m[1]) {
			case "PASS":
				pass = true
			case "FAIL":
			default:
				probs = append(probs, Problem{n, fmt.Sprintf("verdict %q is neither PASS nor FAIL", m[1]),
					"write exactly \"### VERDICT: PASS\" or \"### VERDICT: FAIL\""})
				continue
			}
			if mark != "" && (mark == "pass") != pass {
				probs = append(probs, Problem{n, fmt.Sprintf("the verdict %s carries the opposite mark", strings.ToUpper(m[1])),
					"write exactly \"### VERDICT: PASS\" or \"### VERDICT: FAIL\", with no mark after it"})
				continue
			}
			if verdictLine != 0 && pass != v.Pass {
				probs = append(probs, Problem{n, fmt.Sprintf("a second verdict contradicts the one on line %d", verdictLine),
					"give exactly one verdict"})
				continue
			}
			if verdictLine == 0 {
				verdictLine, v.Pass = n, pass
			}
			continue
		}
		if m := reasonRe.FindStringSubmatch(t); m != nil && reasonLine == 0 {
			reasonLine = n
			reason = append(reason, strings.TrimSpace(m[1]+m[2]))
			inReason = true
			continue
		}
		if inReason {
			if strings.HasPrefix(t, "#") {
				inReason = false
				continue
			}
			reason = append(reason, t)
		}
	}
	if verdictLine == 0 && len(probs) == 0 {
		return v, fmt.Errorf("validator output: %w: expected \"### VERDICT: PASS\" or \"### VERDICT: FAIL\"", ErrUnparseable)
	}
	if reasonLine == 0 {
		return v, fmt.Errorf("validator output: %w: expected a \"**Reason**: ...\" line", ErrUnparseable)
	}
	if err := joinProblems("validator output", probs); err != nil {
		return v, err
	}
	v.Reason = strings.TrimSpace(strings.Join(reason, "\n"))
	seen := map[int]bool{}
	for _, m := range refRe.FindAllStringSubmatch(v.Reason, -1) {
		id, err := strconv.Atoi(m[1])
		if err != nil || seen[id] {
			continue
		}
		seen[id] = true
		v.Refs = append(v.Refs, id)
	}
	return v, nil
}

// cutMark removes a check or cross mark after a verdict line ("### Verdict:
// PASS ✅", as models write reviews) and says which it was: "pass", "fail"
// or "" for none. Such a verdict was unreadable, and the second time the
// assessment failed closed over a plain PASS (review DC8).
func cutMark(t string) (string, string) {
	trimmed := strings.TrimRight(t, " \t\ufe0f")
	for _, m := range []struct{ mark, means string }{
		{"✅", "pass"}, {"✔", "pass"}, {"✓", "pass"}, {"☑", "pass"},
		{"❌", "fail"}, {"✗", "fail"}, {"✘", "fail"}, {"🚫", "fail"}, {"⛔", "fail"},
	} {
		if rest, ok := strings.CutSuffix(trimmed, m.mark); ok {
			return strings.TrimRight(rest, " \t"), m.means
		}
	}
	return t, ""
}
