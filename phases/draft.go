package phases

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/mdtext"
	"github.com/plansmith/plansmith/templates"
)

// Draft: the complete plan, with every required section as a heading and
// steps ordered from the least to the most dependent.

func validateDraft(cfg Config, a *answer) []Problem {
	return sections(cfg, a)
}

// sections is the positive check that every required section has a heading,
// and content under it (see emptySections).
func sections(cfg Config, a *answer) []Problem {
	m := newSectionMatcher(cfg.RequiredSections)
	sh := a.shape()
	hs := sectionHeadings(sh)
	named, crowded := dropCrowded(m.named(hs), hs)
	missing := m.missing(named)
	if len(missing) == 0 {
		if empty, gapsOnly := emptySections(m, sh, named); len(empty) > 0 {
			// A section the agent wrote gaps in is told apart: it said
			// something there, and must learn why it does not count, or it
			// sends the same again (review EC2).
			var details []string
			if bare := slices.DeleteFunc(slices.Clone(empty), func(s string) bool { return slices.Contains(gapsOnly, s) }); len(bare) > 0 {
				details = append(details, "only a heading, or a placeholder under it: "+strings.Join(bare, ", "))
			}
			if len(gapsOnly) > 0 {
				details = append(details, "only the gaps block under it, which counts as content only under Risks, Open Questions or the like: "+strings.Join(gapsOnly, ", "))
			}
			detail := strings.Join(details, "; ")
			return []Problem{{
				Check:  "required sections with content",
				Found:  len(m.names) - len(empty),
				Need:   len(m.names),
				Detail: detail,
				Hint: "write each section's content under its heading; TBD, TODO, N/A, \"...\" or a <placeholder> is not content. " +
					"Where a section truly has nothing, say so and why in a sentence (e.g. \"None: the change touches one file\")",
			}}
		}
		return nil
	}
	hint := "give each section its own markdown heading, e.g. \"## " + missing[0] + "\"; names that count — " + acceptedFor(m, missing)
	if crowded != "" {
		hint = fmt.Sprintf("the heading %q names %d or more sections at once, so it counts for none of them: ", crowded, crowdedSections) + hint
	}
	if n := unclosedFence(a.text); n > 0 {
		// The headings may be there, swallowed by the block (review AU3).
		hint = fmt.Sprintf("the code block opened on line %d is never closed, so everything after it is code and no heading there counts: close it, or do not wrap the plan in one; then ", n) + hint
	} else if n, names := fencedSections(a.text, m, missing); n > 0 {
		// A plan wrapped in a closed ```markdown block shows its headings,
		// but as code: the model must be told that, or it sends the same
		// answer again (review CP2).
		fenced := fmt.Sprintf("the headings for %s are inside the code block opened on line %d, where they are code, not headings: write the plan as plain markdown, outside any code block", strings.Join(names, ", "), n)
		if len(names) < len(missing) {
			fenced += "; then " + hint // the others are missing anyway
		}
		hint = fenced
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

// crowdedSections is how many required sections one heading may name
// before it names none: "Goals and Scope" is a plan's, "Goal, Scope,
// Non-Scope, Steps, Verification, Risks, Open Questions" over one line is a
// way round the check (review CP3).
const crowdedSections = 4

// dropCrowded removes what headings naming crowdedSections or more
// required sections name, and returns the first such heading ("" if none).
func dropCrowded(named namedSections, headings []string) (namedSections, string) {
	first := -1
	for i := range named.end {
		if len(named.of(i)) >= crowdedSections {
			first = i
			break
		}
	}
	if first < 0 {
		return named, ""
	}
	out := namedSections{end: make([]int32, len(named.end))}
	for i := range named.end {
		if rs := named.of(i); len(rs) < crowdedSections {
			out.flat = append(out.flat, rs...)
		}
		out.end[i] = int32(len(out.flat))
	}
	return out, templates.OneLine(headings[first], 80)
}

// emptySections returns the required sections every heading of which is
// hollow, names being the required sections each of sectionHeadings(sh)
// names (review CP3): a plan of seven bare headings, or of headings over
// "TBD", passed the draft and the final revise. An ATX heading's section
// runs to the next ATX heading at its level or above, its subsections
// included whatever they are called ("## Future work" over "### 1. Backward
// paging 구현"); a bold label's, to the next heading or label that names a
// required section ("**Steps**" over "**1. Add the retry type**" is one
// section). The section has content when a line in it
// does (hasContent), when its heading says more than a section's name
// ("## Goal: add retries"), or when a subheading says anything ("### Step
// 1: the retry type") but name a section for uncertainty ("### Known
// gaps"). gapsOnly are the empty sections that hold gaps,
// which are content only in a section for uncertainty (gate.NamesUncertainty).
func emptySections(m sectionMatcher, sh shape, names namedSections) (empty, gapsOnly []string) {
	hs := sectionHeadings(sh)
	off := len(sh.headings) - len(hs)
	filled, gaps := make([]bool, len(m.names)), make([]bool, len(m.names))
	for i := 0; i < len(hs); i++ {
		if len(names.of(i)) == 0 {
			continue
		}
		level := sh.levels[off+i]
		full, hasGaps := sh.filled[off+i] || saysMore(hs[i]), sh.gapsOnly[off+i]
		for j := i + 1; j < len(hs) && !full; j++ {
			lj := sh.levels[off+j]
			if (level > 0 && lj > 0 && lj <= level) || (level == 0 && len(names.of(j)) > 0) {
				break
			}
			// A subheading that only names a section for uncertainty says
			// nothing of this one: "## Steps" over "### Known gaps" over
			// the gaps block held no steps.
			full = sh.filled[off+j] || hasContent(hs[j]) && !gate.OnlyNamesUncertainty(hs[j])
			hasGaps = hasGaps || sh.gapsOnly[off+j]
		}
		for _, r := range names.of(i) {
			// Gaps are content only for a section for uncertainty, judged
			// by the section's name, not the heading's: "## Steps and
			// Risks" over one gap, "steps not written", has Risks but no
			// Steps (review EB2).
			filled[r] = filled[r] || full || hasGaps && gate.NamesUncertainty(m.names[r])
			gaps[r] = gaps[r] || hasGaps
		}
	}
	for r, ok := range filled {
		if !ok {
			empty = append(empty, m.names[r])
			if gaps[r] {
				gapsOnly = append(gapsOnly, m.names[r])
			}
		}
	}
	return empty, gapsOnly
}

// saysMore reports whether a section's heading carries content after a
// colon or a dash ("Goal: add retries to the sender").
func saysMore(h string) bool {
	for _, sep := range []string{":", "：", " — ", " – ", " - "} {
		// Words that only name a section for uncertainty say nothing of
		// this one: "## Steps: open questions" over one gap held no steps
		// (review EB2).
		if _, after, ok := strings.Cut(h, sep); ok && hasContent(after) && !gate.OnlyNamesUncertainty(after) {
			return true
		}
	}
	return false
}

// onlyNamesUncertainty reports whether a line of text, its list marker
// aside, only names a section for uncertainty ("Known gaps:", "- Open
// questions") and so says nothing of the section it stands in, as such a
// subheading says nothing (emptySections): "## Steps" over "Known gaps:"
// over the gaps block held no steps (review FF6).
func onlyNamesUncertainty(line string) bool {
	return gate.OnlyNamesUncertainty(strings.TrimLeft(line, "-+*> \t")) // a number is no word to it
}

// hasContent reports whether a line outside code says something
// (mdtext.SaysSomething), its promise tags aside.
func hasContent(line string) bool {
	if strings.IndexByte(line, '<') >= 0 && strings.Contains(asciiLower(line), "<promise") {
		line = stripPromises(line)
	}
	return mdtext.SaysSomething(line)
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
