package phases

import "github.com/plansmith/plansmith/internal/mdtext"

// Explore: read the codebase with read-only tools and report what was found,
// file by file — still no plan.

const exploreRefs = 2

func validateExplore(cfg Config, a *answer) []Problem {
	var probs []Problem
	if n := countFileRefs(a.text, exploreRefs); n < exploreRefs {
		probs = append(probs, Problem{Check: "file references", Found: n, Need: exploreRefs,
			Hint: "read the relevant code and cite the files you read by path, e.g. internal/store/db.go"})
	}
	return append(probs, planHeadings(cfg, a)...)
}

// countFileRefs counts distinct file references in text (see
// mdtext.FileRefs), stopping at limit.
func countFileRefs(text string, limit int) int {
	return len(mdtext.FileRefs(text, limit))
}
