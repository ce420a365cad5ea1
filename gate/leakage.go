package gate

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/plansmith/plansmith/internal/mdtext"
	"github.com/plansmith/plansmith/templates"
)

// LeakageThreshold is how many distinct gap-like phrases the plan must use
// outside its gaps block before they are merged in as gaps. Fewer are taken
// as ordinary slips of wording; the critic still reads the whole plan.
const LeakageThreshold = 3

// PhrasesFile is the embedded list of gap-like phrases.
const PhrasesFile = "gate/leakage-phrases.txt"

// Hit is one gap-like phrase found in a plan.
type Hit struct {
	Phrase string // as listed in the phrases file, lowercase
	Line   int    // 1-based line of the plan
	Text   string // the whole line, trimmed, as the agent wrote it
}

var (
	phrasesOnce sync.Once
	phraseList  []string
)

// Phrases returns the phrase list from the embedded phrases file: one phrase
// per line, lowercased, blank lines and "#" comments skipped, duplicates
// dropped. The file is compiled in, so a failure here is a build defect that
// the package tests catch; it yields an empty list rather than a panic.
func Phrases() []string {
	phrasesOnce.Do(func() {
		src, err := templates.Text(PhrasesFile)
		if err != nil {
			return
		}
		phraseList = ParsePhrases(src)
	})
	return phraseList
}

