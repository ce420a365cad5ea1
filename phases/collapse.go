package phases

import (
	"fmt"
	"strings"
)

// Phase collapse is the failure the checks before the draft exist to stop:
// an understand, explore or alternatives answer that is already the plan.
// A plan is recognised by its shape, not only by the configured section
// names:
//
//   - a heading naming a required section by a plan-only name ("## Steps",
//     "## Implementation Plan", "## 범위 외", "## Out of scope", see
//     sectionGroup.strong) — refused on its own, as before;
//   - otherwise, at least two of: a heading naming any other known section
//     by such a name, numbered work-unit headings ("Phase 1: …", "Step
//     2.1", "Task 3", "1단계", at least two), a checkbox task list (three
//     or more "- [ ]" items), a plan title (a level-1 or first heading that
//     calls the text a plan, roadmap, proposal or task list), and headings
//     naming four or more known sections by any of their names.
//
// One signal alone is ordinary analysis ("## Success criteria", a single
// "- [ ]" list of questions); two are a plan.

const (
	collapseWorkUnits  = 2 // numbered work-unit headings that make a plan
	collapseCheckboxes = 3 // checkbox items that make a task list
	collapseSections   = 4 // distinct known sections named by any name
	collapseSignals    = 2 // signals that together are a plan
)

// planTitleWords make a title heading a plan's title.
var planTitleWords = []string{"plan", "plans", "roadmap", "proposal", "tasks", "task tracker", "checklist",
	"계획", "계획서", "로드맵", "작업 명세", "체크리스트", "제안서"}

// planHeadings is the negative check shared by the phases before the draft.
func planHeadings(cfg Config, a *answer) []Problem {
	sh := a.shape()
	m := newSectionMatcher(cfg.RequiredSections)

	named := make([]bool, len(m.names))
	strong := map[int]bool{}
	anyName := map[int]bool{}
	units, title := 0, false
	for i, h := range sh.headings {
		all, strongHere := headingSections(h)
		for _, g := range strongHere {
			strong[g] = true
		}
		for _, g := range all {
			anyName[g] = true
		}
		for _, r := range m.sections(h, all) {
			if g := m.groups[r]; g < 0 || strong[g] && containsInt(strongHere, g) {
				named[r] = true
			}
		}
		if workUnitAt(normHeading(h)) > 0 {
			units++
		}
		if (sh.levels[i] == 1 || i == 0) && isPlanTitle(h) {
			title = true
		}
	}
	var found []string
	for i, ok := range named {
		if ok {
			found = append(found, m.names[i])
		}
	}
	if len(found) > 0 {
		return []Problem{{
			Check:    "plan section headings",
			Found:    len(found),
			Negative: true,
			Detail:   strings.Join(found, ", "),
			Hint:     "this phase comes before the plan; drop those headings and keep plan sections for the draft",
		}}
	}

	var signals []string
	for g := range sectionGroups {
		if strong[g] {
			signals = append(signals, fmt.Sprintf("a %q heading", DefaultSections[g]))
		}
	}
	if units >= collapseWorkUnits {
		signals = append(signals, fmt.Sprintf("%d numbered phase/step/task headings", units))
	}
	if sh.checkboxes >= collapseCheckboxes {
		signals = append(signals, fmt.Sprintf("a task list of %d checkboxes", sh.checkboxes))
	}
	if title {
		signals = append(signals, "a plan title")
	}
	if len(anyName) >= collapseSections {
		signals = append(signals, fmt.Sprintf("headings for %d plan sections", len(anyName)))
	}
	if len(signals) < collapseSignals {
		return nil
	}
	return []Problem{{
		Check:    "plan shape",
		Found:    len(signals),
		Negative: true,
		Detail:   strings.Join(signals, "; "),
		Hint:     "this reads as the plan itself; this phase comes before the plan, so answer only what it asks and keep phases, task lists and plan sections for the draft",
	}}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// isPlanTitle reports whether a heading calls its text a plan.
func isPlanTitle(h string) bool {
	n := strings.ToLower(h)
	for _, w := range planTitleWords {
		if len(phraseAt(n, w)) > 0 {
			return true
		}
	}
	return false
}

// readmeHeadings name the sections of a README rather than an analysis.
var readmeHeadings = []string{"install", "installation", "getting started", "quick start", "quickstart", "usage",
	"features", "license", "contributing", "prerequisites", "build", "building", "development", "configuration",
	"documentation", "faq", "known limits", "known issues", "examples", "api reference", "changelog", "release",
	"project structure", "tech stack", "support", "acknowledgements", "roadmap", "workflow", "how to", "structure",
	"설치", "시작하기", "사용법", "사용 방법", "기능", "주요 기능", "핵심 기능", "라이선스", "기여", "빌드", "기술 스택",
	"프로젝트 구조", "문서", "빠른 시작", "저장소 구조", "개발 환경"}

// readmeQualifiers follow a README section's name in its heading ("Build
// and release", "Install on macOS", "Installation instructions"). Other
// words make it an analysis of the request: "Build today", "Installation
// flow as it is", "Usage after the change" (review CP12: an understand
// answer about a build or an installer was refused as a README).
var readmeQualifiers = []string{" and ", " & ", " from ", " on ", " with ", " for ", " instructions", " guide", " steps",
	" options", " notes", " reference", " locally", " (", " via ", " using "}

// readmeQualified reports whether n (a normalised heading) is the README
// section name r followed by a README's qualifier, or by anything when r
// is a phrase of several words.
func readmeQualified(n, r string) bool {
	rest, ok := strings.CutPrefix(n, r)
	if !ok || !strings.HasPrefix(rest, " ") {
		return false
	}
	if strings.Contains(r, " ") {
		return true // "how to …", "getting started with …": a README's phrase whatever follows
	}
	for _, q := range readmeQualifiers {
		if strings.HasPrefix(rest, q) {
			return true
		}
	}
	return false
}

// Thresholds of README shape for the understand phase.
const (
	readmeSections = 2 // distinct README section headings on their own
)

// readmeShape is the understand phase's negative check: a README describes
// a project; it does not analyse a request. Two README section headings
// ("Installation", "Usage", "License", "설치", "사용법", …), or one with a
// badge or an install command, make the answer README-shaped.
func readmeShape(a *answer) []Problem {
	sh := a.shape()
	var names []string
	seen := map[string]bool{}
	for _, h := range sh.headings {
		n := normHeading(h)
		for _, r := range readmeHeadings {
			hit := n == r || readmeQualified(n, r) || (r[0] >= 0x80 && strings.Contains(n, r)) ||
				(r == "structure" && strings.HasSuffix(n, " "+r))
			if hit && !seen[r] {
				seen[r] = true
				names = append(names, h)
				break
			}
		}
	}
	extra := 0
	if sh.badges > 0 {
		extra++
	}
	if sh.installs > 0 {
		extra++
	}
	if len(names) < readmeSections && !(len(names) == 1 && extra > 0) {
		return nil
	}
	return []Problem{{
		Check:    "README-shaped text",
		Found:    len(names) + extra,
		Negative: true,
		Detail:   "headings: " + strings.Join(names, ", "),
		Hint:     "analyse the request instead of describing the project: the problem, its constraints, what success looks like, and your assumptions",
	}}
}
