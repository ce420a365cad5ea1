package mdtext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// codeLines returns the numbers of the lines Lines marks as code.
func codeLines(text string) []int {
	var out []int
	for l := range Lines(text) {
		if l.Code {
			out = append(out, l.N)
		}
	}
	return out
}

func TestFence(t *testing.T) {
	tests := []struct {
		name string
		text string
		code []int
	}{
		{"backticks", "a\n```\nx\n```\nb", []int{2, 3, 4}},
		{"tildes with info", "~~~go\nx\n~~~\nb", []int{1, 2, 3}},
		{"four backticks are not closed by three", "````md\n```\n# Steps\n```\n````\n# Goal", []int{1, 2, 3, 4, 5}},
		{"a longer run closes", "```\nx\n`````\n# Goal", []int{1, 2, 3}},
		{"tildes are not closed by backticks", "~~~\n```\n# Steps\n~~~\n# Goal", []int{1, 2, 3, 4}},
		{"a closing fence takes no info string", "```\n``` go\n# Steps\n```\nb", []int{1, 2, 3, 4}},
		{"three spaces of indent open", "   ```\nx\n   ```\nb", []int{1, 2, 3}},
		{"four spaces are indented code, not a fence", "    ```\n# Steps\n    ```", nil},
		{"a tab is not fence indentation", "\t```\n# Steps", nil},
		{"a closing fence indented four spaces does not close", "```\n    ```\nx\n```\nb", []int{1, 2, 3, 4}},
		{"backtick info may not hold a backtick", "```a`b\n# Steps", nil},
		{"tilde info may hold a backtick", "~~~a`b\nx", []int{1, 2}},
		{"two backticks are inline code", "``x``\n# Steps", nil},
		{"left open runs to the end", "```\nx\ny", []int{1, 2, 3}},
		{"crlf", "```\r\nx\r\n```\r\nb\r\n", []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.code, codeLines(tt.text))
		})
	}
}

func TestLinesNumbersAndText(t *testing.T) {
	var got []Line
	for l := range Lines("a\r\n\nb\n") {
		got = append(got, l)
	}
	assert.Equal(t, []Line{{N: 1, Text: "a"}, {N: 2, Text: ""}, {N: 3, Text: "b"}}, got)
	for range Lines("x\ny") {
		break // stopping early must not panic
	}
}

func TestHeading(t *testing.T) {
	tests := []struct {
		line  string
		level int
		text  string
		ok    bool
	}{
		{"# Goal", 1, "Goal", true},
		{"###### Six", 6, "Six", true},
		{"####### Seven", 0, "", false},
		{"#hashtag", 0, "", false},
		{"##\tTabbed", 2, "Tabbed", true},
		{"  ## Indented", 2, "Indented", true},
		{"## Closed ##", 2, "Closed", true},
		{"## C#", 2, "C#", true},
		{"#", 1, "", true},
		{"## ##", 2, "", true},
		{"## 2. Steps", 2, "2. Steps", true},
		{"text", 0, "", false},
		{"", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			level, text, ok := Heading(tt.line)
			assert.Equal(t, tt.level, level)
			assert.Equal(t, tt.text, text)
			assert.Equal(t, tt.ok, ok)
		})
	}
}

func TestBoldLabel(t *testing.T) {
	tests := []struct {
		line string
		text string
		ok   bool
	}{
		{"**Goal:**", "Goal:", true},
		{"**Goal**:", "Goal", true},
		{"__Scope__", "Scope", true},
		{"**Goal:** make it fast", "", false},
		{"**", "", false},
		{"****", "", false},
		{"plain", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			text, ok := BoldLabel(tt.line)
			assert.Equal(t, tt.text, text)
			assert.Equal(t, tt.ok, ok)
		})
	}
}

func TestStripNumber(t *testing.T) {
	tests := map[string]string{
		"1. Product Goal":   "Product Goal",
		"2) Scope":          "Scope",
		"3.1 Risks":         "Risks",
		"1.2.3. Steps":      "Steps",
		"(4) Verification":  "Verification",
		"5: Open questions": "Open questions",
		"7.":                "",
		"2024 roadmap":      "2024 roadmap",
		"3D view":           "3D view",
		"1.5GB":             "1.5GB",
		"Goal":              "Goal",
		"(a) first":         "(a) first",
		"1234. long":        "1234. long",
		"":                  "",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			assert.Equal(t, want, StripNumber(in))
		})
	}
}

