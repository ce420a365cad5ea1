package phases

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	understandEN = `1. Problem: status prints only text, so scripts cannot read it.
2. Constraint: the plain output must not change.
3. Success criteria: ` + "`status --json`" + ` prints one valid JSON object.
4. Assumption: nobody parses the plain output today.`
	understandKO = `1. 문제: status 출력이 텍스트뿐이라 스크립트가 읽을 수 없다.
2. 제약: 기존 출력은 바뀌면 안 된다.
3. 성공 기준: --json 옵션이 유효한 JSON을 출력한다.`
	exploreEN = "Read `cmd/app/status.go` (prints the table) and internal/state/load.go (reads the file).\nTests live in status_test.go."
	altEN     = `1. Encode the existing struct with encoding/json. Pros: tiny. Cons: leaks field names.
2. Add a dedicated view type. Trade-off: more code, stable output.

Recommendation: option 2.`
	altOptions = `### Option A: reuse the struct
Cheap, but the downside is coupling.

### Option B: a view type
More work.

We choose B.`
	altKO = `### 방안 1: 기존 구조체 사용
장점: 간단함. 단점: 결합도.
### 방안 2: 별도 뷰 타입
추천: 방안 2`
	critiquePrinciples = `1. P1 (Step ordering): PASS — builds up
2. P2 (File references): FAIL — no paths in step 3
3. P3 (Interface contracts): PASS
4. P4 (Error paths): FAIL — unreadable state file not handled
5. P5 (Edge cases): FAIL — empty state
6. P6 (Runnable verification): PASS — go test commands given
7. P9 (No vague language): FAIL — "as needed" in step 2`
	critiqueOpen = `1. Step 3 has no file.
2. The error path for a missing state file is absent.
3. Verification lacks a command.`
)

// plan builds a plan with one markdown heading per section and a promise.
func plan(sections []string, promise string) string {
	var b strings.Builder
	for _, s := range sections {
		fmt.Fprintf(&b, "## %s\n\nText for %s.\n\n", s, s)
	}
	if promise != "" {
		fmt.Fprintf(&b, "<promise>%s</promise>\n", promise)
	}
	return b.String()
}

// withText puts a line of content under each heading line of headings.
func withText(headings string) string {
	return strings.ReplaceAll(headings, "\n", "\nSome text.\n") + "\nSome text.\n"
}

var sectionsKO = []string{"목표", "범위", "비범위", "단계별 계획", "검증", "리스크", "오픈 질문"}

