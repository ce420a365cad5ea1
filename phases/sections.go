package phases

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/plansmith/plansmith/internal/mdtext"
)

// sectionGroup is one known plan section and the names that mean it, in
// English and Korean, lower case. A heading names the section when one of
// its names appears anywhere in the heading (see headingSections).
//
//   - canonical names are the section's own spellings: a --required-sections
//     entry spelled this way asks for the whole group, synonyms included.
//   - strong names are spellings only a plan uses as a heading; they also
//     drive the phase-collapse check of the phases before the draft.
//   - synonyms are common names that answers also use for analysis
//     ("Context", "Requirements", "Success criteria"): a draft may name its
//     section with them, but they never make an earlier answer a plan.
//
// A strong single word ("goal", "tasks") counts for phase collapse only at
// the start of a heading, so "## The goal behind the request" or
// "## Scheduled tasks in the worker" are not plan sections; multi-word
// strong names ("implementation plan", "out of scope") count anywhere.
type sectionGroup struct {
	canonical, strong, synonyms []string
}

// sectionGroups are the known sections in DefaultSections order.
var sectionGroups = []sectionGroup{
	{ // Goal
		canonical: []string{"goal", "goals", "목표"},
		strong:    []string{"objective", "objectives"},
		synonyms:  []string{"overview", "context", "summary", "purpose", "background", "motivation", "problem statement", "개요", "목적", "배경", "요약"},
	},
	{ // Scope
		canonical: []string{"scope", "in scope", "범위"},
		strong:    []string{"deliverables", "산출물"},
		synonyms:  []string{"requirements", "요구사항", "요구 사항", "적용 범위"},
	},
	{ // Non-Scope
		canonical: []string{"non-scope", "non scope", "nonscope", "non-goals", "out of scope", "out-of-scope", "비범위", "범위 외"},
		strong:    []string{"non goals", "not in scope", "범위 밖", "제외 범위", "non-goal", "non goal", "비목표"},
		synonyms: []string{"future work", "향후 개선 사항", "future enhancements", "exclusions", "deferred", "향후 개선", "향후 과제", "향후 작업", "제외 사항",
			"not doing", "won't do", "won’t do", "will not do"},
	},
	{ // Steps
		canonical: []string{"steps", "implementation steps", "단계별 계획", "구현 단계"},
		strong: []string{"tasks", "작업 단계", "implementation plan", "milestones", "phases", "구현 계획", "implementation phases",
			"implementation order", "implementation strategy", "development phases", "execution plan", "work plan", "task list",
			"task breakdown", "rollout plan", "migration plan", "roadmap", "작업 계획", "작업 목록", "구현 순서",
			"마일스톤", "로드맵", "개발 단계", "실행 계획"},
		synonyms: []string{"단계", "implementation", "plan", "task", "stages", "작업", "구현", "순서", "계획", "step-by-step", "step by step"},
	},
	{ // Verification
		canonical: []string{"verification", "test plan", "검증"},
		strong: []string{"testing strategy", "testing plan", "test strategy", "validation plan", "exit criteria",
			"definition of done", "테스트 계획", "검증 계획", "완료 조건", "완료 기준", "수용 기준", "인수 조건"},
		synonyms: []string{"acceptance criteria", "testing", "테스트", "tests", "test", "success criteria", "validation", "how to verify",
			"확인 방법"},
	},
	{ // Risks
		canonical: []string{"risks", "리스크", "risk", "위험"},
		strong:    []string{"mitigations", "mitigation", "risk assessment", "위험 요소"},
		synonyms:  []string{"trade-offs", "tradeoffs", "trade offs", "concerns", "대응 방안", "트레이드오프", "우려"},
	},
	{ // Open Questions
		canonical: []string{"open questions", "오픈 질문", "open question", "미결 질문"},
		strong:    []string{"unresolved questions", "open issues", "미해결 질문", "열린 질문", "미결정 사항", "미결 사항"},
		synonyms:  []string{"unknowns", "questions", "미정", "undecided", "질문", "확인 필요"},
	},
}

