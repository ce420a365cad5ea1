package principles

import (
	"strings"
	"unicode/utf8"
)

// Result is a principle's verdict.
type Result string

const (
	Pass Result = "PASS"
	Fail Result = "FAIL"
)

// Verdict is one principle's judgement as read from a critique.
type Verdict struct {
	ID     int    // principle number, 1..12
	Result Result // Pass or Fail
	Note   string // the critic's reason, as written after the verdict (may be empty)
}

// lookahead is how many lines after a principle reference may still carry
// its verdict ("### P4 Error paths" followed by "Verdict: FAIL").
const lookahead = 2

// Parse reads per-principle verdicts from a critique, in order of first
// appearance, one per principle (the first verdict given wins). It accepts the
// shapes critics actually write: "P4: FAIL — …", "**P4 (Error paths)**: FAIL",
// "- P4 FAIL", table rows "| P4 | Error paths | FAIL | … |", a line that opens
// with its verdict ("- ❌ **P4 Error paths**: …", "2. **FAIL** P4: …"), a
// reference line followed within two lines by its verdict, and a heading
// that names the principle followed by its verdict anywhere before the next
// heading ("### P4 Error paths", a paragraph, "**Verdict: FAIL**"). Verdict
// words are PASS/FAIL (upper or title case, optionally with -ED), 통과/실패,
// or ✅/❌ (also ✔/✓ and ✘/✗). Lower-case "pass"/"fail" are ignored because
// they appear in ordinary prose. Parse runs in time linear in the input and
// never panics.
func Parse(critique string) []Verdict {
	var (
		out     []Verdict
		seen    [13]bool
		pending int  // principle waiting for its verdict on a following line
		left    int  // lines pending may still wait
		section bool // pending was named by a heading: it waits until the next one
	)
	add := func(id int, r Result, note string) {
		if seen[id] {
			return
		}
		seen[id] = true
		out = append(out, Verdict{ID: id, Result: r, Note: note})
	}
	for line := range strings.Lines(critique) {
		line = strings.TrimSuffix(line, "\n")
		id, start, end := findRef(line)
		if id == 0 {
			if pending == 0 {
				continue
			}
			if section && isHeading(line) {
				pending = 0
			} else if r, after, ok := findResult(line); ok {
				add(pending, r, cleanNote(line[after:]))
				pending = 0
			} else if strings.TrimSpace(line) != "" && !section {
				if left--; left <= 0 {
					pending = 0
				}
			}
			continue
		}
		// A verdict that opens the line is the line's verdict: the reason
		// after it may start with a verdict-like word ("- ❌ **P6**:
		// Pass-through of the context is missing" is a FAIL; review CS).
		if r, ok := leadingResult(line[:start]); ok {
			add(id, r, cleanNote(skipName(id, line[end:])))
			pending = 0
			continue
		}
		if r, after, ok := findResult(line[end:]); ok {
			add(id, r, cleanNote(line[end+after:]))
			pending = 0
			continue
		}
		pending, left, section = id, lookahead, isHeading(line)
	}
	return out
}