func TestValidate(t *testing.T) {
	seq := []string{Understand, Explore, Alternatives, Draft, Critique, Revise, Critique, Revise}
	at := func(phase string) int {
		for i, p := range seq {
			if p == phase {
				return i
			}
		}
		return len(seq)
	}
	const finalRevise, iterate = 7, 8
	tests := []struct {
		name  string
		index int
		cfg   func(*Config)
		msg   string
		want  []string // rendered problems, each checked with Contains; empty = passes
	}{
		{"empty answer", at(Understand), nil, " \n\t", []string{"answer text: found 0, need 1"}},

		{"understand passes", at(Understand), nil, understandEN, nil},
		{"understand passes numbered with keycaps (review CP10)", at(Understand), nil,
			"1\ufe0f\u20e3 Problem: one attempt only.\n2\ufe0f\u20e3 Constraint: the queue format stays.\n3\ufe0f\u20e3 Success criteria: delivered after two 503s.\n", nil},
		{"understand passes in korean", at(Understand), nil, understandKO, nil},
		{"understand too few items", at(Understand), nil, "1. Problem: x\n2. Constraint: y", []string{"numbered items: found 2, need 3"}},
		{"understand too few keywords", at(Understand), nil, "1. a\n2. b\n3. the problem", []string{"problem-analysis keywords: found 1, need 2 (found: problem)"}},
		{"understand no keywords", at(Understand), nil, "1. a\n2. b\n3. c", []string{"problem-analysis keywords: found 0, need 2"}},
		{"understand refuses plan heading", at(Understand), nil, understandEN + "\n## Steps\n1. do it", []string{"plan section headings: found 1, must be 0 (Steps)"}},
		{"understand refuses korean plan heading", at(Understand), nil, understandEN + "\n### 단계별 계획\n", []string{"plan section headings: found 1, must be 0 (Steps)"}},
		{"understand refuses bold-line heading", at(Understand), nil, understandEN + "\n**Goal:**\nship it", []string{"plan section headings: found 1, must be 0 (Goal)"}},
		{"understand refuses bold heading with colon after", at(Understand), nil, understandEN + "\n**Risks**:\n", []string{"(Risks)"}},
		{"understand reports non-scope not scope", at(Understand), nil, understandEN + "\n## Non-Scope\n", []string{"must be 0 (Non-Scope)"}},
		{"understand reports 범위 외 as non-scope", at(Understand), nil, understandEN + "\n## 범위 외\n", []string{"must be 0 (Non-Scope)"}},
		{"understand allows bold label with prose", at(Understand), nil, understandEN + "\n**Goal:** make scripts happy", nil},
		{"understand allows other headings", at(Understand), nil, "## Success criteria\n" + understandEN + "\n## Questions for the user\n", nil},
		{"understand ignores headings in code fences", at(Understand), nil, understandEN + "\n```sh\n# Steps to reproduce\n```", nil},
		{"understand heading needs a space after hashes", at(Understand), nil, understandEN + "\n#Steps", nil},
		{"understand seven hashes is no heading", at(Understand), nil, understandEN + "\n####### Steps", nil},
		{"understand scope prefix of longer word", at(Understand), nil, understandEN + "\n## Scopes-creep notes", nil},
		{"understand items inside fence do not count", at(Understand), nil, "problem and constraint\n```\n1. a\n2. b\n3. c\n```", []string{"numbered items: found 0, need 3"}},

		{"explore passes", at(Explore), nil, exploreEN, nil},
		{"explore passes with bare file names", at(Explore), nil, "Looked at main.go and util.py.", nil},
		{"explore counts known names without extension", at(Explore), nil, "Read the Dockerfile and the Makefile.", nil},
		{"explore passes with absolute and dir paths", at(Explore), nil, "See /etc/app and ./scripts/ here.", nil},
		{"explore prose slashes are not paths", at(Explore), nil, "Read and/or write, input/output, pass/fail. Version 1.2.3.", []string{"file references: found 0, need 2"}},
		{"explore urls are not files", at(Explore), nil, "See https://example.com/a/b/c and main.go", []string{"file references: found 1, need 2"}},
		{"explore same file counts once", at(Explore), nil, "main.go, main.go, and main.go again", []string{"file references: found 1, need 2"}},
		{"explore backticked package path", at(Explore), nil, "Packages `pkg/state` and `pkg/hooks` hold the loader and the hooks.", nil},
		{"explore refuses a file cited without a finding", at(Explore), nil, exploreEN + "\nAlso relevant:\n- `cmd/app/flags.go`\n- `internal/state/save.go`", []string{"files cited without a finding: found 2, must be 0 (cmd/app/flags.go, internal/state/save.go)"}},
		{"explore ties a finding under a heading to its file", at(Explore), nil, "### `cmd/app/status.go`\n\nPrints the table with fmt.Fprintf.\n\n### `internal/state/load.go`\n- reads the YAML frontmatter first", nil},
		// Review CP7: short lines under a file that together say something,
		// and a terse Korean finding beside its path.
		{"explore ties short bullets under a file label together", at(Explore), nil, "**`internal/hooks/send.go`**\n- single attempt\n- no backoff\n\n**`internal/hooks/queue.go`**\n- drops failed events", nil},
		{"explore ties a terse korean finding", at(Explore), nil, "- `internal/hooks/send.go`: 재시도 없음\n- `internal/hooks/queue.go`: 실패 시 버림", nil},
		{"explore still refuses a bare list after a short label", at(Explore), nil, "**Key files:**\n- `internal/hooks/send.go`\n- `internal/hooks/queue.go`\n- 없음", []string{"files cited without a finding: found 2"}},
		{"explore ignores paths in code blocks", at(Explore), nil, exploreEN + "\n```\ncmd/\n  app/main.go\n```", nil},
		{"explore refuses plan heading", at(Explore), nil, exploreEN + "\n## Verification\n", []string{"plan section headings: found 1, must be 0 (Verification)"}},

		{"alternatives passes numbered", at(Alternatives), nil, altEN, nil},
		// Review CP11: pros and cons as ✅/❌ bullets, a comparison table
		// with no trade-off word, "Suggested approach" and "Decision".
		{"alternatives passes with marked pros and cons", at(Alternatives), nil,
			"### Option A: retry in Send\n- ✅ smallest change\n- ❌ blocks the worker\n\n### Option B: re-enqueue\n- ✅ worker stays free\n- ❌ changes the queue format\n\n**Recommendation:** Option A.\n", nil},
		{"alternatives passes with a comparison table", at(Alternatives), nil,
			"| | Retry in Send | Re-enqueue |\n|---|---|---|\n| Change size | small | medium |\n| Worker blocked | yes | no |\n\nI'd go with retry in Send.\n", nil},
		{"alternatives passes with a suggested approach", at(Alternatives), nil,
			"1. Retry in Send: simple, but the worker waits.\n2. Re-enqueue: the worker stays free, but the format changes.\n\nSuggested approach: 1. Downside: a slow receiver holds the worker.\n", nil},
		{"alternatives passes with a decision", at(Alternatives), nil,
			"**Approach 1: retry in Send.** Small.\n**Approach 2: re-enqueue.** Frees the worker.\n\n**Decision:** Approach 1. Trade-off: slower drain under load.\n", nil},
		{"deciding later is no recommendation", at(Alternatives), nil,
			"1. Retry in Send: simple, but the worker waits.\n2. Re-enqueue: the worker stays free, but the format changes.\n\nWe need to decide between them; the decision depends on load, as the logs suggest. Downside of both: cost.\n",
			[]string{"recommendation: found 0, need 1"}},
		{"a decision label in bold", at(Alternatives), nil,
			"1. Retry in Send: simple, but the worker waits.\n2. Re-enqueue: frees the worker.\n\n**Decision**: 1. Downside: a slow drain.\n", nil},
		{"a milestone table is no trade-off", at(Alternatives), nil,
			"| Milestone | Pass rate | Change |\n|---|---|---|\n| start | 54% | - |\n| fix 1 | 61% | +7% |\n\nWe recommend the second.\n", []string{"trade-offs: found 0, need 1"}},
		{"alternatives passes with option labels", at(Alternatives), nil, altOptions, nil},
		{"alternatives passes in korean", at(Alternatives), nil, altKO, nil},
		{"alternatives one option", at(Alternatives), nil, "1. Only way. Pros: easy. We recommend it.", []string{"options: found 1, need 2"}},
		{"alternatives same option twice is one", at(Alternatives), nil, "Option A is good.\nOption A again. Pros. Recommend A.", []string{"options: found 1, need 2"}},
		{"alternatives no recommendation", at(Alternatives), nil, "1. a, pros\n2. b, cons", []string{"recommendation: found 0, need 1"}},
		{"alternatives no trade-off", at(Alternatives), nil, "1. a\n2. b\nI recommend a.", []string{"trade-offs: found 0, need 1"}},
		{"alternatives refuses promise", at(Alternatives), nil, altEN + "\n<promise>PLAN_OK</promise>", []string{"<promise> tags: found 1, must be 0"}},
		{"alternatives refuses plan headings", at(Alternatives), nil, altEN + "\n## Goal\n## Steps\n", []string{"plan section headings: found 2, must be 0 (Goal, Steps)"}},

		{"draft passes", at(Draft), nil, plan(DefaultSections, ""), nil},
		{"draft passes in korean", at(Draft), nil, plan(sectionsKO, ""), nil},
		{"draft missing two", at(Draft), nil, plan([]string{"Goal", "Scope", "Non-Scope", "Steps", "Open Questions"}, ""),
			[]string{"required section headings: found 5, need 7 (missing: Verification, Risks)"}},
		{"draft non-scope does not satisfy scope", at(Draft), nil, plan([]string{"Goal", "Non-Scope", "Steps", "Verification", "Risks", "Open Questions"}, ""),
			[]string{"(missing: Scope)"}},
		{"draft 비범위 does not satisfy 범위", at(Draft), nil, plan([]string{"목표", "비범위", "단계별 계획", "검증", "리스크", "오픈 질문"}, ""),
			[]string{"(missing: Scope)"}},
		{"draft accepts decorated headings", at(Draft), nil, withText("# 1. 🎯 Goal\n## 2) Scope:\n## Out of scope\n### Steps (least to most)\n#### Verification ##\n##### Risks and mitigations\n###### Open Questions?"), nil},
		{"draft accepts bold-line headings", at(Draft), nil, withText("**Goal**\n**Scope:**\n__Non-Scope__\n**Steps**:\n**Verification**\n**Risks**\n**Open Questions**"), nil},
		{"draft plain lines are not headings", at(Draft), nil, "Goal: x\nScope: y\nNon-Scope:\nSteps:\nVerification:\nRisks:\nOpen Questions:", []string{"found 0, need 7"}},
		{"draft fenced headings do not count", at(Draft), nil, "```\n" + plan(DefaultSections, "") + "```\n", []string{"found 0, need 7"}},
		{"draft custom sections", at(Draft), func(c *Config) { c.RequiredSections = []string{"Context", "Rollback"} }, withText("## Context\n## Rollback plan"), nil},
		{"draft custom sections missing", at(Draft), func(c *Config) { c.RequiredSections = []string{"Context", "Rollback"} }, "## Context\n## Rollbacks", []string{"found 1, need 2 (missing: Rollback)"}},
		{"understand custom section without letters matches no other heading", at(Understand), func(c *Config) { c.RequiredSections = []string{"Goal", "🎯"} }, "## Success criteria\n" + understandEN, nil},
		{"draft custom section without letters still needs its heading", at(Draft), func(c *Config) { c.RequiredSections = []string{"Goal", "🎯"} }, "## Goal\n## Steps", []string{"(missing: 🎯)"}},
		{"draft korean required names accept english headings", at(Draft), func(c *Config) { c.RequiredSections = []string{"목표", "검증"} }, withText("## Goal\n## Verification"), nil},

		{"critique passes", at(Critique), nil, critiquePrinciples, nil},
		// Review CP4: a checklist that opens each line with its verdict.
		{"critique passes with the verdict first", at(Critique), nil,
			"1. ✅ **P1 (Step ordering)**: builds up\n2. ❌ **P2 (File references)**: no paths\n3. ✅ P3 Interface contracts: given\n" +
				"4. ❌ P4 Error paths: none\n5. ✅ P5 Edge cases: named\n6. ❌ P6 Runnable verification: no commands\n", nil},
		// Review CP14: a table that numbers its rows.
		{"critique passes as a numbered table", at(Critique), nil,
			"| # | Principle | Verdict | Evidence |\n|---|---|---|---|\n| 1 | P1 Step ordering | PASS | builds up |\n| 2 | P2 File references | FAIL | no paths |\n" +
				"| 3 | P3 Interface contracts | PASS | given |\n| 4 | P4 Error paths | FAIL | none |\n| 5 | P5 Edge cases | PASS | named |\n| 6 | P6 Runnable verification | FAIL | no commands |\n", nil},
		{"a table's header and numbers in other cells are no items", at(Critique), nil,
			"| 1 | 2 | 3 |\n|---|---|---|\n| a | 4 | 5 |\n" + "P1: PASS\nP2: PASS\nP3: PASS\nP4: FAIL\nP5: FAIL\nP6: PASS\n", []string{"numbered items: found 0, need 3"}},
		{"critique too little evidence", at(Critique), nil, "1. P1: PASS\n2. P2: FAIL\n3. P3: PASS", []string{"principles with a PASS/FAIL verdict: found 3, need 6"}},
		{"critique too few items", at(Critique), nil, "P1: PASS\nP2: PASS\nP3: PASS\nP4: FAIL\nP5: FAIL\nP6: PASS", []string{"numbered items: found 0, need 3"}},
		{"critique refuses promise", at(Critique), nil, critiquePrinciples + "\n<promise>PLAN_OK</promise>", []string{"<promise> tags: found 1, must be 0"}},
		{"critique open mode ignores principles", at(Critique), func(c *Config) { c.OpenCritique = true }, critiqueOpen, nil},
		{"critique open mode still needs items", at(Critique), func(c *Config) { c.OpenCritique = true }, "1. one\n2. two", []string{"numbered items: found 2, need 3"}},

		{"non-final revise passes without promise", at(Revise), nil, "## Goal\nbetter", nil},
		{"non-final revise refuses promise", at(Revise), nil, plan(DefaultSections, "PLAN_OK"), []string{"<promise> tags: found 1, must be 0", "not the last revise"}},
		{"non-final revise refuses unclosed promise", at(Revise), nil, "plan <PROMISE>", []string{"<promise> tags: found 1, must be 0"}},
		{"final revise passes", finalRevise, nil, plan(DefaultSections, "PLAN_OK"), nil},
		{"final revise passes in korean", finalRevise, nil, plan(sectionsKO, " PLAN_OK "), nil},
		{"final revise without promise", finalRevise, nil, plan(DefaultSections, ""), []string{"completion promise: found 0, need 1", "<promise>PLAN_OK</promise>"}},
		{"final revise wrong promise", finalRevise, nil, plan(DefaultSections, "DONE"), []string{"found <promise>DONE</promise>, which is not the completion promise"}},
		{"final revise unclosed promise", finalRevise, nil, plan(DefaultSections, "") + "<promise>PLAN_OK", []string{"never closed"}},
		{"final revise missing section", finalRevise, nil, plan(DefaultSections[:6], "PLAN_OK"), []string{"(missing: Open Questions)"}},
		{"final revise promise with a non-breaking hyphen (review CP1)", finalRevise, func(c *Config) { c.CompletionPromise = "PLAN-DONE" }, plan(DefaultSections, "PLAN\u2011DONE"), nil},
		{"final revise promise with quotes", finalRevise, func(c *Config) { c.CompletionPromise = `say "done"` }, plan(DefaultSections, `say "done"`), nil},
		{"iterate validates as final", iterate, nil, plan(DefaultSections, ""), []string{"completion promise: found 0, need 1"}},
		{"iterate passes", iterate, nil, plan(DefaultSections, "PLAN_OK"), nil},
		// Review AU4: a promise in a code block, and headings in an HTML
		// comment, are not the answer's.
		{"final revise promise only in code", finalRevise, nil, plan(DefaultSections, "") + "```\n<promise>PLAN_OK</promise>\n```\n",
			[]string{"completion promise: found 0, need 1"}},
		{"final revise promise after a code sample of one", finalRevise, nil,
			"```text\n<promise>PLAN_OK</promise>\n```\n" + plan(DefaultSections, "PLAN_OK"), nil},
		{"non-final revise may show a promise in code", at(Revise), nil, "## Goal\nbetter\n```\n<promise>PLAN_OK</promise>\n```\n", nil},
		{"final revise sections in an html comment", finalRevise, nil,
			"## Goal\nx\n<!--\n## Scope\n## Non-Scope\n## Steps\n## Verification\n## Risks\n## Open Questions\n-->\n<promise>PLAN_OK</promise>\n",
			[]string{"found 1, need 7"}},
		{"a one-line comment hides nothing", finalRevise, nil, "<!-- a note -->\n" + plan(DefaultSections, "PLAN_OK"), nil},
		// Review AU3: headings swallowed by a block left open are named as such.
		{"a plan wrapped in an open code block", finalRevise, nil, "Here it is:\n```markdown\n" + plan(DefaultSections, "") + "<promise>PLAN_OK</promise>\n",
			[]string{"found 0, need 7", "the code block opened on line 2 is never closed"}},
		// Review CP2: a plan wrapped whole in a closed block is told so.
		{"a plan wrapped in a closed code block", finalRevise, nil, "Here it is:\n\n```markdown\n" + plan(DefaultSections, "") + "```\n\n<promise>PLAN_OK</promise>\n",
			[]string{"found 0, need 7", "the headings for Goal, Scope, Non-Scope, Steps, Verification, Risks, Open Questions are inside the code block opened on line 3"}},
		{"one section shown only in a code sample", at(Draft), nil, plan(DefaultSections[:6], "") + "Example:\n~~~md\n## Open Questions\n~~~\n",
			[]string{"(missing: Open Questions)", "the headings for Open Questions are inside the code block opened on line"}},
		{"a section in a code sample and one missing", at(Draft), nil, plan(DefaultSections[:5], "") + "Example:\n~~~md\n## Open Questions\n~~~\n",
			[]string{"(missing: Risks, Open Questions)", "the headings for Open Questions are inside the code block opened on line", "; then give each section its own markdown heading", "Risks: risks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Phases: seq, CompletionPromise: "PLAN_OK"}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			got := problemLines(Validate(cfg, Progress{Index: tt.index}, tt.msg))
			if len(tt.want) == 0 {
				assert.Empty(t, got)
				return
			}
			joined := strings.Join(got, "\n")
			for _, w := range tt.want {
				assert.Contains(t, joined, w)
			}
		})
	}
}

