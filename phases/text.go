package phases

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/mdtext"
)

// What counts as structure in an answer, decided once for every validator
// through internal/mdtext:
//
//   - A heading is an ATX markdown heading line ("#" to "######" followed by
//     a space, indentation allowed) or a bold line: a line that is nothing but
//     one **bold** or __bold__ span, optionally followed by a colon
//     ("**Goal:**", "**Goal**:"). A bold label followed by prose on the same
//     line ("**Goal:** make it fast") is not a heading.
//   - A numbered item is a line starting with 1–3 digits and "." or ")"
//     followed by text, as a list item or inside a heading ("## 1. Problem").
//   - Lines inside fenced code blocks (CommonMark: ``` or ~~~, closed only
//     by a run at least as long) are neither: a shell comment "# Steps" in a
//     code sample is not a section.
//
// The scan reads each line once; nothing backtracks, so validators stay
// linear in the message size.

// shape is the line-level structure of a message.
type shape struct {
	headings     []string            // heading texts, raw (markers removed, not normalised)
	levels       []int               // per heading: its ATX level, 0 for a bold label
	filled       []bool              // per heading: content follows it before the next heading (see hasContent)
	gapsOnly     map[int]bool        // headings under which gaps stand: content only for a section for uncertainty (emptySections)
	numbered     int                 // numbered items
	options      map[string]struct{} // distinct option labels ("option a", "방안 2")
	checkboxes   int                 // task-list items ("- [ ] …")
	tableOptions int                 // options laid out in a comparison table (see tableShape)
	compared     bool                // a table sets options against criteria (see tableShape.compares)
	badges       int                 // README badges ("[![build](…)](…)")
	installs     int                 // install commands in code ("npm install x", "cargo install")
}

func scan(text string) shape {
	var sh shape
	var table tableShape
	var comment htmlComment
	inGaps := false
	var header func() // a first table row's content, counted unless a delimiter row follows
	for l := range mdtext.Lines(text) {
		t := strings.TrimSpace(l.Text)
		if l.Code {
			if isInstallCommand(t) {
				sh.installs++
			}
			// A command or a sample is content; a template's "<command>"
			// or "# TODO" in a code block is not (review CS).
			if n := len(sh.filled); n > 0 && !sh.filled[n-1] && !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") && hasContent(t) {
				sh.filled[n-1] = true
			}
			continue
		}
		// An HTML comment is followed everywhere, the gaps block too; it
		// ends, as CommonMark's does, on the first line holding "-->", the
		// block's end marker included (review BB6). The gaps block is the
		// gate's, not the plan's structure: its "### GAP-2: No tests" names
		// no section (review BA2).
		inComment := comment.step(l.Text)
		switch {
		case t == gate.GapsStart:
			inGaps = true
			continue
		case t == gate.GapsEnd:
			inGaps = false
			continue
		case inGaps:
			// The gaps are the gate's, but they are said under a heading:
			// a "## Risks" that holds only the gaps block has content. A
			// "## Steps" or "## Goal" that holds only gaps has none: the
			// critic never sees the block, and a plan whose Steps were
			// one gap, "steps not written", passed the gate (review DC3).
			// Whether they count is the section's to say (emptySections):
			// a heading that names Steps and Risks at once holds no steps
			// for being over gaps (review EB2).
			if n := len(sh.filled); n > 0 && !sh.filled[n-1] && hasContent(t) {
				if sh.gapsOnly == nil {
					sh.gapsOnly = map[int]bool{}
				}
				sh.gapsOnly[n-1] = true
			}
			continue
		case inComment:
			continue
		}
		sh.tableOptions = max(sh.tableOptions, table.step(t))
		// A table's header row names its columns: "| Risk | Mitigation |"
		// over "| TBD | TBD |" is a template's table, no content (review
		// CS). A row that starts a table is judged when the next line shows
		// it was no header.
		if header != nil {
			if !table.inBody || table.rows > 0 {
				header() // no delimiter row followed: the row was text
			}
			header = nil
		}
		firstRow := strings.HasPrefix(t, "|") && table.header != nil && !table.inBody
		if n := len(sh.filled); firstRow && n > 0 && !sh.filled[n-1] && rowHasContent(t) {
			header = func() { sh.filled[n-1] = true }
		}
		sh.compared = sh.compared || table.compares()
		if table.inBody && table.rows > 0 && numberedRow(t) {
			// "| 3 | P3 Interface contracts | PASS | … |": a table that
			// numbers its rows lists numbered items (review CP14).
			sh.numbered++
		}
		if t == "" {
			continue
		}
		body := t
		if level, h, ok := mdtext.Heading(t); ok {
			sh.headings, sh.levels, sh.filled = append(sh.headings, h), append(sh.levels, level), append(sh.filled, false)
			body = h
		} else if h, ok := mdtext.BoldLabel(t); ok {
			sh.headings, sh.levels, sh.filled = append(sh.headings, h), append(sh.levels, 0), append(sh.filled, false)
			body = h
		} else if n := len(sh.filled); n > 0 && !sh.filled[n-1] && !firstRow && (table.inBody && rowHasContent(t) || !table.inBody && hasContent(t) && !onlyNamesUncertainty(t)) {
			sh.filled[n-1] = true
		}
		if isNumbered(body) {
			sh.numbered++
		}
		if _, _, ok := mdtext.Checkbox(t); ok {
			sh.checkboxes++
		}
		if strings.Contains(t, "[![") {
			sh.badges++
		}
		if label, ok := optionLabel(body); ok {
			if sh.options == nil {
				sh.options = map[string]struct{}{}
			}
			sh.options[label] = struct{}{}
		}
	}
	if header != nil {
		header()
	}
	return sh
}

