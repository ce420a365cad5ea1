package memory

import (
	"fmt"
	"github.com/plansmith/plansmith/internal/mdtext"
	"github.com/plansmith/plansmith/state"
)

// Lessons turns a finished loop's records into memory lessons: each
// principle a critique judged FAIL, then the gate's uncovered findings (what
// the critic saw that the plan missed). In open-critique mode, where there are
// no principle verdicts, the critiques' numbered items stand in.
func Lessons(f *state.File, uncovered []string) []string {
	var out []string
	for _, pf := range f.Loop.PrincipleFails {
		l := pf.Principle + " FAIL"
		if pf.Note != "" {
			l += ": " + pf.Note
		}
		out = append(out, l)
	}
	if len(f.Loop.PrincipleFails) == 0 && f.Loop.CritiqueMode == "open" {
		for _, o := range f.Outputs() {
			if o.Phase == "critique" {
				for _, item := range numberedItems(o.Text, 3) {
					out = append(out, "critique: "+item)
				}
			}
		}
	}
	for _, u := range uncovered {
		out = append(out, fmt.Sprintf("missed gap: %s", u))
	}
	return out
}

// numberedItems returns the texts of the first max numbered items outside
// code blocks (mdtext.Numbered, as the critique check counts them).
func numberedItems(text string, max int) []string {
	var items []string
	for l := range mdtext.Lines(text) {
		if item, ok := mdtext.Numbered(l.Text); ok && !l.Code {
			items = append(items, item)
			if len(items) == max {
				break
			}
		}
	}
	return items
}
