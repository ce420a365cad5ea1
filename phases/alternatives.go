package phases

import "strings"

// Alternatives: compare at least two approaches with their trade-offs and
// recommend one — without writing the plan.

const alternativesOptions = 2

var recommendKeywords = []string{
	"recommend", "prefer", "choose|chose|chosen", "go with", "pick", "select", "best option|best approach", "verdict",
	// Review CP11: "Suggested approach: 1", "**Decision:** B". A decision
	// or a suggestion counts only as one made: "we need to decide" and "the
	// logs suggest" recommend nothing.
	"suggested approach|suggested option|suggestion:|i suggest|we suggest", "decision:|decision**:|decision —|decision -", "opt for", "lean toward",
	"추천", "권장", "선택", "채택", "제안", "권고", "결정:|결정**:",
}

var tradeoffKeywords = []string{
	"trade-off|tradeoff|trade off", "pros|pro:|pro -|pro —", "cons|con:|con -|con —", "advantage", "disadvantage", "downside", "upside",
	"drawback", "benefit", "cost", "risk", "strength", "weakness",
	"장점", "단점", "장단점", "트레이드오프|트레이드 오프", "비용", "위험", "강점", "약점", "득실",
}

func validateAlternatives(cfg Config, a *answer) []Problem {
	var probs []Problem
	sh := a.shape()
	if got := max(sh.numbered, len(sh.options), sh.tableOptions); got < alternativesOptions {
		probs = append(probs, Problem{Check: "options", Found: got, Need: alternativesOptions,
			Hint: "present each approach as a numbered item (1., 2.), under a label (\"Option A\", \"**B.**\", \"### 방안 2\"), or as the columns of a comparison table"})
	}
	lower := a.lowered()
	if len(keywordsIn(lower, recommendKeywords)) == 0 {
		probs = append(probs, Problem{Check: "recommendation", Need: 1,
			Hint: "say which option you recommend and why (e.g. \"Recommendation: Option B\" / \"추천: 방안 2\")"})
	}
	if len(keywordsIn(lower, tradeoffKeywords)) == 0 && !markedProsCons(a.text) && !sh.compared {
		probs = append(probs, Problem{Check: "trade-offs", Need: 1,
			Hint: "give each option's pros and cons (trade-offs / 장단점)"})
	}
	probs = append(probs, promiseTag(a, "this phase only compares approaches; the promise belongs to the final revise")...)
	return append(probs, planHeadings(cfg, a)...)
}

// Markers models put before a pro or a con ("- ✅ smallest change", "- ❌
// blocks the worker"): an answer with both weighs its options, though it
// never writes "pro" or "con" (review CP11).
var (
	proMarkers = []string{"✅", "✔", "👍", "➕"}
	conMarkers = []string{"❌", "✘", "✗", "👎", "➖", "⚠"}
)

func markedProsCons(text string) bool {
	has := func(ms []string) bool {
		for _, m := range ms {
			if strings.Contains(text, m) {
				return true
			}
		}
		return false
	}
	return has(proMarkers) && has(conMarkers)
}