// startOnly are the synonyms that name a section only at the start of a
// heading: "## Plan" is the steps, "## Risks and rollback plan" is not
// (review AU1).
var startOnly = map[string]bool{"plan": true, "계획": true}

// workUnitWords introduce a numbered unit of planned work in a heading
// ("Phase 1: …", "Step 2.1", "Task 3", "Milestone M2", "1단계").
var workUnitWords = []string{"phase", "step", "task", "stage", "milestone", "sprint", "week", "part"}

// sectionMatcher decides which required sections the headings of an answer
// name.
//
// A required name spelled like a known section's canonical name asks for
// that section: any of its names, anywhere in a heading, counts, and a
// numbered work-unit heading ("Phase 1: …", "1단계") counts as Steps. Any
// other name is the user's own (--required-sections "Context,Rollback")
// and keeps its exact spelling: the heading must start with it, leading
// numbering ignored. Where names overlap, the longest wins over all known
// sections, so "Non-Scope" and "범위 외" never count as "Scope"/"범위",
// and "Goals and Scope" counts for both.
type sectionMatcher struct {
	names  []string // required sections as configured, for messages
	groups []int    // per required name: index into sectionGroups, or -1 for a custom name
	custom []string // per required name: the normalised custom name ("" for known ones)
}

func newSectionMatcher(required []string) sectionMatcher {
	if len(required) == 0 {
		required = DefaultSections
	}
	m := sectionMatcher{names: required, groups: make([]int, len(required)), custom: make([]string, len(required))}
	for i, name := range required {
		n := normHeading(name)
		m.groups[i] = canonicalGroup(n)
		if m.groups[i] < 0 {
			m.custom[i] = n
		}
	}
	return m
}

// canonicalGroup returns the group whose canonical name n is, or -1.
func canonicalGroup(n string) int {
	for g, group := range sectionGroups {
		for _, a := range group.canonical {
			if a == n {
				return g
			}
		}
	}
	return -1
}

// koreanName returns the Korean heading accepted for a known section
// ("Goal" → "목표"), or "" for a section plansmith does not know.
func koreanName(section string) string {
	g := canonicalGroup(normHeading(section))
	if g < 0 {
		return ""
	}
	for _, a := range sectionGroups[g].canonical {
		if a[0] >= utf8.RuneSelf {
			return a
		}
	}
	return ""
}

// acceptedNames lists what counts for a required section, for the refusal
// message: the first canonical name, the other languages' and the common
// synonyms, at most n of them.
func acceptedNames(g, n int) []string {
	group := sectionGroups[g]
	// The canonical names, then the strong names and the synonyms in turn,
	// so the list shows both kinds.
	all := append([]string{}, group.canonical...)
	for i := 0; i < max(len(group.strong), len(group.synonyms)); i++ {
		if i < len(group.strong) {
			all = append(all, group.strong[i])
		}
		if i < len(group.synonyms) {
			all = append(all, group.synonyms[i])
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, a := range all {
		if len(out) == n {
			break
		}
		key := strings.ReplaceAll(strings.ReplaceAll(a, "-", " "), "  ", " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, a)
	}
	if g == 3 && len(out) < n+1 {
		out = append(out, "Phase 1 / Step 1 / Task 1")
	}
	return out
}

// nameMatch is one occurrence of a section name in a heading.
type nameMatch struct {
	start, end int
	group      int
	strong     bool // a strong or canonical name (see sectionGroup)
}

// headingSections returns the known sections a heading names: all of
// them, and those named by a strong or canonical name (a single-word one
// only at the start of the heading), which alone make an answer before the
// draft a plan. One pass serves both (review AU7: a heading-dense answer
// took 0.4 s per MiB).
func headingSections(heading string) (all, strong []int) {
	h := normHeading(heading)
	if h == "" {
		return nil, nil
	}
	ms := nameMatches(h)
	if n := workUnitAt(h); n > 0 {
		// "Phase 1: …" is a Steps heading in a draft; before the draft a
		// flow traced step by step is ordinary, so it only adds to the
		// plan-shape count (see planHeadings).
		ms = append(ms, nameMatch{0, n, 3, false})
	}
	// Longest first: a longer name hides the shorter ones inside it. The
	// bytes taken are marked, so a heading with many names costs their
	// total length, not their number squared (review AV5: one 1 MB heading
	// took 25 s).
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].end-ms[i].start > ms[j].end-ms[j].start })
	var taken []bool
	if len(ms) > 1 {
		taken = make([]bool, len(h))
	}
	for _, m := range ms {
		if taken != nil {
			if slices.Contains(taken[m.start:m.end], true) {
				continue
			}
			for i := m.start; i < m.end; i++ {
				taken[i] = true
			}
		}
		if !slices.Contains(all, m.group) {
			all = append(all, m.group)
		}
		if m.strong && (m.start == 0 || strings.ContainsAny(h[m.start:m.end], " -")) && !slices.Contains(strong, m.group) {
			strong = append(strong, m.group)
		}
	}
	sort.Ints(all)
	sort.Ints(strong)
	return all, strong
}

