package mdtext

import (
	"strings"
	"unicode"
)

// placeholders are what a template or a hurried answer puts where content
// belongs; a line that says only one of them is not content.
var placeholders = map[string]bool{
	"tbd": true, "tbc": true, "tba": true, "todo": true, "to do": true, "n/a": true, "na": true, "n.a": true,
	"to be determined": true, "to be decided": true, "to be defined": true, "to be done": true, "to be added": true,
	"to be written": true, "to be filled in": true, "fill in": true, "fill in later": true, "placeholder": true,
	"coming soon": true, "lorem ipsum": true, "xxx": true, "...": true, "…": true, "etc": true,
	"미정": true, "추후 작성": true, "작성 예정": true, "해당 없음": true, "추후 결정": true,
}

// SaysSomething reports whether a line of markdown prose says something: a
// letter or digit once list markers, checkboxes, numbering, emphasis and
// end punctuation are gone, and not only a placeholder ("TBD", "N/A",
// "<one-sentence goal>", "[describe the risk]"). A plan's section and a
// gap's title or description are judged by it.
func SaysSomething(line string) bool {
	t := strings.TrimSpace(line)
	if strings.ContainsFunc(t, invisibleOrWide) {
		t = strings.TrimSpace(strings.Map(narrow, t))
	}
	if _, text, ok := Checkbox(t); ok {
		t = text
	}
	t = strings.TrimLeft(t, "-+*> \t")
	t = StripNumber(t)
	t = strings.Trim(t, "*_` \t")
	t = strings.TrimRight(t, ".:;,!?")
	if !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return false
	}
	if n := len(t); n >= 2 && (t[0] == '<' && t[n-1] == '>' || t[0] == '{' && t[n-1] == '}' ||
		t[0] == '[' && t[n-1] == ']' && !strings.Contains(t, "](")) {
		return false // a template's slot
	}
	// A marker around a placeholder changes nothing: "(TBD)", "⏳ TBD".
	t = strings.TrimFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '…' })
	if len(t) > 2*longestPlaceholder {
		return true
	}
	// Lower-cased, runs of spaces made one, in a buffer on the stack: this
	// runs for the first line under every heading (review CP3).
	var buf [64]byte
	b := buf[:0]
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == ' ' || c == '\t':
			if len(b) > 0 && b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	if len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return !placeholders[string(b)]
}

// longestPlaceholder is the length of the longest placeholder in bytes:
// a longer line is content without a look-up.
var longestPlaceholder = func() int {
	n := 0
	for p := range placeholders {
		n = max(n, len(p))
	}
	return n
}()

// invisibleOrWide reports whether r is a character that hides a placeholder
// from the look-up while the reader sees the same word: a zero-width one
// or a soft hyphen ("T\u200bBD"), or a fullwidth form of ASCII ("ＴＢＤ").
func invisibleOrWide(r rune) bool {
	switch r {
	case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return true
	}
	return r >= '\uff01' && r <= '\uff5e'
}

// narrow drops the invisible characters and writes fullwidth ASCII as
// ASCII (see invisibleOrWide).
func narrow(r rune) rune {
	switch {
	case r >= '\uff01' && r <= '\uff5e':
		return r - 0xfee0
	case invisibleOrWide(r):
		return -1
	}
	return r
}
