package phases

import (
	"strings"
	"unicode"

	"github.com/plansmith/plansmith/internal/mdtext"
)

// Explore: read the codebase with read-only tools and report what was found,
// file by file — still no plan.

const (
	exploreRefs = 2
	// findingWords is how many words of prose, beside the paths, make a
	// line a finding about the files it cites.
	findingWords = 3
	// untiedShown caps the files a refusal names.
	untiedShown = 5
)

func validateExplore(cfg Config, a *answer) []Problem {
	var probs []Problem
	if n := countFileRefs(a.text, exploreRefs); n < exploreRefs {
		probs = append(probs, Problem{Check: "file references", Found: n, Need: exploreRefs,
			Hint: "read the relevant code and cite the files you read by path, e.g. internal/store/db.go"})
	}
	if untied := untiedFiles(a.text); len(untied) > 0 {
		shown := untied
		if len(shown) > untiedShown {
			shown = append(shown[:untiedShown:untiedShown], "…")
		}
		probs = append(probs, Problem{Check: "files cited without a finding", Found: len(untied), Negative: true,
			Detail: strings.Join(shown, ", "),
			Hint:   "say what each file you cite contributes — a sentence beside its path or right under it — or leave the file out"})
	}
	return append(probs, planHeadings(cfg, a)...)
}

// countFileRefs counts distinct file references in text (see
// mdtext.FileRefs), stopping at limit.
func countFileRefs(text string, limit int) int {
	return len(mdtext.FileRefs(text, limit))
}

// untiedFiles returns the files an explore answer cites without a finding,
// in order of first citation. A citation outside code blocks is tied to a
// finding when its line says something beside the paths (findingWords
// words of prose), or, for a path standing alone — a heading, a list item,
// a label — when the lines after it do before the next citation or heading:
// "### `gate/lines.go`" followed by a paragraph, "- `a.go`" followed by
// nested bullets. A file cited several times needs one finding. Paths in
// code blocks (a tree listing, a command) are not citations.
func untiedFiles(text string) []string {
	var order []string
	tied := map[string]bool{}
	var pending []string
	settle := func() { pending = nil }
	for l := range mdtext.Lines(text) {
		if l.Code {
			continue
		}
		t := strings.TrimSpace(l.Text)
		if t == "" {
			continue
		}
		refs := mdtext.FileRefs(t, 0)
		words := proseWords(t, refs)
		_, _, heading := mdtext.Heading(t)
		if len(refs) == 0 {
			if words >= findingWords && !heading {
				for _, r := range pending {
					tied[r] = true
				}
				settle()
			} else if heading {
				settle()
			}
			continue
		}
		settle()
		for _, r := range refs {
			if _, seen := tied[r]; !seen {
				tied[r] = false
				order = append(order, r)
			}
			if words >= findingWords && !heading {
				tied[r] = true
			} else {
				pending = append(pending, r)
			}
		}
	}
	var out []string
	for _, r := range order {
		if !tied[r] {
			out = append(out, r)
		}
	}
	return out
}

// proseWords counts the words of line that are not the file references in
// refs and not markdown: tokens with at least one letter.
func proseWords(line string, refs []string) int {
	for _, r := range refs {
		line = strings.ReplaceAll(line, r, " ")
	}
	n := 0
	for _, f := range strings.Fields(line) {
		if strings.ContainsFunc(f, unicode.IsLetter) {
			n++
		}
	}
	return n
}