func TestFinalNextSeam(t *testing.T) {
	cfg := Config{Phases: []string{Critique, Revise, Critique, Revise}, CompletionPromise: "OK"}
	msg := plan(DefaultSections, "OK")
	assert.NotEmpty(t, Validate(cfg, Progress{Index: 1}, msg), "an early revise refuses the promise")
	assert.Empty(t, Validate(cfg, Progress{Index: 1, FinalNext: true}, msg), "FinalNext makes it final")
	assert.NotEmpty(t, Validate(cfg, Progress{Index: 0, FinalNext: true}, msg), "FinalNext does not make a critique a revise")
}

func TestWrongPromiseDetailIsCutOnARune(t *testing.T) {
	cfg := Config{Phases: []string{Revise}, CompletionPromise: "OK"}
	long := strings.Repeat("완", 40) // 120 bytes; byte 80 falls inside a rune
	probs := Validate(cfg, Progress{}, plan(DefaultSections, long))
	require.Len(t, probs, 1)
	assert.True(t, utf8.ValidString(probs[0].Detail), "%q", probs[0].Detail)
	assert.Contains(t, probs[0].Detail, strings.Repeat("완", 26)+"…")
}

func TestStripPromises(t *testing.T) {
	assert.Equal(t, "## Goal\nx", stripPromises("## Goal\nx\n\n<promise>PLAN_OK</promise>\n"))
	assert.Equal(t, "a  b", stripPromises("a <PROMISE>x</Promise> b"))
	assert.Equal(t, "plan\nunclosed", stripPromises("plan\n<promise>unclosed"), "only the tag goes; such a message never passes the final check anyway")
	assert.Equal(t, "İİ plan", stripPromises("İİ plan <promise>OK</promise>"), "non-ASCII text keeps its offsets")
}