// rowHasContent reports whether a table row says something in one of its
// cells (hasContent): "| TBD | <mitigation> |" says nothing.
func rowHasContent(row string) bool {
	for cell := range strings.SplitSeq(strings.Trim(row, "|"), "|") {
		if hasContent(cell) {
			return true
		}
	}
	return false
}

// htmlComment follows HTML comments that span lines (CommonMark's HTML
// block that opens with "<!--" at the start of a line, indented at most
// three spaces, and ends on the line holding "-->"): what they hold is not
// rendered, so a heading there names no section (review AU4), nor is a
// promise there given (quotedRanges, review BU4). A comment on
// one line (the gaps block's markers) ends where it starts and hides
// nothing after it.
type htmlComment struct{ open bool }

// step consumes one line outside code and reports whether it lies within a
// comment that spans lines.
func (c *htmlComment) step(line string) bool {
	if c.open {
		c.open = !strings.Contains(line, "-->")
		return true
	}
	body := strings.TrimLeft(line, " ")
	if len(line)-len(body) > 3 || !strings.HasPrefix(body, "<!--") {
		return false
	}
	if strings.Contains(body[len("<!--"):], "-->") {
		return false
	}
	c.open = true
	return true
}

// isInstallCommand reports whether a code line installs the project, as a
// README's set-up section does.
func isInstallCommand(t string) bool {
	t = strings.TrimPrefix(strings.TrimSpace(t), "$ ")
	for _, p := range []string{"npm install", "npm i ", "yarn add", "pnpm add", "pip install", "cargo install", "brew install", "go install", "gem install", "apt install", "apt-get install", "git clone"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// tableShape follows a markdown table line by line and reports how many
// options it compares: a header row, a delimiter row ("|---|---|"), then
// data rows. A table whose first header cell names options ("Option",
// "Approach", "방안") lists one option per row; any other table of three or
// more columns compares its columns after the first ("| | Redis | In-memory
// |"). Anything that is not a table resets it.
type tableShape struct {
	header   []string
	inBody   bool
	rows     int
	byColumn bool
}

func (t *tableShape) step(line string) int {
	if !strings.HasPrefix(line, "|") {
		*t = tableShape{}
		return 0
	}
	cells := strings.Split(strings.Trim(line, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	switch {
	case t.header == nil:
		t.header = cells
		return 0
	case !t.inBody:
		for _, c := range cells {
			if strings.Trim(c, ":-") != "" || c == "" {
				*t = tableShape{}
				return 0
			}
		}
		t.inBody = true
		first := strings.ToLower(strings.Trim(t.header[0], "*_ "))
		t.byColumn = true
		for _, w := range optionWords {
			if strings.HasPrefix(first, w) {
				t.byColumn = false
			}
		}
		return 0
	}
	t.rows++
	if t.byColumn {
		if len(t.header) < 3 {
			return 0
		}
		return len(t.header) - 1
	}
	return t.rows
}

// numberedRow reports whether a table row's first cell is a number alone
// ("| 1 |", "| 2. |").
func numberedRow(row string) bool {
	cell, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
	cell = strings.TrimRight(strings.Trim(strings.TrimSpace(cell), "*_"), ".)")
	if cell == "" || len(cell) > 3 {
		return false
	}
	for i := 0; i < len(cell); i++ {
		if cell[i] < '0' || cell[i] > '9' {
			return false
		}
	}
	return true
}

// compares reports whether the table read so far sets two or more options
// against at least one criterion: options as columns over a criterion row,
// or options as rows with two or more attributes. Such a table is the
// options' trade-offs, whatever its words (review CP11).
func (t *tableShape) compares() bool {
	if !t.inBody || len(t.header) < 3 {
		return false
	}
	if !t.byColumn {
		return t.rows >= 2
	}
	// Options as columns: the first header cell names the criteria, or is
	// empty ("| | Redis | In-memory |"); a milestone or file table is not
	// a comparison.
	first := strings.ToLower(strings.Trim(t.header[0], "*_ "))
	if first != "" && !slices.ContainsFunc(criteriaWords, func(w string) bool { return strings.HasPrefix(first, w) }) {
		return false
	}
	return t.rows >= 1
}

// criteriaWords head the first column of a table that compares options.
var criteriaWords = []string{"criteri", "aspect", "dimension", "factor", "concern", "property", "trait", "metric",
	"consideration", "attribute", "feature", "기준", "항목", "비교", "측면", "요소"}

// isNumbered reports whether s starts like "12. text", "3) text" or
// "**1.** text". "1.5 GB" is a number, not an item.
func isNumbered(s string) bool {
	_, ok := mdtext.Numbered(s)
	return ok
}

// optionWords introduce a labelled option ("Option A", "Approach 2", "방안 1");
// a capital letter with "." or ")" does too ("A. Redis", "**B.** disk").
var optionWords = []string{"option", "approach", "alternative", "옵션", "방안", "대안", "선택지"}

// optionLabel recognises a line that introduces an option, after list
// markers, numbering and emphasis, and returns a normalised label.
func optionLabel(s string) (string, bool) {
	s = strings.TrimLeft(s, "-+*_> \t")
	if isNumbered(s) {
		i := strings.IndexAny(s, ".)")
		s = strings.TrimLeft(s[i+1:], "*_ \t")
	}
	if len(s) >= 2 && s[0] >= 'A' && s[0] <= 'H' && (s[1] == '.' || s[1] == ')' || s[1] == ':') {
		// A lettered option: "A. Redis", "**B.** in-memory", "C) keep it".
		if r := strings.TrimLeft(s[2:], "*_"); r == "" || r[0] == ' ' || r[0] == '\t' {
			return "option " + strings.ToLower(s[:1]), true
		}
	}
	for _, w := range optionWords {
		if len(s) < len(w) || !strings.EqualFold(s[:len(w)], w) {
			continue
		}
		r := strings.TrimLeft(s[len(w):], " \t")
		if len(r) == len(s)-len(w) && w[0] < utf8.RuneSelf {
			return "", false // "Optionally": the word must end here
		}
		n := 0
		for n < len(r) && r[n] >= '0' && r[n] <= '9' {
			n++
		}
		if n == 0 && len(r) > 0 && isASCIILetter(r[0]) && (len(r) == 1 || !isASCIILetter(r[1])) {
			n = 1
		}
		if n == 0 || n > 3 {
			return "", false
		}
		return w + " " + strings.ToLower(r[:n]), true
	}
	return "", false
}

func isASCIILetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

func isWordByte(b byte) bool {
	return b == '_' || (b >= '0' && b <= '9') || isASCIILetter(b)
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the result
// match the input (strings.ToLower may change lengths for some runes).
func asciiLower(s string) string {
	hasUpper := false
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			hasUpper = true
			break
		}
	}
	if !hasUpper {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func containsWordStart(s, k string) bool {
	ascii := k[0] < utf8.RuneSelf
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], k)
		if i < 0 {
			return false
		}
		at := from + i
		if !ascii || at == 0 || !isWordByte(s[at-1]) {
			return true
		}
		from = at + 1
	}
	return false
}

// keywordsIn returns the distinct keywords of list found in lower (already
// ASCII-lowered). Each entry is one keyword, possibly with alternative forms
// separated by "|" ("dependency|dependencies"); the first form names it. An
// ASCII form must start a word and may run on into a longer one, so
// "constraint" also matches "constraints". Korean forms match anywhere,
// since particles attach to the word.
func keywordsIn(lower string, list []string) []string {
	var found []string
	for _, k := range list {
		forms := strings.Split(k, "|")
		for _, f := range forms {
			if containsWordStart(lower, f) {
				found = append(found, forms[0])
				break
			}
		}
	}
	return found
}

// firstForms lists the display name of each keyword entry, at most n.
func firstForms(list []string, n int) string {
	var out []string
	for _, k := range list {
		if len(out) == n {
			break
		}
		f, _, _ := strings.Cut(k, "|")
		out = append(out, f)
	}
	return strings.Join(out, ", ")
}
