package phases

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Revise: rewrite the plan to answer the critique. Only the final revise
// (the last revise of the sequence, or Iterate, which repeats it) may
// finalize, by ending with the completion promise; an earlier revise that
// carries the promise is refused so the remaining critique rounds happen.

func validateRevise(cfg Config, a *answer, final bool) []Problem {
	if !final {
		return promiseTag(a, "this is not the last revise: improve the plan and leave the promise for the final revise")
	}
	return append(promiseMatches(cfg, a), sections(cfg, a)...)
}

// promiseMatches is the positive check of the final revise: a promise tag
// whose content is exactly the completion promise (surrounding space
// ignored). With no completion promise configured any tag will do.
func promiseMatches(cfg Config, a *answer) []Problem {
	want := strings.TrimSpace(cfg.CompletionPromise)
	hint := fmt.Sprintf("end your answer with <promise>%s</promise> on its own line", want)
	spans := a.promises()
	for _, sp := range spans {
		// A hyphen typed as U+2011 ("PLAN‑DONE") is the same promise: the
		// refusal would show the two as equal (review CP1).
		if got := strings.TrimSpace(a.text[sp.innerStart:sp.innerEnd]); want == "" || got == want || foldHyphens(got) == foldHyphens(want) {
			return nil
		}
	}
	p := Problem{Check: "completion promise", Need: 1, Hint: hint}
	if len(spans) == 0 && len(findPromises(a.lowered())) > 0 {
		// Say why the tag written is not counted (review BU4).
		p.Detail = "a promise in code, a blockquote or an HTML comment is quoted, not given"
	}
	if len(spans) > 0 {
		got := strings.TrimSpace(a.text[spans[0].innerStart:spans[0].innerEnd])
		if len(got) > 80 {
			cut := 80
			for cut > 0 && !utf8.RuneStart(got[cut]) {
				cut-- // never split a rune: the detail ends up in hook JSON
			}
			got = got[:cut] + "…"
		}
		p.Detail = fmt.Sprintf("found <promise>%s</promise>, which is not the completion promise", got)
		if spans[0].end == spans[0].innerEnd {
			p.Detail = "found a <promise> tag that is never closed"
		}
	}
	return []Problem{p}
}
