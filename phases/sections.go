package phases

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// sectionAliases are the heading spellings accepted for each known plan
// section, English and Korean. The first entry is the canonical name.
var sectionAliases = [][]string{
	{"goal", "goals", "목표"},
	{"scope", "in scope", "범위"},
	{"non-scope", "non scope", "nonscope", "non-goals", "out of scope", "out-of-scope", "비범위", "범위 외"},
	{"steps", "implementation steps", "단계별 계획", "구현 단계"},
	{"verification", "test plan", "검증"},
	{"risks", "risk", "리스크", "위험"},
	{"open questions", "open question", "오픈 질문", "미결 질문"},
}

// sectionMatcher decides which required section a heading names.
//
// A heading names a section when its normalised text starts with one of the
// section's aliases, and an ASCII alias is not glued to a following letter,
// digit or hyphen ("Scope" does not match "Scopes-creep"; "Risks and
// mitigations" matches "Risks"). When several aliases match, the longest
// wins, over all known sections, required or not: so "Non-Scope" and
// "범위 외" are never counted as "Scope"/"범위", even when Non-Scope is not
// required.
type sectionMatcher struct {
	names   []string // required sections as configured, for messages
	aliases []alias  // longest first
}

type alias struct {
	text    string
	section int // index into names, or -1 for a known section not required
}

func newSectionMatcher(required []string) sectionMatcher {
	if len(required) == 0 {
		required = DefaultSections
	}
	m := sectionMatcher{names: required}
	used := make([]bool, len(sectionAliases))
	for i, name := range required {
		n := normHeading(name)
		g := knownGroup(n)
		if g < 0 {
			m.aliases = append(m.aliases, alias{n, i})
			continue
		}
		used[g] = true
		for _, a := range sectionAliases[g] {
			m.aliases = append(m.aliases, alias{a, i})
		}
	}
	for g, group := range sectionAliases {
		if used[g] {
			continue
		}
		for _, a := range group {
			m.aliases = append(m.aliases, alias{a, -1})
		}
	}
	sort.SliceStable(m.aliases, func(i, j int) bool { return len(m.aliases[i].text) > len(m.aliases[j].text) })
	return m
}

// koreanName returns the Korean heading accepted for a known section
// ("Goal" → "목표"), or "" for a section plansmith does not know.
func koreanName(section string) string {
	g := knownGroup(normHeading(section))
	if g < 0 {
		return ""
	}
	for _, a := range sectionAliases[g] {
		if a[0] >= utf8.RuneSelf {
			return a
		}
	}
	return ""
}

func knownGroup(n string) int {
	for g, group := range sectionAliases {
		for _, a := range group {
			if a == n {
				return g
			}
		}
	}
	return -1
}

// section returns the index of the required section a heading names, or -1.
func (m sectionMatcher) section(heading string) int {
	h := normHeading(heading)
	for _, a := range m.aliases {
		if !strings.HasPrefix(h, a.text) || (a.text == "" && h != "") {
			continue // a name with no letters ("🎯", "1") must not match every heading
		}
		if rest := h[len(a.text):]; rest != "" {
			last, _ := utf8.DecodeLastRuneInString(a.text)
			if last < utf8.RuneSelf && (isWordByte(rest[0]) || rest[0] == '-') {
				continue
			}
		}
		return a.section
	}
	return -1
}

// present returns, per required section, whether some heading names it.
func (m sectionMatcher) present(headings []string) []bool {
	got := make([]bool, len(m.names))
	left := len(got)
	for _, h := range headings {
		if i := m.section(h); i >= 0 && !got[i] {
			got[i] = true
			if left--; left == 0 {
				break
			}
		}
	}
	return got
}

// sectionsFound returns the required sections named by the headings, in
// configured order.
func (m sectionMatcher) sectionsFound(headings []string) []string {
	var out []string
	for i, ok := range m.present(headings) {
		if ok {
			out = append(out, m.names[i])
		}
	}
	return out
}

// sectionsMissing returns the required sections no heading names.
func (m sectionMatcher) sectionsMissing(headings []string) []string {
	var out []string
	for i, ok := range m.present(headings) {
		if !ok {
			out = append(out, m.names[i])
		}
	}
	return out
}
