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
// of the tag, so it still counts as "a promise tag present". The tag
// written with HTML entities (&lt;promise&gt;…&lt;/promise&gt;) counts
// too: Codex shows the model its hook's instructions so escaped, and a
// model that copies them exactly writes that (review BK5).
func findPromises(lower string) []span {
	var out []span
	// next[k] is where form k next opens at or after from (-1: never): each
	// form's search resumes past the last, so the scan stays linear. Once a
	// form's closing tag is missing after one of its openings, it is
	// missing after every later one, which is not searched for again.
	var next [len(promiseForms)]int
	var closeless [len(promiseForms)]bool
	for k := range next {
		next[k] = -2
	}
	for from := 0; from < len(lower); {
		s, k := -1, 0
		for f := range promiseForms {
			if next[f] == -2 || next[f] >= 0 && next[f] < from {
				next[f] = -1
				if i := strings.Index(lower[from:], promiseForms[f].open); i >= 0 {
					next[f] = from + i
				}
			}
			if next[f] >= 0 && (s < 0 || next[f] < s) {
				s, k = next[f], f
			}
		}
		if s < 0 {
			break
		}
		form := promiseForms[k]
		in := s + len(form.open)
		j := -1
		if !closeless[k] {
			j = strings.Index(lower[in:], form.close)
		}
		if j < 0 {
			// Never closed: it counts as a tag present, and the scan goes
			// on, so a tag merely mentioned (in the other form, say) does
			// not hide a real one after it (review BM4).
			closeless[k] = true
			out = append(out, span{s, in, in, in})
			from = in
			continue
		}
		e := in + j + len(form.close)
		out = append(out, span{s, e, in, in + j})
		from = e
	}
	return out
}

// MentionsPromise reports whether message holds a promise tag, in either
// form, closed or not.
func MentionsPromise(message string) bool { return len(findPromises(asciiLower(message))) > 0 }

// promiseForms are the ways a promise tag is written.
var promiseForms = [...]struct{ open, close string }{{"<promise>", "</promise>"}, {"&lt;promise&gt;", "&lt;/promise&gt;"}}

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