// knownName is one name of a known section, as nameMatches looks for it.
type knownName struct {
	name   string
	group  int
	strong bool // a strong or canonical name (see sectionGroup)
}

// knownNames indexes every name of sectionGroups: the ASCII ones by their
// first word, the others (Korean) in a list.
var knownNames = sync.OnceValue(func() (idx struct {
	ascii map[string][]knownName
	other []knownName
}) {
	idx.ascii = map[string][]knownName{}
	for g, group := range sectionGroups {
		for tier, list := range [][]string{group.canonical, group.strong, group.synonyms} {
			for _, name := range list {
				n := knownName{name, g, tier < 2}
				if name[0] >= utf8.RuneSelf {
					idx.other = append(idx.other, n)
					continue
				}
				first := wordRun(name, 0)
				idx.ascii[first] = append(idx.ascii[first], n)
			}
		}
	}
	return idx
})

// wordRun is the run of word bytes (isWordByte) in s from at.
func wordRun(s string, at int) string {
	end := at
	for end < len(s) && isWordByte(s[end]) {
		end++
	}
	return s[at:end]
}

// nameMatches finds every occurrence of a known section name in h (a
// normalised heading) as phraseAt defines it: an ASCII name as whole words,
// looked up by the word it starts with at each word start; a Korean one
// anywhere. A synonym in startOnly counts only at the start.
func nameMatches(h string) []nameMatch {
	idx := knownNames()
	var ms []nameMatch
	add := func(n knownName, at int) {
		if at > 0 && !n.strong && startOnly[n.name] {
			return
		}
		ms = append(ms, nameMatch{at, at + len(n.name), n.group, n.strong})
	}
	for at := 0; at < len(h); {
		if !isWordByte(h[at]) || at > 0 && glued(h[at-1]) {
			at++
			continue
		}
		word := wordRun(h, at)
		for _, n := range idx.ascii[word] {
			end := at + len(n.name)
			if strings.HasPrefix(h[at:], n.name) && (end == len(h) || !glued(h[end])) {
				add(n, at)
			}
		}
		at += len(word)
	}
	if !isASCII(h) {
		for _, n := range idx.other {
			for _, at := range phraseAt(h, n.name) {
				add(n, at)
			}
		}
	}
	return ms
}

// isASCII reports whether s holds no byte of a multi-byte character.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// phraseAt returns the offsets where phrase occurs in h as whole words: an
// ASCII phrase must not touch a letter, digit or hyphen on either side; a
// Korean one may, since particles attach to words.
func phraseAt(h, phrase string) []int {
	var out []int
	ascii := phrase[0] < utf8.RuneSelf
	for from := 0; from < len(h); {
		i := strings.Index(h[from:], phrase)
		if i < 0 {
			break
		}
		at := from + i
		end := at + len(phrase)
		if !ascii || ((at == 0 || !glued(h[at-1])) && (end == len(h) || !glued(h[end]))) {
			out = append(out, at)
		}
		from = at + 1
	}
	return out
}

func glued(b byte) bool { return isWordByte(b) || b == '-' }

