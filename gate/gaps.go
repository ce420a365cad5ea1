package gate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/plansmith/plansmith/internal/lazyre"
	"github.com/plansmith/plansmith/internal/mdtext"
	"github.com/plansmith/plansmith/templates"
)

// Severities, lowercase as they are written in gaps and findings.
const (
	High   = "high"
	Medium = "medium"
	Low    = "low"
)

// Gap is one item of the gaps block.
type Gap struct {
	ID          int    `yaml:"id" json:"id"`
	Title       string `yaml:"title" json:"title"`
	Severity    string `yaml:"severity" json:"severity"` // high, medium or low
	Description string `yaml:"description" json:"description"`
	Line        int    `yaml:"line,omitempty" json:"line,omitempty"` // of its heading, 1-based
}

// Label is the gap's id as written in a plan, e.g. "GAP-3".
func (g Gap) Label() string { return "GAP-" + strconv.Itoa(g.ID) }

// Markdown is the gap as it stands in a gaps block, each line ended by nl.
func (g Gap) Markdown(nl string) string {
	return "### " + g.Label() + ": " + g.Title + nl +
		"- **Severity**: " + g.Severity + nl +
		"- **Description**: " + g.Description + nl
}

// Gaps is what ParseGaps found. Present with no Items is a claim that the
// plan has no known gaps.
type Gaps struct {
	Present bool
	Start   int // line of the start marker, 0 when absent
	End     int // line of the end marker, 0 when absent
	Items   []Gap
}

// ErrNoGapsBlock is returned (wrapped) by functions that need a gaps block
// when the plan has none. ParseGaps itself reports a missing block as
// Gaps{Present: false} with no error.
var ErrNoGapsBlock = errors.New("the plan has no gaps block")

// Problem is one thing wrong with a block the agent wrote, located and with
// the remedy, so a message can tell the agent exactly what to change.
type Problem struct {
	Line int    // 1-based; 0 when the problem has no single line
	What string // what is wrong
	Fix  string // how to fix it
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s; %s", p.Line, p.What, p.Fix)
	}
	return fmt.Sprintf("%s; %s", p.What, p.Fix)
}

// FormatError lists every problem found in one parse.
type FormatError struct {
	Subject  string // "gaps block", "critic output", ...
	Problems []Problem
}

func (e *FormatError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return fmt.Sprintf("malformed %s: %s", e.Subject, strings.Join(parts, "; "))
}

// hyphen matches the "-" of an id ("GAP-1", "FINDING-2") as models type it:
// the ASCII hyphen-minus, or a hyphen, non-breaking hyphen (U+2011, which
// some models write for every hyphen), figure dash, minus sign, small or
// fullwidth hyphen-minus. They look the same in the refusal that shows the
// form, so one typed for the other must not make an item vanish (review CP6).
const hyphen = `[-\x{2010}-\x{2012}\x{2212}\x{FE63}\x{FF0D}]`

// unicodeHyphens are the same hyphens as a string, and hyphenFold writes
// them as "-", for text that is compared rather than matched.
const unicodeHyphens = "\u2010\u2011\u2012\u2212\ufe63\uff0d"

var hyphenFold = strings.NewReplacer("\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2212", "-", "\ufe63", "-", "\uff0d", "-")

var (
	gapHeadingRe = lazyre.New(`^###\s+(?i:gap)` + hyphen + `(\d+)\s*:\s*(.*)$`)
	anyHeadingRe = lazyre.New(`^#{1,6}\s`)
	// fieldRe accepts "- **Severity**: x", "- **Severity:** x" and
	// "- Severity: x": models vary the bold, never the meaning; and the bold
	// name without its bullet ("**Severity:** x"), which they write as often
	// and which the refusal's "- **Severity**:" did not show them the
	// difference from (review CP9).
	fieldRe = lazyre.New(`^(?:[-*+]\s+\*{0,2}|\*\*)(?i:(severity|description))\*{0,2}\s*:\s*\*{0,2}\s*(.*)$`)
	// listMarkerRe opens a list item, a table row or a quote.
	listMarkerRe = lazyre.New(`^(?:[-*+•–—·]\s+|\(?\d{1,3}[.)]\s+|\(?[a-z][.)]\s+|\||>\s*)`)
	// misshapenGap opens a line with a gap's id in a shape other than its
	// heading: after a list marker, a table's pipe, a quote, any number of
	// #, emphasis, or nothing; the id followed as a heading's is (":", ".",
	// a parenthesis, a dash, a pipe, emphasis or the end), so that prose
	// opening with one ("GAP-1, but …") stays prose (review BB5).
	misshapenGap = lazyre.New(`^(?:[-*+•–—·]\s+|\d{1,3}[.)]\s+|\|\s*|>\s*|#{1,6}\s*)?[*_]*\s*(?i:gap)(?: |` + hyphen + `)?\d+\s*(?:[:.()|*_\-–—]|$)`)
	// gapLikeRe names a gap's id or a severity anywhere in a line.
	gapLikeRe = lazyre.New(`(?i)\bgap(?: |` + hyphen + `)?\d|\bseverity\b|\((?:high|medium|low)\)`)
)

