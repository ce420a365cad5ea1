package mdtext

import "strings"

// Numbered recognises a numbered item: after leading spaces and emphasis
// markers, one to three digits and "." or ")", then a space or tab and some
// text ("1. read", "12) parse", "**3.** write"); a keycap digit numbers an
// item too ("1️⃣ read", as models write them). It returns the item's text,
// trimmed. "1.5 GB" is a number, "2024. " too long to be an item number.
func Numbered(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t")
	s = strings.TrimLeft(s, "*_")
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		if n++; n > 3 {
			return "", false
		}
	}
	if n == 0 || n >= len(s) {
		return "", false
	}
	var rest string
	switch {
	case s[n] == '.' || s[n] == ')':
		rest = s[n+1:]
	case n == 1 && strings.HasPrefix(s[n:], keycap):
		rest = s[n+len(keycap):]
	case n == 1 && strings.HasPrefix(s[n:], keycap[len("\ufe0f"):]):
		rest = s[n+len(keycap)-len("\ufe0f"):]
	default:
		return "", false
	}
	rest = strings.TrimLeft(rest, "*_")
	if rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	return rest, rest != ""
}

// Checkbox recognises a task-list item: a bullet ("-", "*", "+") or a
// numbered item marker, then "[ ]", "[x]" or "[X]" and a space. It returns
// whether the box is ticked and the item's text, trimmed.
func Checkbox(s string) (checked bool, text string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	switch {
	case s == "":
		return false, "", false
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		s = s[1:]
	default:
		n := 0
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || (s[n] != '.' && s[n] != ')') {
			return false, "", false
		}
		s = s[n+1:]
	}
	if s == "" || (s[0] != ' ' && s[0] != '\t') {
		return false, "", false
	}
	s = strings.TrimLeft(s, " \t")
	if len(s) < 3 || s[0] != '[' || s[2] != ']' || (s[1] != ' ' && s[1] != 'x' && s[1] != 'X') {
		return false, "", false
	}
	rest := s[3:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return false, "", false
	}
	return s[1] != ' ', strings.TrimSpace(rest), true
}

// keycap follows a digit to make the emoji "1️⃣": the variation selector
// (sometimes left out) and the combining keycap.
const keycap = "\ufe0f\u20e3"
