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

// outsideQuotes keeps the promises in text that the answer gives rather
// than shows: one in a fenced code block (review AU4: it finished the
// loop), an inline code span, a blockquote line or an HTML comment (review
// BU4: each of those finished it too) is quoted, an example or hidden, not
// the answer's.
func outsideQuotes(text string, spans []span) []span {
	if len(spans) == 0 {
		return spans
	}
	quoted := quotedRanges(text)
	// Both lists are in text order: one walk.
	out := spans[:0:0]
	c := 0
	for _, sp := range spans {
		for c < len(quoted) && quoted[c][1] <= sp.start {
			c++
		}
		if c == len(quoted) || sp.start < quoted[c][0] {
			out = append(out, sp)
		}
	}
	return out
}

// quotedRanges returns, in text order and without overlap, the byte ranges
// [start, end) of text that quote rather than say: fenced code lines
// (mdtext's reading), blockquote lines, HTML comments and inline code
// spans. A comment opening a line and closing on a later one is followed
// by htmlComment, as scan follows it for headings, so a promise and a
// heading hidden there are hidden alike; it runs to the end of the text
// when never closed. A comment opened within a line is inline, as
// CommonMark reads it: it hides up to its "-->" when one follows within
// its paragraph (before a blank line), and what follows the "-->" on that
// line is read again; with none there it is plain text (review CB5: a
// "<!--" named in prose hid a promise paragraphs below it, up to an arrow
// after it). A code span is read within its line: one running over lines
// is rare in an answer, and so read a stray backtick never hides an honest
// promise on its own line below it. A blockquote is its ">" lines only: a
// promise on the line right after a quote is the answer's, though
// CommonMark would carry the quote on to it.
func quotedRanges(text string) [][2]int {
	var out [][2]int
	var comment htmlComment
	hideTo := -1 // an inline comment hides text up to here
	plainTo := 0 // no "-->" ends a comment opened before here
	stop := 0    // where the paragraph of the last comment opened ends
	// inline reads the part of a line from start to end (next: the next
	// line's start) for code spans and comments.
	inline := func(start, end, next int) {
		var open int
		out, open = inlineQuoted(out, text[start:end], start)
		if open < 0 {
			return
		}
		at := start + open
		if at < plainTo {
			return
		}
		if end >= stop {
			stop = paragraphEnd(text, end) // once a paragraph: the scan stays linear
		}
		k := strings.Index(text[end:stop], "-->")
		if k < 0 {
			plainTo = stop
			return
		}
		hideTo = end + k + len("-->")
		out = append(out, [2]int{at, next})
	}
	off := 0
	for l := range mdtext.Lines(text) {
		next := len(text)
		if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		end := off + len(l.Text)
		switch {
		case hideTo > off:
			if hideTo >= end {
				out = append(out, [2]int{off, next})
				break
			}
			out = append(out, [2]int{off, hideTo})
			inline(hideTo, end, next)
		case l.Code, comment.step(l.Text), isQuoteLine(l.Text):
			out = append(out, [2]int{off, next})
		default:
			inline(off, end, next)
		}
		off = next
	}
	return out
}

// paragraphEnd returns where the paragraph that goes on past offset at
// ends: the start of the first blank line (spaces and tabs only) after
// the line at is in, or len(text).
func paragraphEnd(text string, at int) int {
	for i := at; ; {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return len(text)
		}
		i += nl + 1
		j := i
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
			j++
		}
		if j == len(text) || text[j] == '\n' {
			return i
		}
	}
}

// isQuoteLine reports whether line is a blockquote line: ">" after at most
// three spaces.
func isQuoteLine(line string) bool {
	body := strings.TrimLeft(line, " ")
	return len(line)-len(body) <= 3 && strings.HasPrefix(body, ">")
}

// inlineQuoted appends the code spans and the HTML comments closed within
// line (which starts at offset off in the text) to out, in order, and
// returns where in line a comment left open starts (-1: none). A code span
// opens with a run of backticks and closes at the next run of the same
// length; a run with none after it is plain text. Whichever of a span and
// a comment starts first wins, as in CommonMark: a "<!--" in a code span
// is code, a backtick in a comment is comment. Every search resumes past
// the last, so a line of a megabyte costs one pass.
func inlineQuoted(out [][2]int, line string, off int) ([][2]int, int) {
	type run struct{ at, n, next int }
	var runs []run
	if strings.IndexByte(line, '`') >= 0 {
		for i := 0; i < len(line); {
			if line[i] != '`' {
				i++
				continue
			}
			j := i
			for j < len(line) && line[j] == '`' {
				j++
			}
			runs = append(runs, run{at: i, n: j - i, next: -1})
			i = j
		}
		// next links each run to the next one of its length.
		last := map[int]int{}
		for k := len(runs) - 1; k >= 0; k-- {
			if m, ok := last[runs[k].n]; ok {
				runs[k].next = m
			}
			last[runs[k].n] = k
		}
	}
	c := -2 // where the next "<!--" at or after i starts (-1: none; -2: not searched)
	r := 0
	for i := 0; i < len(line); {
		for r < len(runs) && runs[r].at < i {
			r++
		}
		if c == -2 || c >= 0 && c < i {
			c = -1
			if k := strings.Index(line[i:], "<!--"); k >= 0 {
				c = i + k
			}
		}
		if r < len(runs) && (c < 0 || runs[r].at < c) {
			if m := runs[r].next; m >= 0 {
				end := runs[m].at + runs[m].n
				out = append(out, [2]int{off + runs[r].at, off + end})
				i, r = end, m+1
			} else {
				i, r = runs[r].at+runs[r].n, r+1
			}
			continue
		}
		if c < 0 {
			break
		}
		k := strings.Index(line[c+len("<!--"):], "-->")
		if k < 0 {
			return out, c
		}
		end := c + len("<!--") + k + len("-->")
		out = append(out, [2]int{off + c, off + end})
		i = end
	}
	return out, -1
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
