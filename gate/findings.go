package gate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/internal/lazyre"
)

// Finding is one issue the critic reported.
type Finding struct {
	ID          int    `yaml:"id" json:"id"`
	Title       string `yaml:"title" json:"title"`
	Severity    string `yaml:"severity" json:"severity"` // high, medium or low
	Description string `yaml:"description" json:"description"`
	Line        int    `yaml:"-" json:"-"` // of its heading in the critic output
}

// Label is the finding's id as the critic writes it, e.g. "FINDING-2".
func (f Finding) Label() string { return "FINDING-" + strconv.Itoa(f.ID) }

// Counts is a number of findings per severity.
type Counts struct {
	High   int `yaml:"high" json:"high"`
	Medium int `yaml:"medium" json:"medium"`
	Low    int `yaml:"low" json:"low"`
}

// Findings is a parsed critic output. NoIssues is true only when the critic
// declared "### NO ISSUES FOUND" and reported no findings.
type Findings struct {
	NoIssues bool
	Items    []Finding
}

// Counts tallies the findings by severity.
func (f Findings) Counts() Counts {
	var c Counts
	for _, it := range f.Items {
		switch it.Severity {
		case High:
			c.High++
		case Medium:
			c.Medium++
		case Low:
			c.Low++
		}
	}
	return c
}

// Serious returns the high and medium findings, in order.
func (f Findings) Serious() []Finding {
	var out []Finding
	for _, it := range f.Items {
		if it.Severity == High || it.Severity == Medium {
			out = append(out, it)
		}
	}
	return out
}

// ByID returns the finding with id n.
func (f Findings) ByID(n int) (Finding, bool) {
	for _, it := range f.Items {
		if it.ID == n {
			return it, true
		}
	}
	return Finding{}, false
}

// ErrUnparseable marks output that lacks the structural markers a parser
// needs; the gate answers it with one re-run of the sub-agent.
var ErrUnparseable = errors.New("output has none of the required markers")

var (
	// A critic's headings, as the prompt gives them or bold as a whole
	// ("### **FINDING-1: title**", "### **NO ISSUES FOUND**"): an output read
	// as unparseable is run again and then fails the gate closed (review
	// CP6). The level stays exact.
	findingHeadingRe = lazyre.New(`^###\s+[*_]*(?i:finding)` + hyphen + `(\d+)[*_]*\s*:\s*(.*?)[*_\s]*$`)
	noIssuesRe       = lazyre.New(`^###\s+[*_]*(?i:no issues found)[*_]*\s*\.?[*_]*$`)
)

// ParseFindings parses a critic's output: "### FINDING-<n>: <title>" blocks,
// each with "- **Severity**: high|medium|low" and "- **Description**: ...",
// or the explicit declaration "### NO ISSUES FOUND". Text with neither
// marker gives an error wrapping ErrUnparseable; findings that lack a
// severity or description, carry an unknown severity or repeat an id give a
// *FormatError. When both findings and the declaration appear, the findings
// win: they can only make the gate stricter. Headings other than findings
// are allowed (critics like to add a summary).
//
// The client's hand-back frame around a copied report is tolerated (Unframe).
func ParseFindings(text string) (Findings, error) {
	text = Unframe(text)
	lines := scan(text)
	// Critic output is not a plan: fences and markers carry no meaning in
	// it, so every line is read as text.
	for i := range lines {
		lines[i].Kind = kindText
	}
	var f Findings
	found := false
	noIssues := false
	for _, l := range lines {
		t := strings.TrimSpace(l.Text)
		if findingHeadingRe.MatchString(t) {
			found = true
		} else if bare, mark := cutMark(t); mark != "fail" && noIssuesRe.MatchString(bare) {
			noIssues = true // "### NO ISSUES FOUND ✅" too (review DC8)
		}
	}
	if !found && !noIssues {
		return f, fmt.Errorf("critic output: %w: expected \"### FINDING-<n>: <title>\" blocks or \"### NO ISSUES FOUND\"", ErrUnparseable)
	}
	if !found {
		f.NoIssues = true
		return f, nil
	}
	items, probs := parseItems(lines, "FINDING", findingHeadingRe, false)
	for _, it := range items {
		f.Items = append(f.Items, Finding(it))
	}
	return f, joinProblems("critic output", probs)
}
