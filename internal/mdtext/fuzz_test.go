package mdtext

import (
	"strings"
	"testing"
)

// FuzzMarkdown: no reader panics on any input, and each keeps its contract.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"", "```\n# a\n```", "````\n```\n````", "~~~", "    ```", "## 1. Goal ##", "#",
		"**1.** x", "- [x] y", "1. [ ] z", "a/b/c.go:1 https://x/y.go", "\xff\xfe```\xff", "(1) x", "1.2.3. x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := 0
		for l := range Lines(s) {
			n++
			if l.N != n || strings.ContainsAny(l.Text, "\n") {
				t.Fatalf("line %d: %+v", n, l)
			}
			if level, text, ok := Heading(l.Text); ok && (level < 1 || level > 6 || text != strings.TrimSpace(text)) {
				t.Fatalf("heading %q: %d %q", l.Text, level, text)
			}
			if text, ok := Numbered(l.Text); ok && (text == "" || !strings.Contains(l.Text, text)) {
				t.Fatalf("numbered %q: %q", l.Text, text)
			}
			if _, text, ok := Checkbox(l.Text); ok && !strings.Contains(l.Text, text) {
				t.Fatalf("checkbox %q: %q", l.Text, text)
			}
			_, _ = BoldLabel(l.Text)
			if out := StripNumber(l.Text); len(out) > len(l.Text) {
				t.Fatalf("strip grew %q to %q", l.Text, out)
			}
		}
		refs := FileRefs(s, 0)
		seen := map[string]bool{}
		for _, r := range refs {
			if seen[r] || !strings.Contains(s, r) {
				t.Fatalf("ref %q in %v", r, refs)
			}
			seen[r] = true
		}
		if len(refs) > 1 && len(FileRefs(s, 1)) != 1 {
			t.Fatal("limit not kept")
		}
	})
}
