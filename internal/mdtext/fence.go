package mdtext

import (
	"iter"
	"strings"
)

// Fence follows fenced code blocks through a text, one line at a time, as
// CommonMark defines them: a run of at least three backticks or tildes,
// indented at most three spaces, opens a block; a backtick fence's info
// string may not contain a backtick. Only a run of the same character, at
// least as long as the opening one, indented at most three spaces and
// followed by nothing but spaces, closes it — so a block opened with four
// backticks shows a three-backtick example without ending. A block left
// open runs to the end of the text. The zero value is outside any block.
type Fence struct {
	char byte
	n    int
}

// Step consumes one line (without its newline) and reports whether the line
// belongs to a code block, the opening and closing fence lines included.
func (f *Fence) Step(line string) bool {
	line = strings.TrimSuffix(line, "\r")
	body := strings.TrimLeft(line, " ")
	indent := len(line) - len(body)
	c, run := fenceRun(body)
	if f.n > 0 {
		if indent <= 3 && c == f.char && run >= f.n && strings.TrimSpace(body[run:]) == "" {
			f.n = 0
		}
		return true
	}
	if indent > 3 || run < 3 || (c == '`' && strings.Contains(body[run:], "`")) {
		return false
	}
	f.char, f.n = c, run
	return true
}

// Open reports whether a block is open after the lines consumed so far.
func (f *Fence) Open() bool { return f.n > 0 }

func fenceRun(s string) (byte, int) {
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	return s[0], n
}

// Line is one line of a text: its 1-based number, its text without the line
// ending ("\n" or "\r\n"), and whether it is part of a fenced code block.
type Line struct {
	N    int
	Text string
	Code bool
}

// Lines yields the lines of text in order, each marked by a Fence. A final
// newline does not start another line.
func Lines(text string) iter.Seq[Line] {
	return func(yield func(Line) bool) {
		var f Fence
		n := 0
		for raw := range strings.Lines(text) {
			n++
			t := strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")
			if !yield(Line{N: n, Text: t, Code: f.Step(t)}) {
				return
			}
		}
	}
}

// Closer returns a fence line that closes the open block, or "" when no
// block is open: callers that append to a text close a block it left open.
func (f *Fence) Closer() string {
	if f.n == 0 {
		return ""
	}
	return strings.Repeat(string(f.char), f.n)
}

// OpensFence reports whether line, read outside any block, opens one.
func OpensFence(line string) bool {
	var f Fence
	return f.Step(line)
}
