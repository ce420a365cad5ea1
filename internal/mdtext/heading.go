package mdtext

import "strings"

// Heading parses an ATX heading line ("## Scope", "### 2. Steps ##"):
// one to six "#" followed by a space, a tab or the end of the line. Leading
// spaces and tabs are allowed (answers indent headings inside lists), and a
// closing run of "#" is dropped when a space precedes it or it is all there
// is. The text comes back trimmed; ok is false for any other line,
// "#hashtag" and "####### seven" included.
func Heading(line string) (level int, text string, ok bool) {
	t := strings.TrimSpace(line)
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	h := strings.TrimSpace(t[n:])
	if k := strings.TrimRight(h, "#"); k != h {
		switch {
		case k == "":
			h = ""
		case k[len(k)-1] == ' ' || k[len(k)-1] == '\t':
			h = strings.TrimSpace(k)
		}
	}
	return n, h, true
}

// BoldLabel recognises a line that is nothing but one **bold** or __bold__
// span, optionally followed by a colon ("**Goal:**", "**Goal**:"), which
// answers use as a heading. It returns the span's text, trimmed. A bold
// label followed by prose ("**Goal:** make it fast") is not a label.
func BoldLabel(line string) (string, bool) {
	t := strings.TrimSpace(line)
	for _, m := range []string{"**", "__"} {
		if !strings.HasPrefix(t, m) || len(t) <= 4 {
			continue
		}
		end := strings.Index(t[2:], m)
		if end <= 0 {
			return "", false
		}
		after := strings.TrimSpace(t[2+end+2:])
		if after != "" && after != ":" {
			return "", false
		}
		return strings.TrimSpace(t[2 : 2+end]), true
	}
	return "", false
}

// StripNumber removes the numbering that starts a heading or item text:
// "1.", "2)", "3.1", "1.2.3.", "(4)", "IV." is left alone. It returns s
// unchanged when s does not start with a number followed by a space, a tab,
// a colon or the end: "2024 roadmap" keeps its year, "3D view" its digit.
func StripNumber(s string) string {
	t := strings.TrimLeft(s, " \t")
	open := strings.HasPrefix(t, "(")
	if open {
		t = t[1:]
	}
	i, groups := 0, 0
	for i < len(t) {
		j := i
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j == i || j-i > 3 {
			break
		}
		groups++
		i = j
		if i < len(t) && t[i] == '.' && i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	if groups == 0 {
		return s
	}
	switch {
	case open && i < len(t) && t[i] == ')':
		i++
	case !open && i < len(t) && (t[i] == '.' || t[i] == ')' || t[i] == ':'):
		i++
	case open:
		return s
	case groups < 2 && i < len(t):
		// "2024 roadmap": a bare number is a number, not numbering,
		// unless it is dotted ("3.1 Scope").
		return s
	}
	if i < len(t) && t[i] != ' ' && t[i] != '\t' {
		return s
	}
	return strings.TrimLeft(t[i:], " \t")
}
