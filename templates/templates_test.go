package templates

import (
	"io/fs"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTextAndRenderErrorsNameTheFile(t *testing.T) {
	_, err := Text("nope/missing.md")
	assert.ErrorContains(t, err, "nope/missing.md")
	_, err = Render("nope/missing.md", nil)
	assert.ErrorContains(t, err, "nope/missing.md")
}

func TestRenderReportsMissingKeys(t *testing.T) {
	// messages/paused.md needs Label, Set and Cap; a missing key is an error, not "<no value>".
	_, err := Render("messages/paused.md", map[string]any{"Label": "x", "Set": "", "Held": ""})
	assert.ErrorContains(t, err, "Cap")
	out, err := Render("messages/paused.md", map[string]any{"Label": "understand [1/8]", "Cap": 8, "Set": "", "Held": ""})
	require.NoError(t, err)
	assert.Contains(t, out, "understand [1/8]")
}

// TestEveryTemplateParses keeps a broken template from reaching a hook at
// run time: each embedded .md file must parse with the package's functions.
func TestEveryTemplateParses(t *testing.T) {
	n := 0
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		n++
		src, err := Text(path)
		require.NoError(t, err)
		_, err = template.New(path).Funcs(funcs).Option("missingkey=error").Parse(src)
		assert.NoError(t, err, path)
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, n, 30, "the embedded templates were found")
}

// Text from files a repository may carry reaches the terminal without its
// escape sequences or reordering marks (review V7: a planted file name
// redrew its row of `plansmith plans` to read "verified").
func TestPrintable(t *testing.T) {
	assert.Equal(t, "a?[2K?[1Gverified b ?evil", OneLine("a\x1b[2K\x1b[1Gverified\n b \u202eevil", 100))
	assert.Equal(t, "line one\n\tline ?two", Printable("line one\n\tline \x07two"))
	assert.Equal(t, "café ✓", Printable("café ✓"), "printable text is left alone")
}