// A promise quoted in inline code, a blockquote or an HTML comment is not
// the answer's, as one in a code block is not (review BU4: each finalized
// the final revise); an honest one on its own line or ending a sentence
// still is, with quoted ones around it.
func TestAQuotedPromiseIsNotGiven(t *testing.T) {
	cfg := Config{Phases: []string{Revise}, CompletionPromise: "OK"}
	body := plan(DefaultSections, "")
	for name, msg := range map[string]string{
		"inline code":             body + "The loop ends when the agent writes `<promise>OK</promise>`; not yet.\n",
		"double-backtick code":    body + "Write ``<promise>OK</promise>`` last.\n",
		"blockquote":              body + "> Remember: finish with <promise>OK</promise> when done.\n\nStill working.\n",
		"indented blockquote":     body + "   > <promise>OK</promise>\n",
		"one-line html comment":   body + "<!-- <promise>OK</promise> -->\n",
		"html comment in a line":  body + "Not yet <!-- <promise>OK</promise> --> done.\n",
		"html comment over lines": body + "<!--\n<promise>OK</promise>\n-->\n",
		"comment opened mid-line": body + "Not yet <!-- a note\n<promise>OK</promise>\n-->\n",
		"comment never closed":    body + "<!-- draft\n<promise>OK</promise>\n",
		"escaped form in code":    body + "`&lt;promise&gt;OK&lt;/promise&gt;`\n",
	} {
		t.Run(name, func(t *testing.T) {
			got := strings.Join(problemLines(Validate(cfg, Progress{}, msg)), "\n")
			assert.Contains(t, got, "completion promise: found 0, need 1")
			assert.Contains(t, got, "quoted, not given")
		})
	}
	for name, msg := range map[string]string{
		"own line":                   plan(DefaultSections, "OK"),
		"end of a sentence":          body + "The plan is complete. <promise>OK</promise>\n",
		"after inline code":          body + "Run `make test` first. <promise>OK</promise>\n",
		"after a quote":              body + "> a quoted note\n\n<promise>OK</promise>\n",
		"after a comment":            body + "<!-- a note -->\n<promise>OK</promise>\n",
		"after a comment in a line":  body + "Done <!-- note --> <promise>OK</promise>\n",
		"after a lone backtick":      body + "The ` key opens the console.\n<promise>OK</promise>\n",
		"after an unclosed comment":  body + "Prose names <!-- as a marker.\n<promise>OK</promise>\n",
		"after code spanning a <!--": body + "Write `<!--` to open one.\n<promise>OK</promise>\n",
		"comment marker in a quote":  body + "> `-->` ends a comment\n<promise>OK</promise>\n",
		// A comment opened within a line is inline: it ends with its
		// paragraph, and text after its "-->" is the answer's (review CB5).
		"<!-- in an earlier paragraph":  body + "Lines starting with <!-- are skipped.\n\n<promise>OK</promise>\n\nFlow: a --> b\n",
		"after an inline comment's end": body + "Not yet <!-- a note\nmore --> <promise>OK</promise>\n",
		// A lone backtick is plain text, and one in a comment is comment
		// (review CB5: mutation survivors).
		"after a lone backtick in a line": body + "Press the ` key, then <promise>OK</promise>\n",
		"after a backtick in a comment":   body + "Done <!-- `x --> <promise>OK</promise> and a ` here\n",
	} {
		t.Run(name, func(t *testing.T) {
			assert.Empty(t, Validate(cfg, Progress{}, msg))
		})
	}
	// A non-final revise may quote the promise, as it may show one in code.
	early := Config{Phases: []string{Revise, Critique, Revise}, CompletionPromise: "OK"}
	assert.Empty(t, Validate(early, Progress{}, body+"Finish with `<promise>OK</promise>` later.\n"))
}

