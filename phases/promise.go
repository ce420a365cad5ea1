package phases

import (
	"strings"

	"github.com/plansmith/plansmith/internal/mdtext"
)

// span is a byte range [start, end) in a message.
type span struct{ start, end, innerStart, innerEnd int }

// findPromises returns every <promise>…</promise> in lower (an
// ASCII-lowered message, offsets equal to the original). An opening tag with
// no closing tag is reported with an empty inner range reaching to the end
// of the tag, so it still counts as "a promise tag present".
func findPromises(lower string) []span {
	const open, close = "<promise>", "</promise>"
	var out []span
	for from := 0; from < len(lower); {
		i := strings.Index(lower[from:], open)
		if i < 0 {
			break
		}
		s := from + i
		in := s + len(open)
		j := strings.Index(lower[in:], close)
		if j < 0 {
			out = append(out, span{s, in, in, in})
			break
		}
		e := in + j + len(close)
		out = append(out, span{s, e, in, in + j})
		from = e
	}
	return out
}

// outsideCode keeps the promises that lie outside fenced code blocks in
// text: a promise shown in a code sample, or quoted as an example, is not
// the answer's (review AU4: one in a code block finished the loop).
func outsideCode(text string, spans []span) []span {
	if len(spans) == 0 || !strings.Contains(text, "``") && !strings.Contains(text, "~~") {
		return spans
	}
	var code [][2]int
	off := 0
	for l := range mdtext.Lines(text) {
		end := strings.Index(text[off:], "\n")
		if end < 0 {
			end = len(text) - off
		} else {
			end++
		}
		if l.Code {
			code = append(code, [2]int{off, off + end})
		}
		off += end
	}
	// Both lists are in text order: one walk.
	out := spans[:0:0]
	c := 0
	for _, sp := range spans {
		for c < len(code) && code[c][1] <= sp.start {
			c++
		}
		if c == len(code) || sp.start < code[c][0] {
			out = append(out, sp)
		}
	}
	return out
}

// PlanText is the plan a final answer gives: the message without its
// promise tags (Outcome.Plan of a finalized answer).
func PlanText(message string) string { return stripPromises(message) }

// stripPromises removes every promise tag and its content and trims the
// result: what is left is the plan.
func stripPromises(text string) string {
	spans := findPromises(asciiLower(text))
	if len(spans) == 0 {
		return strings.TrimSpace(text)
	}
	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for _, sp := range spans {
		b.WriteString(text[prev:sp.start])
		prev = sp.end
	}
	b.WriteString(text[prev:])
	return strings.TrimSpace(b.String())
}
