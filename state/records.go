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

// Outputs returns the phase answers recorded in the body, oldest first
// (not the kept attempt, see KeepAttempt). Damaged records (a hand-edited
// body) are skipped, never fatal.
func (f *File) Outputs() []Output {
	var outs []Output
	for _, r := range scanRecords(f.Body) {
		if !r.attempt && r.key == "" {
			outs = append(outs, r.Output)
		}
	}
	return outs
}

// record is one record in the body, with where it starts (its header) and
// ends (after its closing line). A text record (key set) holds a text the
// frontmatter refers to; the others hold phase answers.
type record struct {
	Output
	attempt    bool
	missing    int
	key        string
	start, end int
}

// recordStart begins every record's header, whatever its kind.
const recordStart = "<!-- plansmith:"

// scanRecords reads every record of body in order, answers and texts
// alike. Each text is skipped by its byte count, so a text holding a copy
// of a header (of either kind) is never misread.
func scanRecords(body string) []record {
	var out []record
	pos := 0
	for {
		i := strings.Index(body[pos:], recordStart)
		if i < 0 {
			return out
		}
		start := pos + i
		pos = start + len(recordStart)
		isText := strings.HasPrefix(body[pos:], "text ")
		if !isText && !strings.HasPrefix(body[pos:], "output ") {
			continue
		}
		end := strings.Index(body[pos:], " -->\n")
		if end < 0 {
			return out
		}
		header := body[pos : pos+end]
		pos += end + len(" -->\n")
		r := record{start: start}
		var n int
		var ok bool
		closing := recordEnd
		if isText {
			r.key, n, ok = parseTextHeader(strings.TrimPrefix(header, "text "))
			closing = textEnd
		} else {
			r.Output, n, ok = parseHeader(strings.TrimPrefix(header, "output "))
		}
		if !ok || n > len(body)-pos {
			continue
		}
		r.Text = body[pos : pos+n]
		pos += n
		if !isText {
			r.attempt, r.missing = attemptOf(body[start:pos])
		}
		r.end = pos
		if strings.HasPrefix(body[pos:], closing) {
			r.end = pos + len(closing)
		}
		out = append(out, r)
	}
}

const recordEnd = "\n<!-- /plansmith:output -->\n"

// attemptOf reads a record header's attempt fields: "attempt=1 missing=N".
func attemptOf(rec string) (bool, int) {
	header, _, _ := strings.Cut(rec, " -->\n")
	attempt, missing := false, 0
	for _, field := range strings.Fields(header) {
		k, v, _ := strings.Cut(field, "=")
		switch k {
		case "attempt":
			attempt = v == "1"
		case "missing":
			missing, _ = strconv.Atoi(v)
		}
	}
	return attempt, missing
}

// KeepAttempt keeps a failed answer for the current phase as the best
// attempt so far when it misses no more checks than the one kept (a tie
// goes to the newer answer), or when the kept one belongs to another
// phase. There is at most one kept attempt; DropAttempt removes it when a
// phase passes.
func (f *File) KeepAttempt(phase string, missing int, text string) {
	if old, ok := f.attemptRecord(); ok {
		if old.Phase == phase && old.missing < missing {
			return
		}
		f.Body = f.Body[:old.start] + f.Body[old.end:]
	}
	var b strings.Builder
	b.WriteString(f.Body)
	if !strings.HasSuffix(f.Body, "\n") && f.Body != "" {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%sphase=%s round=0 bytes=%d attempt=1 missing=%d -->\n", recordPrefix, phase, len(text), missing)
	b.WriteString(text)
	b.WriteString(recordEnd)
	f.Body = b.String()
}

// DropAttempt removes the kept attempt, if any.
func (f *File) DropAttempt() {
	if old, ok := f.attemptRecord(); ok {
		f.Body = f.Body[:old.start] + f.Body[old.end:]
	}
}

// BestAttempt returns the kept attempt's text and how many checks it
// missed; ok is false when none is kept.
func (f *File) BestAttempt() (text string, missing int, ok bool) {
	r, ok := f.attemptRecord()
	return r.Text, r.missing, ok
}

func (f *File) attemptRecord() (record, bool) {
	if !strings.Contains(f.Body, "attempt=1") {
		return record{}, false // the common case, without a scan
	}
	for _, r := range scanRecords(f.Body) {
		if r.attempt {
			return r, true
		}
	}
	return record{}, false
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

// BestPlan returns the most recent draft or revise answer that passed its
// checks; else the kept attempt (the failed answer that missed the fewest
// checks, see KeepAttempt); else "".
func (f *File) BestPlan() string {
	outs := f.Outputs()
	for i := len(outs) - 1; i >= 0; i-- {
		switch outs[i].Phase {
		case "draft", "revise", "iterate":
			return outs[i].Text
		}
	}
	text, _, _ := f.BestAttempt()
	return text
}
