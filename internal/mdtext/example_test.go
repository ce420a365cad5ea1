package mdtext_test

import (
	"fmt"

	"github.com/plansmith/plansmith/internal/mdtext"
)

// Lines marks code: a block opened with four backticks shows a
// three-backtick example without ending, so the "## Steps" inside is code.
func ExampleLines() {
	text := "## Findings\n````md\n```\n## Steps\n```\n````\n1. `cache.go` keeps entries for an hour.\n"
	for l := range mdtext.Lines(text) {
		if l.Code {
			continue
		}
		if level, h, ok := mdtext.Heading(l.Text); ok {
			fmt.Printf("heading %d: %s\n", level, h)
		}
		if item, ok := mdtext.Numbered(l.Text); ok {
			fmt.Printf("item: %s\n", item)
			fmt.Printf("files: %v\n", mdtext.FileRefs(item, 0))
		}
	}
	// Output:
	// heading 2: Findings
	// item: `cache.go` keeps entries for an hour.
	// files: [cache.go]
}