func TestNumbered(t *testing.T) {
	tests := []struct {
		line string
		text string
		ok   bool
	}{
		{"1. read", "read", true},
		{"12) parse", "parse", true},
		{"  3. indented", "indented", true},
		{"**4.** bold", "bold", true},
		{"5.\ttab", "tab", true},
		{"1.5 GB", "", false},
		{"1234. too long", "", false},
		{"1.", "", false},
		{"1. ", "", false},
		{"- 1. bullet first", "", false},
		{"one. word", "", false},
		{"1\ufe0f\u20e3 keycap", "keycap", true},
		{"2\u20e3 bare keycap", "bare keycap", true},
		{"12\ufe0f\u20e3 no such keycap", "", false},
		{"3\ufe0f\u20e3", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			text, ok := Numbered(tt.line)
			assert.Equal(t, tt.text, text)
			assert.Equal(t, tt.ok, ok)
		})
	}
}

func TestCheckbox(t *testing.T) {
	tests := []struct {
		line    string
		checked bool
		text    string
		ok      bool
	}{
		{"- [ ] write tests", false, "write tests", true},
		{"* [x] done", true, "done", true},
		{"+ [X] done", true, "done", true},
		{"  - [ ] nested", false, "nested", true},
		{"1. [ ] numbered", false, "numbered", true},
		{"- [ ]", false, "", true},
		{"- [y] other", false, "", false},
		{"- [ ]x glued", false, "", false},
		{"-[ ] no space", false, "", false},
		{"[ ] no bullet", false, "", false},
		{"- plain", false, "", false},
		{"", false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			checked, text, ok := Checkbox(tt.line)
			assert.Equal(t, []any{tt.checked, tt.text, tt.ok}, []any{checked, text, ok})
		})
	}
}

func TestFileRefs(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{"extensions and paths", "Read internal/store/db.go and main.go, then cmd/app/.", 0,
			[]string{"internal/store/db.go", "main.go", "cmd/app/"}},
		{"line suffix and duplicates", "main.go:12, `main.go`, main.go.", 0, []string{"main.go"}},
		{"bare files, any case", "the Makefile and a dockerfile", 0, []string{"Makefile", "dockerfile"}},
		{"config and docs", "settings.toml, notes.rst, flake.nix, build.gradle", 0,
			[]string{"settings.toml", "notes.rst", "flake.nix", "build.gradle"}},
		{"prose slashes are not paths", "and/or, read/write, 1/2", 0, nil},
		{"rooted and ticked paths", "/etc/hosts ./run ../up ~/x `pkg/core`", 0,
			[]string{"/etc/hosts", "./run", "../up", "~/x", "pkg/core"}},
		{"urls are not files", "see https://example.com/a/b/c.go now", 0, nil},
		{"versions and numbers are not files", "v1.2 and 3.5 and e.g. and i.e.", 0, nil},
		{"limit stops early", "a.go b.go c.go", 2, []string{"a.go", "b.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FileRefs(tt.text, tt.limit))
		})
	}
}

func TestSourceExt(t *testing.T) {
	assert.True(t, SourceExt("GO"))
	assert.True(t, SourceExt("yaml"))
	assert.False(t, SourceExt("r"))
	assert.False(t, SourceExt(strings.Repeat("g", 11)))
	assert.LessOrEqual(t, names().longestBare, 10)
}

// A placeholder spelled with invisible or fullwidth characters, which the
// reader sees as the same word, says nothing either (review DC3).
func TestSaysSomethingSeesThroughLookAlikes(t *testing.T) {
	for _, line := range []string{"T\u200bBD", "ＴＢＤ", "- N\u00ad/A", "\ufeffTODO", "- ＴＢＤ"} {
		assert.False(t, SaysSomething(line), "%q", line)
	}
	for _, line := range []string{"ｇｏ test ./...", "재시도\u200b 정책을 추가한다", "TBD\u200b until finance confirms"} {
		assert.True(t, SaysSomething(line), "%q", line)
	}
}
