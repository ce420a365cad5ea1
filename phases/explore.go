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
// words of prose), or, for a path standing alone or with too few words —
// a heading, a list item, a label — when its line and the lines after it,
// together, do before the next citation or heading: "### `gate/lines.go`"
// followed by a paragraph, "**`a.go`**" followed by short bullets ("- one
// attempt", "- no backoff"; review CP7). A file cited several times needs
// one finding. Paths in code blocks (a tree listing, a command) are not
// citations.
func untiedFiles(text string) []string {
	var order []string
	tied := map[string]bool{}
	var pending []string
	var said prose // what the pending citations' lines have said so far
	settle := func() { pending, said = nil, prose{} }
	for l := range mdtext.Lines(text) {
		if l.Code {
			continue
		}
		t := strings.TrimSpace(l.Text)
		if t == "" {
			continue
		}
		refs := mdtext.FileRefs(t, 0)
		words := proseOf(t, refs)
		_, _, heading := mdtext.Heading(t)
		if len(refs) == 0 {
			if heading {
				settle()
				continue
			}
			said.add(words)
			if said.enough() {
				for _, r := range pending {
					tied[r] = true
				}
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
			if words.enough() && !heading {
				tied[r] = true
			} else {
				pending = append(pending, r)
			}
		}
		if len(pending) > 0 && !heading {
			said = words
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

// prose is how much a line says beside the paths it cites.
type prose struct {
	words int // tokens with at least one letter
	dense int // letters of scripts that write a word in one to three of them (Hangul, Han, kana)
}

func (p *prose) add(q prose) { p.words += q.words; p.dense += q.dense }

// enough reports whether p is a finding: findingWords words, or as many
// letters of a dense script as a short Korean finding holds ("재시도 없음",
// "no retry" — review CP7).
func (p prose) enough() bool { return p.words >= findingWords || p.dense >= denseLetters }

// denseLetters is how many Hangul, Han or kana letters make a finding.
const denseLetters = 4

// proseOf measures the words of line that are not the file references in
// refs and not markdown: tokens with at least one letter.
func proseOf(line string, refs []string) prose {
	for _, r := range refs {
		line = strings.ReplaceAll(line, r, " ")
	}
	var p prose
	for _, f := range strings.Fields(line) {
		if strings.ContainsFunc(f, unicode.IsLetter) {
			p.words++
		}
		if isASCII(f) {
			continue
		}
		for _, r := range f {
			if unicode.In(r, unicode.Hangul, unicode.Han, unicode.Hiragana, unicode.Katakana) {
				p.dense++
			}
		}
	}
	return p
}