// ParsePhrases reads a phrase list in the phrases file's format.
func ParsePhrases(src string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(src, "\n") {
		p := strings.ToLower(strings.Join(strings.Fields(l), " "))
		if p == "" || strings.HasPrefix(p, "#") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// Leakage scans plan for gap-like phrases outside the gaps block, fenced code
// blocks, inline code spans and rodin comments. Matching ignores case and
// respects word boundaries at phrase ends made of letters or digits (so
// "untested" is not "tested", and "todos" is not "todo"), except for Hangul,
// which Korean particles attach to. Hits come in line order, one per phrase
// per line.
//
// Not every occurrence is a hedge (see documented and quotedOrIdentifier):
// headings are titles, not hedges; text under a heading that documents
// uncertainty (Risks, Assumptions, Open Questions, Unknowns, Non-Scope, and
// their Korean names) has already been written down as such, tables there
// included; a phrase glued to an identifier or path ("todo-labels",
// "/api/todo", "TODO.md") or inside double quotes is quoted, not voiced;
// and "todo"/"fixme" count only as the annotation "TODO …" (in capitals,
// followed by what is left to do), not as a feature's name ("the Todo
// app") or a status value ("Phase status: TODO", "| TODO |").
func Leakage(plan string) []Hit {
	return leakage(plan, Phrases())
}

func leakage(plan string, phrases []string) []Hit {
	// Lowercase the scannable lines once and search each phrase through
	// the whole text: one fast substring search per phrase instead of one
	// per phrase per line. Lines that are not scanned stay as empty lines
	// so offsets map back to line numbers.
	lines := scan(plan)
	skip := documented(lines)
	starts := make([]int, len(lines))
	orig := make([]string, len(lines))
	var b strings.Builder
	for i, l := range lines {
		starts[i] = b.Len()
		if l.Kind == kindText && !skip[i] {
			orig[i] = stripInlineCode(l.Text)
			b.WriteString(strings.ToLower(orig[i]))
		}
		b.WriteByte('\n')
	}
	text := b.String()
	type found struct{ line, phrase int }
	var hits []found
	for pi, p := range phrases {
		if p == "" {
			continue
		}
		last := -1
		for from := 0; from < len(text); {
			k := strings.Index(text[from:], p)
			if k < 0 {
				break
			}
			at := from + k
			li := sort.SearchInts(starts, at+1) - 1
			lineEnd := len(text) - 1
			if li+1 < len(starts) {
				lineEnd = starts[li+1] - 1
			}
			line := text[starts[li]:lineEnd]
			off := at - starts[li]
			if li != last && boundaryBefore(line, off, p) && boundaryAfter(line, off+len(p), p) &&
				!quotedOrIdentifier(orig[li], line, off, off+len(p), p) {
				hits = append(hits, found{li, pi})
				last = li
			}
			_, size := utf8.DecodeRuneInString(text[at:])
			from = at + size
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].line != hits[j].line {
			return hits[i].line < hits[j].line
		}
		return hits[i].phrase < hits[j].phrase
	})
	if len(hits) == 0 {
		return nil
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		l := lines[h.line]
		out[i] = Hit{Phrase: phrases[h.phrase], Line: l.N, Text: strings.TrimSpace(l.Text)}
	}
	return out
}

// uncertaintyHeadings name the sections in which a plan documents its
// uncertainty; a heading naming one, anywhere in it, opens such a section.
var uncertaintyHeadings = []string{"risk", "risks", "mitigation", "mitigations", "assumption", "assumptions",
	"open question", "open questions", "questions", "unknowns", "unresolved", "uncertainty", "uncertainties", "limitations", "known issues", "open issues",
	"trade-offs", "tradeoffs", "non-scope", "non-goals", "out of scope", "future work", "caveats", "gaps", "known gaps",
	"리스크", "위험", "대응 방안", "가정", "질문", "미결", "미해결", "미정", "제약 사항", "범위 밖", "범위 외", "비범위",
	"제외 범위", "향후", "한계"}

// documented marks the lines that sit under a heading documenting
// uncertainty, up to the next heading of the same or a higher level (a
// bold label such as "**Risks**" runs to the next heading or label), and
// every heading line itself: a title is not a hedge.
func documented(lines []line) []bool {
	out := make([]bool, len(lines))
	open, openLevel := false, 0
	for i, l := range lines {
		if l.Kind != kindText {
			continue
		}
		level, h, ok := mdtext.Heading(l.Text)
		if !ok {
			if label, isLabel := mdtext.BoldLabel(l.Text); isLabel {
				level, h, ok = 7, label, true
			}
		}
		if !ok {
			out[i] = open
			continue
		}
		out[i] = true
		if open && level <= openLevel {
			open = false
		}
		if !open && NamesUncertainty(h) {
			open, openLevel = true, level
		}
	}
	return out
}

// OnlyNamesUncertainty reports whether text names sections for uncertainty
// and says nothing else ("open questions", "risks and known gaps"): after a
// section's name in a heading ("## Steps: open questions") it says nothing
// about that section (review EB2).
func OnlyNamesUncertainty(text string) bool {
	if !NamesUncertainty(text) {
		return false
	}
	h := strings.ToLower(text)
	if strings.ContainsAny(h, unicodeHyphens) {
		h = hyphenFold.Replace(h)
	}
	words := map[string]bool{"and": true, "or": true, "known": true}
	for _, p := range uncertaintyHeadings {
		for _, w := range strings.Fields(p) {
			words[w] = true
		}
	}
	for _, w := range strings.FieldsFunc(h, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		if !words[w] {
			return false
		}
	}
	return true
}

// NamesUncertainty reports whether a heading names a section in which a
// plan documents its uncertainty (Risks, Open Questions, Assumptions, …):
// hedging there is no leak, and the gaps block there is the section's
// content (phases).
func NamesUncertainty(heading string) bool {
	h := strings.ToLower(heading)
	if strings.ContainsAny(h, unicodeHyphens) {
		h = hyphenFold.Replace(h) // "Non‑Goals", "Trade‑offs" (review CP6)
	}
	for _, w := range uncertaintyHeadings {
		for from := 0; ; {
			k := strings.Index(h[from:], w)
			if k < 0 {
				break
			}
			at := from + k
			if boundaryBefore(h, at, w) && boundaryAfter(h, at+len(w), w) {
				return true
			}
			from = at + 1
		}
	}
	return false
}

// quotedOrIdentifier reports whether the match [start,end) in lower (the
// lower-cased line; orig is the line as written) is not the plan's own
// voice: inside double quotes, glued to an identifier or path, or a
// "todo"/"fixme" that is not the "TODO:" annotation.
func quotedOrIdentifier(orig, lower string, start, end int, phrase string) bool {
	if strings.Count(lower[:start], "\"")%2 == 1 || strings.Count(lower[:start], "“") > strings.Count(lower[:start], "”") {
		return true
	}
	if start > 0 && isIdentByte(lower[start-1]) || end < len(lower) && isIdentByte(lower[end]) && end+1 < len(lower) && isWordByteASCII(lower[end+1]) {
		return true
	}
	if phrase != "todo" && phrase != "fixme" {
		return false
	}
	if len(orig) != len(lower) || orig[start:end] != strings.ToUpper(phrase) {
		return true // "Todo app", "todo list": a name, not the annotation
	}
	// The annotation is followed by what is left to do; a status value
	// ("Phase status: TODO", "| TODO |") ends its line or its cell.
	rest := strings.TrimLeft(orig[end:], " *_")
	return rest == "" || rest[0] == '|' || rest[0] == '\\'
}

// isIdentByte: characters that glue a word into an identifier or a path.
func isIdentByte(b byte) bool { return b == '-' || b == '_' || b == '/' || b == '.' }

func isWordByteASCII(b byte) bool {
	return b == '_' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// Distinct returns the distinct phrases among hits, in order of first use.
func Distinct(hits []Hit) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range hits {
		if !seen[h.Phrase] {
			seen[h.Phrase] = true
			out = append(out, h.Phrase)
		}
	}
	return out
}

// stripInlineCode blanks `code spans`, which quote code or commands rather
// than voice the plan's own doubts. An unpaired backtick is left as text.
func stripInlineCode(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		s = s[i+1+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

func boundaryBefore(text string, start int, p string) bool {
	first, _ := utf8.DecodeRuneInString(p)
	if !needsBoundary(first) || start == 0 {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(text[:start])
	return !isWordRune(prev)
}

func boundaryAfter(text string, end int, p string) bool {
	last, _ := utf8.DecodeLastRuneInString(p)
	if !needsBoundary(last) || end >= len(text) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(text[end:])
	return !isWordRune(next)
}

func needsBoundary(r rune) bool {
	return isWordRune(r) && !unicode.Is(unicode.Hangul, r)
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// MergeLeakage adds the plan's leaked uncertainty to its gaps block. When
// Leakage finds at least LeakageThreshold distinct phrases, each distinct
// phrase becomes one new medium gap, numbered from the highest existing
// GAP-<n> plus one (GAP-1 in an empty block), inserted just before the end
// marker; existing gaps are never touched. Below the threshold the plan comes
// back unchanged with no gaps added. A plan without a gaps block gives an
// error wrapping ErrNoGapsBlock; a malformed block gives ParseGaps' error.
//
// One gap per phrase (not per line) keeps the count honest when a plan
// repeats the same hedge; its description quotes up to three of the lines.
// A phrase whose gap the block already holds (same generated title, as left
// by an earlier merge) is not added again, so merging twice changes nothing.
func MergeLeakage(plan string) (string, []Gap, error) {
	return mergeLeakage(plan, Phrases())
}

// Assessed reports whether s's assessment is of plan as the agent wrote it:
// the hashes Begin took of it, after merging the gaps the leakage scan
// adds (review BA3: the same plan sent again was taken for a new one).
func Assessed(plan string, s Session) bool {
	merged, _, err := MergeLeakage(plan)
	if err != nil {
		merged = plan
	}
	return PlanHash(merged) == s.PlanHash && GapsHash(merged) == s.GapsHash
}

func mergeLeakage(plan string, phrases []string) (string, []Gap, error) {
	g, err := ParseGaps(plan)
	if err != nil {
		return plan, nil, err
	}
	if !g.Present {
		return plan, nil, fmt.Errorf("merge leakage: %w", ErrNoGapsBlock)
	}
	hits := leakage(plan, phrases)
	distinct := Distinct(hits)
	if len(distinct) < LeakageThreshold {
		return plan, nil, nil
	}
	next := 1
	for _, it := range g.Items {
		if it.ID >= next {
			next = it.ID + 1
		}
	}
	byPhrase := map[string][]Hit{}
	for _, h := range hits {
		byPhrase[h.Phrase] = append(byPhrase[h.Phrase], h)
	}
	have := map[string]bool{}
	for _, it := range g.Items {
		have[it.Title] = true
	}
	added := make([]Gap, 0, len(distinct))
	for _, p := range distinct {
		title := leakTitle(p)
		if have[title] {
			continue // merged by an earlier assessment and kept by the agent
		}
		added = append(added, Gap{
			ID:          next,
			Title:       title,
			Severity:    Medium,
			Description: leakDescription(p, byPhrase[p]),
		})
		next++
	}

	if len(added) == 0 {
		return plan, nil, nil
	}
	lines := strings.SplitAfter(plan, "\n")
	endIdx := g.End - 1 // g.End is 1-based; the block is well formed here
	nl := "\n"
	if strings.HasSuffix(strings.TrimSuffix(lines[endIdx], "\n"), "\r") {
		nl = "\r\n"
	}
	var ins strings.Builder
	prev := strings.TrimSpace(lines[endIdx-1])
	if prev != "" && prev != GapsStart {
		ins.WriteString(nl)
	}
	for i, a := range added {
		if i > 0 {
			ins.WriteString(nl)
		}
		ins.WriteString(a.Markdown(nl))
	}
	out := strings.Join(lines[:endIdx], "") + ins.String() + strings.Join(lines[endIdx:], "")

	// Report the added gaps with the lines they now occupy.
	merged, err := ParseGaps(out)
	if err != nil {
		return plan, nil, fmt.Errorf("merge leakage produced a malformed block: %w", err)
	}
	for i := range added {
		for _, it := range merged.Items {
			if it.ID == added[i].ID {
				added[i].Line = it.Line
			}
		}
	}
	return out, added, nil
}

func leakTitle(phrase string) string {
	return fmt.Sprintf("Unresolved wording in the plan: %q", phrase)
}

func leakDescription(phrase string, hits []Hit) string {
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Line < hits[j].Line })
	quotes := make([]string, 0, 3)
	for i, h := range hits {
		if i == 3 {
			break
		}
		quotes = append(quotes, fmt.Sprintf("%q", clip(h.Text, 160)))
	}
	more := ""
	if len(hits) > 3 {
		more = fmt.Sprintf(" (and %d more)", len(hits)-3)
	}
	return fmt.Sprintf("The plan says %q outside its gaps block, an uncertainty it does not document as a gap: %s%s.",
		phrase, strings.Join(quotes, "; "), more)
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