// ParseGaps finds and parses the gaps block of plan. A plan without a block
// gives Gaps{Present: false} and no error. A malformed block gives a
// *FormatError naming each offending line, what is wrong and how to fix it:
// an unclosed start marker, an end marker without a start, a second block, a
// heading that is not "### GAP-<n>: <title>", a duplicate id, a missing or
// unknown severity, a missing description, a gap that says nothing
// (hollowGap), or a gap heading outside the block.
func ParseGaps(plan string) (Gaps, error) {
	var g Gaps
	var probs []Problem
	var body []line
	var outside []Problem
	blocks := 0
	for _, l := range scan(plan) {
		switch l.Kind {
		case kindGapsStart:
			blocks++
			if blocks == 1 {
				g.Start = l.N
			} else {
				probs = append(probs, Problem{l.N, "a second gaps block starts here",
					"keep a single block: move these gaps into the first block and delete these markers"})
			}
		case kindGapsEnd:
			if blocks == 1 {
				g.End = l.N
			}
		case kindStrayEnd:
			probs = append(probs, Problem{l.N, "end marker " + GapsEnd + " without a start marker before it",
				"put " + GapsStart + " on its own line before the gaps, or delete this line"})
		case kindText:
			if gapHeadingRe.MatchString(strings.TrimSpace(l.Text)) {
				// A gap written outside the block is plan text: the
				// critic reads it and the validator never does, so the
				// block claimed none and the plan failed on findings it
				// had documented, with no word of why (review DC6).
				outside = append(outside, Problem{l.N, "a gap outside the gaps block",
					"move it between " + GapsStart + " and " + GapsEnd + "; only gaps inside the block count, and the critic must not see them"})
			}
		case kindGapsBody:
			if blocks == 1 {
				body = append(body, l)
			}
			if strings.TrimSpace(l.Text) == GapsStart {
				probs = append(probs, Problem{l.N, "start marker inside an open gaps block",
					"close the block with " + GapsEnd + " before starting another, or delete this line"})
			}
		}
	}
	if blocks == 0 {
		return g, joinProblems("gaps block", probs)
	}
	probs = append(probs, outside...)
	g.Present = true
	if g.End == 0 {
		probs = append(probs, Problem{g.Start, "gaps block is never closed",
			"add " + GapsEnd + " on its own line after the last gap"})
	}
	items, itemProbs := parseItems(body, "GAP", gapHeadingRe, true)
	probs = append(probs, itemProbs...)
	if len(items) == 0 && len(itemProbs) == 0 {
		// No gap, but a list, a table or a quote: gaps written in some
		// other shape would be read as none, and the critic's findings
		// judged uncovered (reviews AU2, AV4). A sentence saying there are
		// none stays none.
		for _, l := range body {
			if t := strings.TrimSpace(l.Text); listedLine(t) {
				probs = append(probs, Problem{l.N, fmt.Sprintf("the gaps block holds %q but no gap plansmith can read", templates.OneLine(t, 60)),
					"write each gap as ### GAP-<n>: <title> with \"- **Severity**: high|medium|low\" and \"- **Description**: …\" lines below it, or leave the block empty when there are none"})
				break
			}
		}
	}
	for _, it := range items {
		g.Items = append(g.Items, Gap(it))
		probs = append(probs, hollowGap(it)...)
	}
	return g, joinProblems("gaps block", probs)
}

// itemIDRe is an item's id as a gap may name one: its own kind's or the
// critic's ("GAP-2", "FINDING-1", "Finding 3").
var itemIDRe = lazyre.New(`(?i)\b(?:gap|finding)(?: |` + hyphen + `)?\d+\b`)