// isHeading reports whether line is an ATX heading ("### P4 Error paths").
func isHeading(line string) bool {
	t := strings.TrimLeft(line, " \t")
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

// leadingResult reads a verdict that opens a line, before the principle's
// reference: prefix, once list markers, numbering and markup are gone, must
// be a verdict token and nothing else ("- ✅ ", "3. **FAIL** — "), so that
// prose such as "Pass the context to P4" gives no verdict.
func leadingResult(prefix string) (Result, bool) {
	s := strings.TrimLeft(prefix, " \t>-*+")
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 && n < len(s) && (s[n] == '.' || s[n] == ')') {
		s = s[n+1:]
	}
	// At most two tokens that agree: "✅ PASS", "❌ **FAIL**".
	var got Result
	for range 2 {
		r, rest, ok := cutToken(strings.Trim(s, markup))
		if !ok || (got != "" && r != got) {
			return "", false
		}
		got, s = r, strings.Trim(rest, markup)
		if s == "" {
			return got, true
		}
	}
	return "", false
}

// cutToken cuts a verdict token (with its -ED) from the start of s.
func cutToken(s string) (Result, string, bool) {
	for _, t := range tokens {
		rest, ok := strings.CutPrefix(s, t.text)
		if !ok {
			continue
		}
		if t.ascii {
			rest = strings.TrimPrefix(strings.TrimPrefix(rest, "ED"), "ed")
			if rest != "" && isWordByte(rest[0]) {
				continue // "Passing", "FAILURE"
			}
		}
		return t.r, rest, true
	}
	return "", "", false
}

// skipName drops the principle's name written after its reference, in
// parentheses or bare ("(Step ordering)**: …", " Step ordering: …"), so
// that the note of a line that opened with its verdict is the reason alone.
func skipName(id int, s string) string {
	if id < 1 || id > len(All) {
		return s
	}
	name := All[id-1].Name
	t := strings.TrimLeft(s, " \t*_")
	inParens := strings.HasPrefix(t, "(")
	if inParens {
		t = t[1:]
	}
	if len(t) < len(name) || !strings.EqualFold(t[:len(name)], name) {
		return s
	}
	t = t[len(name):]
	if inParens {
		rest, ok := strings.CutPrefix(t, ")")
		if !ok {
			return s
		}
		t = rest
	}
	return t
}

// markup is what may surround a verdict that opens a line: spaces,
// emphasis, brackets, separators and the emoji variation selector.
const markup = " \t*_~`[](){}:|-–—.,#\ufe0f"

// findRef returns the first principle reference P1..P12 in line and the byte
// offsets where it starts and just after it, or 0 when there is none. A reference must not be
// glued to a preceding letter or digit ("HTTP2", "SP1") nor be followed by a
// further digit ("P123").
func findRef(line string) (id, start, end int) {
	for i := 0; i < len(line); i++ {
		if line[i] != 'P' || (i > 0 && isWordByte(line[i-1])) {
			continue
		}
		j := i + 1
		n := 0
		for j < len(line) && j-i <= 3 && line[j] >= '0' && line[j] <= '9' {
			n = n*10 + int(line[j]-'0')
			j++
		}
		if j == i+1 || (j < len(line) && (isWordByte(line[j]))) {
			continue
		}
		if n >= 1 && n <= 12 {
			return n, i, j
		}
	}
	return 0, 0, 0
}

// findResult returns the earliest verdict token in s and the offset just
// after it.
func findResult(s string) (Result, int, bool) {
	best, bestEnd := -1, 0
	var res Result
	consider := func(at, end int, r Result) {
		if at >= 0 && (best < 0 || at < best) {
			best, bestEnd, res = at, end, r
		}
	}
	for _, t := range tokens {
		from := 0
		for from < len(s) {
			k := strings.Index(s[from:], t.text)
			if k < 0 {
				break
			}
			at := from + k
			end := at + len(t.text)
			if t.ascii {
				if end+2 <= len(s) && (s[end:end+2] == "ED" || s[end:end+2] == "ed") {
					end += 2
				}
				if (at > 0 && isWordByte(s[at-1])) || (end < len(s) && isWordByte(s[end])) {
					from = at + 1
					continue
				}
			}
			consider(at, end, t.r)
			break
		}
	}
	return res, bestEnd, best >= 0
}

var tokens = []struct {
	text  string
	r     Result
	ascii bool
}{
	{"PASS", Pass, true}, {"Pass", Pass, true},
	{"FAIL", Fail, true}, {"Fail", Fail, true},
	{"통과", Pass, false}, {"실패", Fail, false},
	{"✅", Pass, false}, {"❌", Fail, false},
	{"✔", Pass, false}, {"✓", Pass, false}, {"✘", Fail, false}, {"✗", Fail, false},
}

func isWordByte(b byte) bool {
	return b == '_' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// cleanNote trims the separators critics put between a verdict and its
// reason ("— ", ": ", "| ", "** ") and table pipes at the end.
func cleanNote(s string) string {
	s = strings.TrimLeft(s, " \t*_:;,.|)]-–—\ufe0f")
	s = strings.TrimRight(s, " \t\r*_|")
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	return s
}
