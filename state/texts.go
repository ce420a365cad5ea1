package state

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/gate"
)

// Long texts the loop keeps about the gate's sub-agent runs (each run's
// output, the validator's prompt) live in the body as text records, each
// under the hex SHA-256 of its text; the frontmatter names them by that key
// (gate.Run's OutputKey and PromptKey). Every tool call reads the
// frontmatter, and a critic's report can run to tens of KiB: kept there,
// two runs made each call a quarter slower, and outputs of a few MiB pushed
// the frontmatter past what the tool hooks read. Stop, which judges the
// runs, reads the whole file and gets the texts back (resolveTexts).

const textEnd = "\n<!-- /plansmith:text -->\n"

// textKey is the key a text is kept under.
func textKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// parseTextHeader reads a text record's header fields: "key=K bytes=N".
func parseTextHeader(h string) (key string, n int, ok bool) {
	n = -1
	for _, field := range strings.Fields(h) {
		k, v, found := strings.Cut(field, "=")
		if !found {
			return "", 0, false
		}
		switch k {
		case "key":
			key = v
		case "bytes":
			var err error
			if n, err = strconv.Atoi(v); err != nil || n < 0 {
				return "", 0, false
			}
		}
	}
	return key, n, n >= 0 && len(key) == sha256.Size*2
}

// bodyTexts returns the body's text records by key, each one whose text
// does not hash to its key (a hand edit) left out.
func bodyTexts(body string) map[string]string {
	texts := map[string]string{}
	if !strings.Contains(body, recordStart+"text ") {
		return texts
	}
	for _, r := range scanRecords(body) {
		if r.key != "" && textKey(r.Text) == r.key {
			texts[r.key] = r.Text
		}
	}
	return texts
}

// resolveTexts gives the gate runs of a wholly read file their texts back
// from the body. A key whose record is missing or altered leaves its text
// empty: the run then reads as having said nothing, which the gate does not
// accept as evidence.
func resolveTexts(l *Loop, body string) {
	var texts map[string]string
	for i := range l.GateRuns {
		r := &l.GateRuns[i]
		if (r.OutputKey == "" || r.Output != "") && (r.PromptKey == "" || r.Prompt != "") {
			continue
		}
		if texts == nil {
			texts = bodyTexts(body)
		}
		if r.Output == "" {
			r.Output = texts[r.OutputKey]
		}
		if r.Prompt == "" {
			r.Prompt = texts[r.PromptKey]
		}
	}
}

// keepTexts returns l as its frontmatter is written, every run's output and
// prompt replaced by its key, and body with a text record for each key and
// none for a key no run names any more: a run that is dropped (the gate
// keeps 16) takes its texts with it, whether the file was read whole or
// with LoadHead (review Q3: saves from sub-agent events kept every output).
// Only a whole record (its closing line in place) is ever dropped.
func keepTexts(l Loop, body string) (Loop, string) {
	if len(l.GateRuns) == 0 && !strings.Contains(body, recordStart+"text ") {
		return l, body
	}
	runs := append(gate.Runs(nil), l.GateRuns...)
	var order []string          // keys the runs name, first seen first
	text := map[string]string{} // a key's text, when in memory
	keep := func(t, key *string) {
		if *t != "" {
			*key = textKey(*t)
			text[*key] = *t
			*t = ""
		}
		if *key != "" && !slices.Contains(order, *key) {
			order = append(order, *key)
		}
	}
	for i := range runs {
		keep(&runs[i].Output, &runs[i].OutputKey)
		keep(&runs[i].Prompt, &runs[i].PromptKey)
	}
	l.GateRuns = runs

	var b strings.Builder
	have := map[string]bool{}
	last := 0
	for _, r := range scanRecords(body) {
		if r.key == "" {
			continue
		}
		if slices.Contains(order, r.key) && !have[r.key] || !strings.HasSuffix(body[r.start:r.end], textEnd) {
			have[r.key] = true
			continue
		}
		start := r.start
		if start-1 >= last && start >= 2 && body[start-1] == '\n' && body[start-2] == '\n' {
			start-- // the blank line keepTexts wrote before it
		}
		b.WriteString(body[last:start])
		last = r.end
	}
	b.WriteString(body[last:])
	for _, key := range order {
		t, ok := text[key]
		if have[key] || !ok {
			continue
		}
		have[key] = true
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "\n%stext key=%s bytes=%d -->\n", recordStart, key, len(t))
		b.WriteString(t)
		b.WriteString(textEnd)
	}
	return l, b.String()
}