// workUnitAt returns the length of a numbered work-unit opening h ("phase 1",
// "step 2.1", "m0", "1단계", "2차"), or 0.
func workUnitAt(h string) int {
	for _, w := range workUnitWords {
		if !strings.HasPrefix(h, w) {
			continue
		}
		rest := strings.TrimLeft(h[len(w):], " ")
		if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return len(h) - len(rest) + 1
		}
	}
	if len(h) >= 2 && h[0] == 'm' && h[1] >= '0' && h[1] <= '9' && (len(h) == 2 || !isASCIILetter(h[2])) {
		return 2
	}
	n := 0
	for n < len(h) && h[n] >= '0' && h[n] <= '9' {
		n++
	}
	if n > 0 {
		for _, k := range []string{"단계", "차"} {
			if strings.HasPrefix(strings.TrimLeft(h[n:], " "), k) {
				return n + len(k)
			}
		}
	}
	return 0
}

// sections returns the required sections a heading names (indices into
// names), known being the known sections it names (headingSections).
func (m sectionMatcher) sections(heading string, known []int) []int {
	return m.appendSections(nil, heading, known)
}

// appendSections is sections appending to out.
func (m sectionMatcher) appendSections(out []int, heading string, known []int) []int {
	h := normHeading(heading)
	for i, g := range m.groups {
		if g >= 0 {
			for _, k := range known {
				if k == g {
					out = append(out, i)
				}
			}
			continue
		}
		c := m.custom[i]
		if c == "" || !strings.HasPrefix(h, c) {
			continue // a name with no letters ("🎯", "1") must not match every heading
		}
		if rest := h[len(c):]; rest != "" {
			last, _ := utf8.DecodeLastRuneInString(c)
			if last < utf8.RuneSelf && glued(rest[0]) {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// namedSections holds, per heading, the required sections it names, in one
// backing slice: a heading-dense answer has a heading per line, and a slice
// per heading kept them all alive at once (review CP3's peak memory).
type namedSections struct {
	flat []int
	end  []int32 // per heading, where its sections end in flat
}

// of returns the required sections heading i names.
func (n namedSections) of(i int) []int {
	start := int32(0)
	if i > 0 {
		start = n.end[i-1]
	}
	return n.flat[start:n.end[i]]
}

// named returns, per heading, the required sections it names.
func (m sectionMatcher) named(headings []string) namedSections {
	n := namedSections{end: make([]int32, len(headings))}
	for i, h := range headings {
		known, _ := headingSections(h)
		n.flat = m.appendSections(n.flat, h, known)
		n.end[i] = int32(len(n.flat))
	}
	return n
}

// missing returns the required sections no heading names, given what each
// names (named).
func (m sectionMatcher) missing(named namedSections) []string {
	got := make([]bool, len(m.names))
	for _, r := range named.flat {
		got[r] = true
	}
	var out []string
	for i, ok := range got {
		if !ok {
			out = append(out, m.names[i])
		}
	}
	return out
}

// normHeading prepares a heading for section matching: lower case, without
// leading numbering ("1.", "2)", "3.1"), emoji or punctuation, and without
// a trailing colon, question mark or emphasis ("## 1. 🎯 Goal:" → "goal").
// The hyphens that models type in place of "-" (the non-breaking hyphen
// U+2011 above all: "Non‑Goals", "Out‑of‑Scope") are read as "-", since
// they look the same in the refusal that names the section (review CP1).
func normHeading(h string) string {
	h = foldHyphens(h)
	h = strings.TrimFunc(h, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ')' })
	h = mdtext.StripNumber(h)
	h = strings.TrimLeftFunc(h, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	h = strings.TrimRight(h, " \t:*_#?")
	return strings.ToLower(h)
}

// unicodeHyphens are the characters that are a hyphen in print: hyphen,
// non-breaking hyphen, figure dash, minus sign, small and fullwidth
// hyphen-minus. The en and em dashes are not: they separate ("Goal — why").
const unicodeHyphens = "\u2010\u2011\u2012\u2212\ufe63\uff0d"

var hyphenFold = strings.NewReplacer("\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2212", "-", "\ufe63", "-", "\uff0d", "-")

// foldHyphens writes the hyphens of unicodeHyphens as "-".
func foldHyphens(s string) string {
	if !strings.ContainsAny(s, unicodeHyphens) {
		return s
	}
	return hyphenFold.Replace(s)
}
