package phases

import (
	"strings"
	"unicode"
	"unicode/utf8"

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
	headings []string            // heading texts, raw (markers removed, not normalised)
	numbered int                 // numbered items
	options  map[string]struct{} // distinct option labels ("option a", "방안 2")
}

func scan(text string) shape {
	var sh shape
	for l := range mdtext.Lines(text) {
		t := strings.TrimSpace(l.Text)
		if l.Code || t == "" {
			continue
		}
		body := t
		if h, ok := headingText(t); ok {
			sh.headings = append(sh.headings, h)
			body = h
		}
		if isNumbered(body) {
			sh.numbered++
		}
		if label, ok := optionLabel(body); ok {
			if sh.options == nil {
				sh.options = map[string]struct{}{}
			}
			sh.options[label] = struct{}{}
		}
	}
	return sh
}

// headingText returns the text of a heading line (trimmed), and whether the
// line is a heading at all: an ATX heading or a bold label.
func headingText(t string) (string, bool) {
	if _, h, ok := mdtext.Heading(t); ok {
		return h, true
	}
	return mdtext.BoldLabel(t)
}

// isNumbered reports whether s starts like "12. text", "3) text" or
// "**1.** text". "1.5 GB" is a number, not an item.
func isNumbered(s string) bool {
	_, ok := mdtext.Numbered(s)
	return ok
}

// optionWords introduce a labelled option ("Option A", "Approach 2", "방안 1").
var optionWords = []string{"option", "approach", "alternative", "옵션", "방안", "대안", "선택지"}

// optionLabel recognises a line that introduces an option, after list
// markers, numbering and emphasis, and returns a normalised label.
func optionLabel(s string) (string, bool) {
	s = strings.TrimLeft(s, "-+*_> \t")
	if isNumbered(s) {
		i := strings.IndexAny(s, ".)")
		s = strings.TrimLeft(s[i+1:], "*_ \t")
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

// normHeading prepares a heading for section matching: lower case, without
// leading numbering, emoji or punctuation ("## 1. 🎯 Goal") and without a
// trailing colon or emphasis.
func normHeading(h string) string {
	h = strings.TrimFunc(h, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ')' })
	h = strings.TrimLeftFunc(h, func(r rune) bool { return !unicode.IsLetter(r) })
	h = strings.TrimRight(h, " \t:*_#")
	return strings.ToLower(h)
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
