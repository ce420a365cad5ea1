package state

import (
	"fmt"
	"strconv"
	"strings"
)

// Output is one phase answer recorded in the state body.
type Output struct {
	Phase string
	Round int // critique round (critique and revise), 0 otherwise
	Text  string
}

// The record header carries the text's length in bytes, so a record is
// read back exactly whatever the text contains (even a copy of a header).
const recordPrefix = "<!-- plansmith:output "

// AppendOutput adds a phase answer to the body.
func (f *File) AppendOutput(o Output) {
	var b strings.Builder
	b.Grow(len(f.Body) + len(o.Text) + 100)
	b.WriteString(f.Body)
	if !strings.HasSuffix(f.Body, "\n") && f.Body != "" {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "\n%sphase=%s round=%d bytes=%d -->\n", recordPrefix, o.Phase, o.Round, len(o.Text))
	b.WriteString(o.Text)
	b.WriteString("\n<!-- /plansmith:output -->\n")
	f.Body = b.String()
}

// Outputs returns the phase answers recorded in the body, oldest first.
// Damaged records (a hand-edited body) are skipped, never fatal.
func (f *File) Outputs() []Output {
	var outs []Output
	rest := f.Body
	for {
		i := strings.Index(rest, recordPrefix)
		if i < 0 {
			return outs
		}
		rest = rest[i+len(recordPrefix):]
		end := strings.Index(rest, " -->\n")
		if end < 0 {
			return outs
		}
		o, n, ok := parseHeader(rest[:end])
		rest = rest[end+len(" -->\n"):]
		if !ok || n > len(rest) {
			continue
		}
		o.Text = rest[:n]
		rest = rest[n:]
		outs = append(outs, o)
	}
}

func parseHeader(h string) (Output, int, bool) {
	var o Output
	n := -1
	for _, field := range strings.Fields(h) {
		k, v, ok := strings.Cut(field, "=")
		if !ok {
			return o, 0, false
		}
		switch k {
		case "phase":
			o.Phase = v
		case "round":
			o.Round, _ = strconv.Atoi(v)
		case "bytes":
			var err error
			if n, err = strconv.Atoi(v); err != nil || n < 0 {
				return o, 0, false
			}
		}
	}
	return o, n, n >= 0 && o.Phase != ""
}

// BestPlan returns the most recent draft or revise answer, or "" when the
// loop never reached a draft.
func (f *File) BestPlan() string {
	outs := f.Outputs()
	for i := len(outs) - 1; i >= 0; i-- {
		switch outs[i].Phase {
		case "draft", "revise", "iterate":
			return outs[i].Text
		}
	}
	return ""
}
