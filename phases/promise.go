package phases

import "strings"

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