// hollowGap says what is wrong with a gap whose title or description says
// nothing: a placeholder ("TBD", "<describe>") or only ids ("FINDING-1").
// Such a gap documents no concern, yet it made the block non-empty, and a
// validator's PASS over high findings stood on it, where against an empty
// block it is overruled (review DC2).
func hollowGap(it item) []Problem {
	var probs []Problem
	for _, f := range []struct{ name, text, fix string }{
		{"title", it.Title, "name the concern in a few words: ### GAP-<n>: <what is missing or uncertain>"},
		{"description", it.Description, "say what is missing or uncertain and why it matters"},
	} {
		if f.text == "" || mdtext.SaysSomething(itemIDRe.Regexp().ReplaceAllString(f.text, "")) {
			continue // an empty one is reported as missing
		}
		probs = append(probs, Problem{it.Line, fmt.Sprintf("GAP-%d's %s, %q, says nothing: a placeholder or an id documents no gap", it.ID, f.name, templates.OneLine(f.text, 40)),
			f.fix + ", or delete the gap (an empty block claims none)"})
	}
	return probs
}

func joinProblems(subject string, probs []Problem) error {
	if len(probs) == 0 {
		return nil
	}
	return &FormatError{Subject: subject, Problems: probs}
}

// continuesText reports whether t, inside a description, reads as more of
// it rather than a line of its own: no list marker, heading or table pipe
// opens it.
func continuesText(t string) bool {
	return !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "|") && listMarkerRe.FindString(t) == ""
}

// listedLine reports whether t reads as a gap written in a shape plansmith
// does not read: a line naming a gap's id or a severity (reviews AV4,
// AX2: "GAP-1: …", "**GAP-1 (medium)**"), or a list item, a table row or a
// quote ("- …", "1. …", "(1) …", "| … |", "> …", "• …", "– …") — unless it
// says there is nothing to list ("- None", "- (none)", "- No significant
// gaps identified", "All findings were addressed"; review AX3).
func listedLine(t string) bool {
	lower := strings.ToLower(t)
	m := listMarkerRe.FindString(t)
	if m == "" && !gapLikeRe.MatchString(t) {
		return false
	}
	rest := strings.Trim(lower[len(m):], " *_|[]()")
	for _, none := range []string{"none", "n/a", "nothing", "all "} {
		if strings.HasPrefix(rest, none) {
			return false
		}
	}
	for _, none := range []string{"no known", "no gaps", "no significant", "no open", "no remaining", "no other", "no further"} {
		if strings.Contains(rest, none) {
			return false
		}
	}
	return rest != "" && strings.Trim(rest, "-:| ") != ""
}

// item is the shared shape of a gap and a finding.
type item struct {
	ID          int
	Title       string
	Severity    string
	Description string
	Line        int
}

