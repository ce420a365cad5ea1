package phases

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plansmith/plansmith/internal/mdtext"
)

// Draft: the complete plan, with every required section as a heading and
// steps ordered from the least to the most dependent.

func validateDraft(cfg Config, a *answer) []Problem {
	return sections(cfg, a)
}

// sections is the positive check that every required section has a heading.
func sections(cfg Config, a *answer) []Problem {
	m := newSectionMatcher(cfg.RequiredSections)
	missing := m.sectionsMissing(sectionHeadings(a.shape()))
	if len(missing) == 0 {
		return nil
	}
	hint := "give each section its own markdown heading, e.g. \"## " + missing[0] + "\"; names that count — " + acceptedFor(m, missing)
	if n := unclosedFence(a.text); n > 0 {
		// The headings may be there, swallowed by the block (review AU3).
		hint = fmt.Sprintf("the code block opened on line %d is never closed, so everything after it is code and no heading there counts: close it, or do not wrap the plan in one; then ", n) + hint
	} else if n, names := fencedSections(a.text, m, missing); n > 0 {
		// A plan wrapped in a closed ```markdown block shows its headings,
		// but as code: the model must be told that, or it sends the same
		// answer again (review CP2).
		hint = fmt.Sprintf("the headings for %s are inside the code block opened on line %d, where they are code, not headings: write the plan as plain markdown, outside any code block", strings.Join(names, ", "), n)
	}
	return []Problem{{
		Check:  "required section headings",
		Found:  len(m.names) - len(missing),
		Need:   len(m.names),
		Detail: "missing: " + strings.Join(missing, ", "),
		Hint:   hint,
	}}
}

// unclosedFence is the line on which a code block that runs to the end of
// text opens, or 0 when every block is closed.
func unclosedFence(text string) int {
	var f mdtext.Fence
	open := 0
	for l := range mdtext.Lines(text) {
		was := f.Open()
		f.Step(l.Text)
		if !was && f.Open() {
			open = l.N
		}
	}
	if f.Open() {
		return open
	}
	return 0
}

// fencedSections returns the line on which the first code block that holds
// a heading for a missing section opens, and the missing sections that
// code-block headings name; 0 when none does.
func fencedSections(text string, m sectionMatcher, missing []string) (int, []string) {
	held := map[string]bool{}
	first, open := 0, 0
	for l := range mdtext.Lines(text) {
		if !l.Code {
			open = 0
			continue
		}
		if open == 0 {
			open = l.N
		}
		_, h, ok := mdtext.Heading(l.Text)
		if !ok {
			continue
		}
		known, _ := headingSections(h)
		for _, i := range m.sections(h, known) {
			if slices.Contains(missing, m.names[i]) {
				held[m.names[i]] = true
				if first == 0 {
					first = open
				}
			}
		}
	}
	var names []string
	for _, name := range missing {
		if held[name] {
			names = append(names, name)
		}
	}
	return first, names
}

// sectionHeadings are the headings that may name a section: all but the
// plan's title — its first heading, over headings all of deeper levels —
// unless the title is a section's name and nothing more, and not a name of
// the plan as a whole. "# Plan: add rate limiting", "# Implementation Plan"
// or "## Plan" over "###" sections are not the plan's steps (reviews AU1,
// AV3: a plan with no steps passed).
func sectionHeadings(sh shape) []string {
	if len(sh.headings) < 2 || sh.levels[0] < 1 {
		return sh.headings
	}
	for _, l := range sh.levels[1:] {
		if l != 0 && l <= sh.levels[0] {
			return sh.headings // sections at the first heading's level: no title
		}
	}
	if exactSectionName(sh.headings[0]) {
		return sh.headings
	}
	return sh.headings[1:]
}

// exactSectionName reports whether heading is, once normalised, one of the
// known sections' names and nothing else ("# Steps", "# 목표"), other than
// a name for a whole plan ("Plan", "Implementation Plan", "계획").
func exactSectionName(heading string) bool {
	h := normHeading(heading)
	if strings.Contains(h, "plan") || strings.Contains(h, "계획") || strings.Contains(h, "roadmap") || strings.Contains(h, "로드맵") {
		return false
	}
	for _, g := range sectionGroups {
		for _, list := range [][]string{g.canonical, g.strong, g.synonyms} {
			for _, name := range list {
				if h == name {
					return true
				}
			}
		}
	}
	return false
}

// acceptedFor says, per missing section, which heading names count.
func acceptedFor(m sectionMatcher, missing []string) string {
	var parts []string
	for _, name := range missing {
		for i, n := range m.names {
			if n != name {
				continue
			}
			if g := m.groups[i]; g >= 0 {
				parts = append(parts, fmt.Sprintf("%s: %s", name, strings.Join(acceptedNames(g, 6), ", ")))
			} else {
				parts = append(parts, fmt.Sprintf("%s: a heading that starts with %q", name, name))
			}
			break
		}
	}
	return strings.Join(parts, "; ")
}
