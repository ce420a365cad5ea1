package phases

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSectionsByMeaning(t *testing.T) {
	tests := []struct {
		name     string
		required []string
		headings []string
		missing  []string
	}{
		{"common english names", nil,
			[]string{"Overview", "Deliverables", "Out of scope", "Implementation Steps", "Testing Strategy", "Trade-offs", "Unknowns"}, nil},
		{"more english names", nil,
			[]string{"Objective", "Requirements", "Future work", "Tasks", "Acceptance Criteria", "Mitigations", "Open issues"}, nil},
		{"phase headings count as steps", nil,
			[]string{"Summary", "Scope", "Non-goals", "Phase 1: schema", "Phase 2: API", "Exit Criteria", "Risks", "Questions"}, nil},
		{"korean names", nil,
			[]string{"목적", "범위", "제외 범위", "작업 단계", "테스트 계획", "위험 요소", "미해결 질문"}, nil},
		{"more korean names", nil,
			[]string{"개요", "요구사항", "범위 밖", "1단계: 스키마", "검증", "리스크", "열린 질문"}, nil},
		{"korean future work and undecided", []string{"Non-Scope", "Open Questions"}, []string{"향후 개선 사항", "미결정 사항"}, nil},
		{"bilingual heading with the english name second", []string{"Steps"}, []string{"단계 (Steps)"}, nil},
		{"a leading number is ignored", []string{"Goal"}, []string{"1. Product Goal"}, nil},
		{"words anywhere in a heading", []string{"Risks", "Verification"}, []string{"Known risks", "How we verify: the test plan"}, nil},
		{"X and Y counts for both", []string{"Goal", "Scope"}, []string{"Goals and Scope"}, nil},
		{"non-scope is never scope", []string{"Scope"}, []string{"Out of scope", "Non-Scope", "범위 외", "비범위", "제외 범위"}, []string{"Scope"}},
		{"scope and non-scope in one heading", []string{"Scope", "Non-Scope"}, []string{"Scope and non-scope"}, nil},
		{"a glued word is not the name", []string{"Scope"}, []string{"Scopes-creep", "Telescope"}, []string{"Scope"}},
		{"custom names keep their exact spelling", []string{"Context", "Rollback"}, []string{"Overview", "Undo plan"}, []string{"Context", "Rollback"}},
		{"custom names match at the start", []string{"Rollback"}, []string{"2. Rollback plan"}, nil},
		// Review AU1: a bare "plan" qualifying another noun is not the steps.
		{"a rollback plan is not the steps", []string{"Steps", "Risks"}, []string{"Risks and rollback plan"}, []string{"Steps"}},
		{"plan at the start is the steps", []string{"Steps"}, []string{"Plan: three changes"}, nil},
		{"위험 대응 계획 is not the steps", []string{"Steps"}, []string{"위험 대응 계획"}, []string{"Steps"}},
		// Review AU6: common names for what is left out.
		{"what we're not doing", []string{"Non-Scope"}, []string{"What We're NOT Doing"}, nil},
		{"won't do and a single non-goal", []string{"Non-Scope", "Goal"}, []string{"Won't Do", "Non-goal"}, []string{"Goal"}},
		{"비목표 is non-scope, not goal", []string{"Goal", "Non-Scope"}, []string{"비목표"}, []string{"Goal"}},
		{"a step-by-step plan is the steps (review CP8)", []string{"Steps"}, []string{"Step-by-step plan"}, nil},
		{"step by step, spelled with spaces", []string{"Steps"}, []string{"Step by Step"}, nil},
		// Review CP1: models write hyphens as U+2011 ("Non‑Goals"); they
		// look like "-" in the refusal, so they must count as one.
		{"non-breaking hyphens", []string{"Non-Scope", "Risks"}, []string{"Non\u2011Goals (for now)", "Trade\u2011offs"}, nil},
		{"non-breaking hyphens in out-of-scope", []string{"Non-Scope"}, []string{"Out\u2011of\u2011Scope (phase\u20112)"}, nil},
		{"a hyphen", []string{"Non-Scope"}, []string{"Non\u2010scope"}, nil},
		{"a minus sign", []string{"Non-Scope"}, []string{"Non\u2212goals"}, nil},
		{"a fullwidth hyphen", []string{"Non-Scope"}, []string{"Non\uff0dscope"}, nil},
		{"a folded hyphen still glues", []string{"Scope"}, []string{"Non\u2011Scope"}, []string{"Scope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.missing, sectionsMissing(newSectionMatcher(tt.required), tt.headings))
		})
	}
}

// A plan's title is not one of its sections, unless it is only a
// section's name (review AU1: "# Plan: add rate limiting" passed for the
// steps of a plan that had none).
func TestATitleIsNotASection(t *testing.T) {
	cfg := Config{Phases: Known, RequiredSections: []string{"Goal", "Steps", "Risks"}}
	final := func(text string) []Problem { return Validate(cfg, Progress{Index: 3}, text) }
	body := "## Goal\nFast pages.\n\n## Risks\nCache stampedes.\n"
	for _, title := range []string{"# Plan: add rate limiting", "# Rate Limiting Implementation Plan",
		"# Implementation Plan", "# Plan", "# 구현 계획"} { // review AV3: exact names of a whole plan
		probs := final(title + "\n\n" + body)
		if assert.Len(t, probs, 1, title) {
			assert.Contains(t, probs[0].String(), "missing: Steps", title)
		}
	}
	assert.Empty(t, final("# Steps\n1. Add it.\n\n"+body), "a title that is only a section's name")
	assert.Empty(t, final("# Goal\nFast.\n# Steps\n1. Add it.\n# Risks\nNone.\n"), "level-1 sections, not a title")
	assert.Empty(t, final("# Plan: add rate limiting\n\n"+body+"\n## Steps\n1. Add it.\n"))
	probs := final("## Plan: add rate limiting\n\n### Goal\nFast.\n### Risks\nNone.\n")
	if assert.Len(t, probs, 1, "a level-2 title over level-3 sections") {
		assert.Contains(t, probs[0].String(), "missing: Steps")
	}
	probs = final("# Plan\n\n**Goal:**\nFast.\n\n**Risks:**\nNone.\n")
	if assert.Len(t, probs, 1, "a title over bold-label sections") {
		assert.Contains(t, probs[0].String(), "missing: Steps")
	}
}