// parseItems reads "### <PREFIX>-<n>: title" items with Severity and
// Description fields. A description may continue on following lines until a
// blank line, another field or a heading. With strictHeadings, any other
// heading in the lines is a problem (inside a gaps block it is almost surely
// a gap written in the wrong form, which would otherwise vanish silently).
func parseItems(lines []line, prefix string, heading *lazyre.Regexp, strictHeadings bool) ([]item, []Problem) {
	var items []item
	var probs []Problem
	seen := map[int]int{}
	cur := -1
	inDesc := false
	var sevLine, descLine []int
	more := map[int][]string{} // per item, the description's further lines
	format := "### " + prefix + "-<n>: <title>"
	for _, l := range lines {
		t := strings.TrimSpace(l.Text)
		if l.Code && prefix == "GAP" {
			// A code sample in a gap's description: its "# comment" is
			// no heading (review BA4), and it ends the description's text.
			// (A critic may fence its whole output: findings are read
			// inside a fence.)
			inDesc = false
			continue
		}
		if m := heading.FindStringSubmatch(t); m != nil {
			inDesc = false
			id, err := strconv.Atoi(m[1])
			if err != nil || id < 1 {
				probs = append(probs, Problem{l.N, fmt.Sprintf("%s id %q is not a positive number", prefix, m[1]),
					"number items " + prefix + "-1, " + prefix + "-2, ..."})
				cur = -1
				continue
			}
			title := strings.TrimSpace(m[2])
			if title == "" {
				probs = append(probs, Problem{l.N, fmt.Sprintf("%s-%d has no title", prefix, id),
					"write a short title after the colon: " + format})
			}
			if first, dup := seen[id]; dup {
				probs = append(probs, Problem{l.N, fmt.Sprintf("%s-%d is used twice (first on line %d)", prefix, id, first),
					"give this item the next unused number"})
			}
			seen[id] = l.N
			items = append(items, item{ID: id, Title: title, Line: l.N})
			sevLine = append(sevLine, 0)
			descLine = append(descLine, 0)
			cur = len(items) - 1
			continue
		}
		if strictHeadings && misshapenGap.MatchString(t) && (!inDesc || !continuesText(t)) {
			// A gap written in another shape ("### GAP 2", "**GAP-2: …**",
			// "- GAP-3: …") would vanish: a gap never counted (review BA5).
			// A wrapped description line that starts with an id stays
			// text (review BC3). A finding in another shape is caught by
			// its fields, and by the verdict (judge): a critic's summary
			// lines name its findings freely.
			inDesc = false
			probs = append(probs, Problem{l.N, fmt.Sprintf("%q names %s item in a shape plansmith does not read", templates.OneLine(t, 60), prefix),
				"write each item under its own heading, " + format + ", with \"- **Severity**: high|medium|low\" and \"- **Description**: …\" lines below it"})
			cur = -1
			continue
		}
		if anyHeadingRe.MatchString(t) {
			inDesc = false
			if strictHeadings {
				probs = append(probs, Problem{l.N, fmt.Sprintf("heading %q is not an item heading", t),
					"write each item as " + format + " (three #, the id, a colon, the title)"})
			}
			cur = -1
			continue
		}
		if m := fieldRe.FindStringSubmatch(t); m != nil {
			inDesc = false
			name := strings.ToLower(m[1])
			if cur < 0 {
				// Under a heading not in the item's form: an item plansmith
				// cannot read, which must not vanish (review BB3: "###
				// [HIGH] FINDING-2" was dropped, and the gate passed). Before
				// the first finding a critic's legend of severities is no
				// item (BC4); a description there is (BD3).
				if strictHeadings || len(items) > 0 || name == "description" {
					probs = append(probs, Problem{l.N, name + " line outside any item",
						"put it under its item heading " + format})
				}
				continue
			}
			it := &items[cur]
			switch name {
			case "severity":
				if sevLine[cur] != 0 {
					probs = append(probs, Problem{l.N, fmt.Sprintf("%s-%d has a second severity", prefix, it.ID),
						"keep one severity line per item"})
					continue
				}
				sevLine[cur] = l.N
				sev, ok := parseSeverity(m[2])
				if ok && prefix == "GAP" && !exactSeverity(m[2]) {
					// A gap's severity is the agent's to write as asked;
					// a refusal costs one answer. A critic's is not
					// (its re-run is the same prompt), so its words are
					// read (review DC9).
					ok = false
				}
				if !ok {
					probs = append(probs, Problem{l.N, fmt.Sprintf("%s-%d has severity %q", prefix, it.ID, strings.TrimSpace(m[2])),
						"use exactly one of high, medium, low"})
				}
				it.Severity = sev
			case "description":
				if descLine[cur] != 0 {
					probs = append(probs, Problem{l.N, fmt.Sprintf("%s-%d has a second description", prefix, it.ID),
						"merge them into one description line"})
					continue
				}
				descLine[cur] = l.N
				it.Description = strings.TrimSpace(m[2])
				inDesc = true
			}
			continue
		}
		if t == "" || mdtext.OpensFence(t) {
			inDesc = false // a blank line or a code fence ends a description
			continue
		}
		if inDesc && cur >= 0 {
			// Joined once at the end: adding each line to the whole so far
			// took the square of a long description's length (review BF1).
			more[cur] = append(more[cur], t)
		}
		// Any other prose is tolerated: it changes no item.
	}
	for i := range items {
		if len(more[i]) > 0 {
			items[i].Description = strings.TrimSpace(items[i].Description + " " + strings.Join(more[i], " "))
		}
	}
	for i, it := range items {
		if sevLine[i] == 0 && prefix != "GAP" {
			// A critic that rates in the heading ("### FINDING-2: No
			// rollback (HIGH)", "[SEVERITY: HIGH]") said it (review DC9).
			if m := headingSeverityRe.FindStringSubmatch(it.Title); m != nil {
				if sev, ok := parseSeverity(m[1]); ok {
					items[i].Severity, sevLine[i] = sev, it.Line
				}
			}
		}
		if sevLine[i] == 0 {
			probs = append(probs, Problem{it.Line, fmt.Sprintf("%s-%d has no severity", prefix, it.ID),
				"add a line \"- **Severity**: high|medium|low\" under its heading"})
		}
		if it.Description == "" {
			probs = append(probs, Problem{it.Line, fmt.Sprintf("%s-%d has no description", prefix, it.ID),
				"add a line \"- **Description**: <what is missing or uncertain>\" under its heading"})
		}
	}
	return items, probs
}