// Codex shows the model the hook's instructions with < and > escaped: the
// tag copied as shown counts, is stripped from the plan, and is refused
// where a promise is (review BK5: four refusals, then retries_exhausted).
func TestAnEscapedPromiseCounts(t *testing.T) {
	cfg := Config{Phases: []string{Revise}, CompletionPromise: "PLAN_OK"}
	escaped := plan(DefaultSections, "x")
	escaped = strings.Replace(escaped, "<promise>x</promise>", "&lt;promise&gt;PLAN_OK&lt;/promise&gt;", 1)
	require.Contains(t, escaped, "&lt;promise&gt;PLAN_OK")
	assert.Empty(t, Validate(cfg, Progress{}, escaped))
	assert.NotContains(t, PlanText(escaped), "promise")

	early := Config{Phases: []string{Revise, Critique, Revise}, CompletionPromise: "PLAN_OK"}
	assert.NotEmpty(t, Validate(early, Progress{}, escaped), "not yet the final revise")
	mixed := "a &lt;promise&gt;x&lt;/promise&gt; b <promise>y</promise> c &lt;promise&gt;z&lt;/promise&gt;"
	assert.Equal(t, "a  b  c", stripPromises(mixed))

	// Many tags of one form cost one scan for the other.
	many := strings.Repeat("<promise>x</promise>", 1<<16)
	assert.Len(t, findPromises(many), 1<<16)
}

// A tag only mentioned, never closed, hides no real one after it (review
// BM4: prose naming &lt;promise&gt; made a valid final answer fail).
func TestAnUnclosedMentionHidesNoPromise(t *testing.T) {
	cfg := Config{Phases: []string{Revise}, CompletionPromise: "PLAN_OK"}
	msg := "Codex shows the tag as &lt;promise&gt; in its text.\n\n" + plan(DefaultSections, "PLAN_OK")
	assert.Empty(t, Validate(cfg, Progress{}, msg))
	assert.NotContains(t, PlanText(msg), "PLAN_OK")
	assert.True(t, MentionsPromise("waiting; &lt;promise&gt;PLAN_OK&lt;/promise&gt; once both finish"))
	assert.False(t, MentionsPromise("no tag here"))
	// Unclosed openings by the thousand stay linear.
	assert.Len(t, findPromises(strings.Repeat("<promise>&lt;promise&gt;", 1<<15)), 1<<16)
}