// The gaps block is the gate's: its "### GAP-n:" headings name no plan
// section (review BA2: gap titles with "testing" or "risk" in them stood
// in for the plan's Verification and Risks).
func TestGapsAreNotSections(t *testing.T) {
	cfg := Config{Phases: Known, RequiredSections: []string{"Goal", "Verification", "Risks"}}
	plan := "## Goal\nFast pages.\n\n<!-- rodin:gaps:start -->\n### GAP-1: Load testing not done\n- **Severity**: medium\n- **Description**: d\n" +
		"### GAP-2: Risk of stampedes\n- **Severity**: low\n- **Description**: d\n<!-- rodin:gaps:end -->\n"
	probs := Validate(cfg, Progress{Index: 3}, plan)
	if assert.Len(t, probs, 1) {
		assert.Contains(t, probs[0].String(), "missing: Verification, Risks")
	}
}

// A refused draft says which names count for each missing section.
func TestDraftRefusalSaysWhichNamesCount(t *testing.T) {
	probs := Validate(Config{Phases: Known, RequiredSections: []string{"Steps", "Rollback"}}, Progress{Index: 3}, "## Intro\ntext")
	if assert.Len(t, probs, 1) {
		s := probs[0].String()
		assert.Contains(t, s, "missing: Steps, Rollback")
		assert.Contains(t, s, "Steps: steps, implementation steps, 단계별 계획")
		assert.Contains(t, s, "Phase 1")
		assert.Contains(t, s, `Rollback: a heading that starts with "Rollback"`)
	}
}

func TestPlanShapeBeforeTheDraft(t *testing.T) {
	cfg := Config{Phases: Known, RequiredSections: DefaultSections}
	tests := []struct {
		name   string
		phase  int
		text   string
		refuse string // the check expected, "" to pass
	}{
		{"phase headings and a checkbox list", 1, exploreEN + "\n### Phase 1: setup\n- [ ] a\n- [ ] b\n- [ ] c\n### Phase 2: build\n", "plan shape"},
		{"a plan title and numbered steps", 2, "# Rate limiting plan\n" + altEN + "\n### Step 1\n### Step 2\n", "plan shape"},
		{"a flow traced step by step is not a plan", 1, "### Step 1: the request enters `http/router.go`\nThe router matches the path and calls the handler.\n### Step 2: `http/auth.go`\nThe key is checked against the cache.\n", ""},
		{"a strong name anywhere in a multi-word heading", 0, understandEN + "\n## Our implementation plan\n", "plan section headings"},
		{"a strong single word only at the start", 1, exploreEN + "\n## Scheduled tasks in the worker\nThe cron table in `jobs/cron.go` lists them all.", ""},
		{"korean plan: numbered stages and checkboxes", 0, understandKO + "\n### 1단계: 준비\n- [ ] 가\n- [ ] 나\n- [ ] 다\n### 2단계: 구현\n", "plan shape"},
		{"one signal is ordinary analysis", 0, understandEN + "\n- [ ] confirm the format\n- [ ] confirm the flag\n- [ ] confirm the exit code\n", ""},
		{"analysis headings are not a plan", 0, "## Context\n## Requirements\n## Constraints\n## Success criteria\n" + understandEN, ""},
		{"a README is not an understanding", 0, "# tool\n\n## Installation\n\n```sh\nnpm install tool\n```\n\n## Usage\n" + understandEN, "README-shaped text"},
		{"a plan section with a non-breaking hyphen", 0, understandEN + "\n## Out\u2011of\u2011scope\n- billing\n", "plan section headings"}, // review CP1
		// Review CP12: a request about a build or an installer is analysed
		// under headings that begin with a README's section names.
		{"an analysis of a build is not a README", 0, "## Build today\n" + understandEN + "\n## Configuration involved\nThe cache lives under `.cache/`.\n", ""},
		{"an analysis of an installer is not a README", 0, "## Installation flow as it is\n" + understandEN + "\n## Usage after the change\nA second install keeps edits.\n", ""},
		{"README headings with their qualifiers", 0, "## Build and release\n" + understandEN + "\n## Install on macOS\n", "README-shaped text"},
		{"korean README", 0, "# 도구\n## 설치\n## 사용법\n" + understandKO, "README-shaped text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var checks []string
			for _, p := range Validate(cfg, Progress{Index: tt.phase}, tt.text) {
				checks = append(checks, p.Check)
			}
			if tt.refuse == "" {
				assert.Empty(t, checks)
			} else {
				assert.Contains(t, checks, tt.refuse)
			}
		})
	}
}

// sectionsMissing returns the required sections no heading names.
func sectionsMissing(m sectionMatcher, headings []string) []string {
	return m.missing(m.named(headings))
}