// parseSeverity reads the first word of a severity value, forgiving case,
// bold, a marker before it ("🔴 high", review CP9) and trailing words
// ("**High** – blocks rollout"). A range ("Medium-High", "medium/high",
// "Medium to High"), as reviews often rate, is its higher end: a critic's
// range was unreadable, and after its one re-run the assessment failed
// closed (review DC9); the higher end only makes the gate stricter.
func parseSeverity(v string) (string, bool) {
	f := strings.Fields(strings.ToLower(v))
	for len(f) > 1 && !strings.ContainsFunc(f[0], unicode.IsLetter) {
		f = f[1:]
	}
	if len(f) == 0 {
		return "", false
	}
	trim := func(w string) string { return strings.Trim(w, "*_`.,;:()[]") }
	w := trim(f[0])
	if lo, hi, ok := strings.Cut(rangeJoin.Replace(hyphenFold.Replace(w)), "-"); ok {
		if _, isSev := severityRank[hi]; !isSev {
			hi = lo // "high-impact", "low-risk": one severity, qualified
		}
		return severityRange(lo, hi)
	}
	if lo, hi, ok := strings.Cut(w, "/"); ok {
		return severityRange(lo, hi)
	}
	if len(f) >= 3 && (f[1] == "to" || f[1] == "or" || f[1] == "-" || f[1] == "–" || f[1] == "/") {
		if _, ok := severityRank[w]; ok {
			if _, ok := severityRank[trim(f[2])]; ok {
				return severityRange(w, trim(f[2]))
			}
		}
	}
	if _, ok := severityRank[w]; ok {
		return severityOf(w), true
	}
	return "", false
}

// headingSeverityRe is a severity given at the end of an item's title, in
// parentheses or brackets, "severity:" or not.
var headingSeverityRe = lazyre.New(`(?i)[(\[]\s*(?:severity\s*:\s*)?([a-z][a-z\s/‑-]*?)\s*[)\]]\s*$`)

// rangeJoin writes "minor-to-moderate" as "minor-moderate".
var rangeJoin = strings.NewReplacer("-to-", "-", "-or-", "-")

// severityRank orders the severities, for a range's higher end, and takes
// the words reviews rate with besides them as the severity they mean,
// a serious one at least as high: a critic's "Critical" was unreadable, and
// after its re-run the assessment failed closed (review DC9).
var severityRank = map[string]int{Low: 1, Medium: 2, High: 3,
	"critical": 3, "blocker": 3, "blocking": 3, "major": 3, "moderate": 2,
	"minor": 1, "trivial": 1, "informational": 1, "info": 1}

// exactSeverity reports whether a severity value names high, medium or
// low itself (or a range of them), not another word for one.
func exactSeverity(v string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return !unicode.IsLetter(r) }) {
		switch w {
		case High, Medium, Low:
			return true
		}
		if _, other := severityRank[w]; other {
			return false
		}
	}
	return false
}

// severityOf is the severity a word in severityRank means.
func severityOf(w string) string { return []string{"", Low, Medium, High}[severityRank[w]] }

// severityRange is the higher of two severities; false unless both are one.
func severityRange(a, b string) (string, bool) {
	a, b = severityOf(a), severityOf(b)
	ra, okA := severityRank[a]
	rb, okB := severityRank[b]
	if !okA || !okB {
		return "", false
	}
	if rb > ra {
		return b, true
	}
	return a, true
}

// LooseText returns the lines of plan's gaps block that are not a gap's
// own words, joined with "\n" ("" when there are none): whatever is not a
// gap's heading, its Severity or Description line, the description's
// wrapped prose, or a blank line. Code is always loose, a sample under a
// description included: a command is what an implementer runs. The critic
// never sees the gaps block, so text kept there beside the gaps (a step, a
// command, a paragraph after a gap) would be saved and handed on as part of
// a verified plan that no critic read (review DC1). It is shown to the
// critic with the plan (CriticInput); a gap's words never are.
func LooseText(plan string) string {
	var loose []string
	inGap, inDesc := false, false
	for _, l := range scan(plan) {
		if l.Kind != kindGapsBody {
			continue
		}
		t := strings.TrimSpace(l.Text)
		if l.Code {
			loose = append(loose, l.Text)
			inDesc = false
			continue
		}
		switch m := fieldRe.FindStringSubmatch(t); {
		case t == "":
			inDesc = false
		case gapHeadingRe.MatchString(t):
			inGap, inDesc = true, false
		case m != nil && inGap:
			inDesc = strings.EqualFold(m[1], "description")
		case inDesc && continuesText(t):
		default:
			inDesc = false
			loose = append(loose, l.Text)
		}
	}
	return strings.Join(loose, "\n")
}
