package phases

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Review CP3: a plan of bare headings, or of headings over placeholders,
// passed the draft and the final revise. A section needs something said
// under its heading; what counts is wide, so a real plan is never sent back.
func TestSectionsNeedContent(t *testing.T) {
	cfg := Config{Phases: Known, CompletionPromise: "PLAN_OK"}
	draft := Progress{Index: 3}
	filled := func(over map[string]string) string {
		var b strings.Builder
		for _, s := range DefaultSections {
			body, ok := over[s]
			if !ok {
				body = "Something said about " + s + "."
			}
			b.WriteString("## " + s + "\n" + body + "\n\n")
		}
		return b.String()
	}
	refused := []struct {
		name, text, empty string
	}{
		{"headings only", "## Goal\n## Scope\n## Non-Scope\n## Steps\n## Verification\n## Risks\n## Open Questions\n",
			"Goal, Scope, Non-Scope, Steps, Verification, Risks, Open Questions"},
		{"TBD everywhere", filled(map[string]string{"Goal": "TBD", "Scope": "TBD.", "Non-Scope": "tbd", "Steps": "- TBD", "Verification": "**TBD**",
			"Risks": "TBD", "Open Questions": "TBD"}), "Goal, Scope, Non-Scope, Steps, Verification, Risks, Open Questions"},
		{"one section with TBD", filled(map[string]string{"Steps": "TBD"}), "Steps"},
		{"placeholder words in lists", filled(map[string]string{"Steps": "1. TODO\n2. ...", "Risks": "- N/A", "Scope": "- **To  be\tdetermined .**"}), "Scope, Steps, Risks"},
		{"a template's slots", filled(map[string]string{"Goal": "<one-sentence goal>", "Steps": "1. [describe the step]\n2. {step_two}", "Verification": "- [ ] <command>"}), "Goal, Steps, Verification"},
		{"korean placeholders", filled(map[string]string{"Risks": "- 미정", "Open Questions": "해당 없음"}), "Risks, Open Questions"},
		{"a marked placeholder", filled(map[string]string{"Risks": "- ⏳ TBD", "Open Questions": "(TBD)"}), "Risks, Open Questions"},
		{"a rule or an emoji is not content", filled(map[string]string{"Risks": "---\n✅"}), "Risks"},
		{"the promise is not the last section's content", filled(map[string]string{"Open Questions": "<promise>PLAN_OK</promise>"}), "Open Questions"},
		{"an empty gaps block is not a section's content", filled(map[string]string{"Risks": "<!-- rodin:gaps:start -->\n<!-- rodin:gaps:end -->"}), "Risks"},
		{"a comment is not content", filled(map[string]string{"Risks": "<!--\nrisks go here\n-->"}), "Risks"},
		{"a template's table: a header over placeholders", filled(map[string]string{"Steps": "| # | Step | Files |\n|---|---|---|\n| 1 | <step> | <files> |",
			"Risks": "| Risk | Mitigation |\n|------|------------|\n| TBD | TBD |"}), "Steps, Risks"}, // review CS
		{"a template's code block", filled(map[string]string{"Verification": "```bash\n<command>\n```", "Steps": "```\n# TODO\n...\n```"}), "Steps, Verification"},
		{"a placeholder between bars starts no table", filled(map[string]string{"Risks": "| TBD |\n\n"}), "Risks"},                                  // mutation check, review CW
		{"a heading that says only a placeholder", strings.Replace(filled(nil), "## Goal\nSomething said about Goal.", "## Goal: TBD", 1), "Goal"},  // mutation check, review CW
		{"risks that are an empty gaps block", filled(map[string]string{"Risks": "<!-- rodin:gaps:start -->\n\n<!-- rodin:gaps:end -->"}), "Risks"}, // review EB
		{"bold labels over nothing", "**Goal**\n**Scope**\nIn: the sender.\n**Non-Scope**\nThe queue.\n**Steps**\n1. Add it.\n**Verification**\n`go test`\n**Risks**\nDuplicates.\n**Open Questions**\nNone.\n", "Goal"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			got := problemLines(Validate(cfg, draft, tt.text))
			if assert.Len(t, got, 1) {
				assert.Contains(t, got[0], "required sections with content")
				assert.Contains(t, got[0], "placeholder under it: "+tt.empty+")")
				assert.Contains(t, got[0], "say so and why in a sentence")
			}
		})
	}
	// A section that holds only gaps is refused (review DC3) and told why:
	// the agent wrote something there (review EC2).
	onlyGaps := "<!-- rodin:gaps:start -->\n### GAP-1: Steps not written\n- **Severity**: high\n- **Description**: the steps are not known yet.\n<!-- rodin:gaps:end -->"
	got := problemLines(Validate(cfg, draft, filled(map[string]string{"Steps": onlyGaps, "Goal": "TBD"})))
	if assert.Len(t, got, 1, "steps that are only gaps") {
		assert.Contains(t, got[0], "found 5, need 7")
		assert.Contains(t, got[0], "placeholder under it: Goal;", "the bare section is named as before")
		assert.Regexp(t, `only the gaps block under it[^;]*: Steps\)`, got[0], "the section that holds gaps is told apart")
	}
	// Gaps count for a section for uncertainty by the section's name, not
	// the heading's: one heading naming Steps and an uncertainty over only
	// the gaps block holds no steps (review EB2).
	for _, heading := range []string{"Steps and Risks", "Steps / Risks", "Risks and Steps", "Steps (known gaps)", "Steps: open questions", "Steps — risks and known gaps"} {
		text := strings.Replace(filled(map[string]string{"Steps": onlyGaps}), "## Steps\n", "## "+heading+"\n", 1)
		assert.Contains(t, text, "## "+heading+"\n")
		got := problemLines(Validate(cfg, draft, text))
		if assert.Len(t, got, 1, heading) {
			assert.Regexp(t, `only the gaps block under it[^;]*: Steps\)`, got[0], heading)
		}
	}
	// Nor does a subheading that only names a section for uncertainty
	// make the gaps under it the section's content.
	// Nor does such a line of text, a label in prose (review FF6).
	for _, sub := range []string{"### Known gaps", "### 1. Open questions", "### Risks and known gaps", "Known gaps:", "- Open questions", "1. Risks and known gaps:", "### Uncertainties", "### Open issues"} {
		text := filled(map[string]string{"Steps": sub + "\n" + onlyGaps})
		got := problemLines(Validate(cfg, draft, text))
		if assert.Len(t, got, 1, sub) {
			assert.Regexp(t, `only the gaps block under it[^;]*: Steps\)`, got[0], sub)
		}
	}
	// One heading naming every section over one line is no plan.
	crowded := "## Goal, Scope, Non-Scope, Steps, Verification, Risks, Open Questions\nSee the text below.\n"
	got = problemLines(Validate(cfg, draft, crowded))
	if assert.Len(t, got, 1, "a heading naming every section") {
		assert.Contains(t, got[0], "found 0, need 7")
		assert.Contains(t, got[0], `the heading "Goal, Scope, Non-Scope, Steps, Verification, Risks, Open Questions" names 4 or more sections at once, so it counts for none of them`)
	}
	assert.Empty(t, problemLines(Validate(Config{Phases: Known, RequiredSections: []string{"Goal", "Steps", "Risks"}}, draft,
		"## Goal, Steps and Risks\nOne change in one file: add the retry; risk is duplicates.\n")), "three in one heading still count")
	accepted := []struct{ name, text string }{
		{"plain content", filled(nil)},
		{"a code block is content", filled(map[string]string{"Verification": "```sh\ngo test ./internal/hooks/\n```"})},
		{"none is a statement", filled(map[string]string{"Open Questions": "None.", "Non-Scope": "- Nothing: the change is one file."})},
		{"the heading says it", strings.Replace(filled(nil), "## Goal\nSomething said about Goal.", "## Goal: retries for the webhook sender", 1)},
		{"subheadings carry the steps", filled(map[string]string{"Steps": "### Step 1: add the retry type\n### Step 2: call it from Send"})},
		{"a subheading for uncertainty over text", filled(map[string]string{"Steps": "1. Add the retry type.\n### Known gaps\nThe cap is a guess."})},
		{"subheadings that name an uncertainty and say more carry the steps", filled(map[string]string{"Steps": "### 1. Settle the open questions with a spike\n### 2. Mitigate the risks behind a flag"})}, // mutation check, review FF
		{"a label for uncertainty over text", filled(map[string]string{"Steps": "Known gaps:\n- The cap is a guess.", "Risks": "- Open questions\n- Whether the API retries itself."})},
		{"subheadings that name no section carry the steps", filled(map[string]string{"Steps": "### 1. Add the retry type\n### 2. Call it from Send"})}, // mutation check, review CW
		{"a subsection named like another section belongs to its parent", filled(map[string]string{"Non-Scope": "### 1. Backward paging 구현\nLater, once the API settles."})},
		{"a table", filled(map[string]string{"Risks": "| Risk | Mitigation |\n|---|---|\n| duplicates | idempotency key |"})},
		{"a table with one cell said", filled(map[string]string{"Risks": "| Risk | Mitigation |\n|---|---|\n| duplicates | TBD |"})},
		{"a line between bars that starts no table", filled(map[string]string{"Goal": "| retries for the sender |", "Scope": "| the sender |\nand its queue."})},
		{"a todo with words is content", filled(map[string]string{"Steps": "1. TODO: wire the retry into `Send`"})},
		{"a link in brackets is content", filled(map[string]string{"Goal": "[Issue 42](https://example.com/42): stop dropping events"})},
		{"bold sub-labels under a bold label", "**Goal**\nRetries.\n**Scope**\nThe sender.\n**Non-Scope**\nThe queue.\n**Steps**\n**1. Add the retry type**\n- in `retry.go`\n" +
			"**Verification**\n`go test`\n**Risks**\nDuplicates.\n**Open Questions**\nNone.\n"},
		{"crlf line ends", strings.ReplaceAll(filled(nil), "\n", "\r\n")},
		{"the gaps block under Risks", filled(map[string]string{"Risks": "<!-- rodin:gaps:start -->\n### GAP-1: Duplicates\n- **Severity**: medium\n- **Description**: a retry may send twice.\n<!-- rodin:gaps:end -->"})},
		{"the gaps block under a section", filled(map[string]string{"Open Questions": "<!-- rodin:gaps:start -->\n### GAP-1: Retry cap\n- **Severity**: low\n- **Description**: the cap is a guess.\n<!-- rodin:gaps:end -->"})},
	}
	// A required section named for the gaps holds them (review DC3).
	known := Config{Phases: Known, RequiredSections: []string{"Goal", "Steps", "Known Gaps"}}
	assert.Empty(t, problemLines(Validate(known, draft, "## Goal\nRetries.\n\n## Steps\n1. Add them.\n\n## Known Gaps\n"+
		"<!-- rodin:gaps:start -->\n### GAP-1: Retry cap\n- **Severity**: low\n- **Description**: the cap is a guess.\n<!-- rodin:gaps:end -->\n")))
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			assert.Empty(t, problemLines(Validate(cfg, draft, tt.text)))
			assert.Empty(t, problemLines(Validate(cfg, Progress{Index: len(Known)}, tt.text+"\n<promise>PLAN_OK</promise>\n")), "final revise")
		})
	}
}
