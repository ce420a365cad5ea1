package install

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith"
)

func TestCommandsComeFromThePluginFolder(t *testing.T) {
	cmds, err := Commands("/opt/my tools/plansmith")
	require.NoError(t, err)
	src, err := fs.Glob(plansmith.Plugin, "commands/*.md")
	require.NoError(t, err)
	require.Len(t, cmds, len(src))
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
		text := string(c.Data)
		assert.NotContains(t, text, "CLAUDE_PLUGIN_ROOT", c.Name)
		assert.NotContains(t, text, "/plansmith:", c.Name)
		assert.Contains(t, text, `"/opt/my tools/plansmith" `, c.Name)
		assert.Equal(t, Unchanged, Inspect(c.Data), c.Name)
	}
	for _, want := range []string{"plansmith-plan.md", "plansmith-cancel.md", "plansmith-help.md"} {
		assert.Contains(t, names, want)
	}
	for _, s := range src {
		assert.Contains(t, names, CommandPrefix+path.Base(s))
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"quoted launcher", "---\nd: x\n---\nrun `\"${CLAUDE_PLUGIN_ROOT}/bin/plansmith\" plan $ARGUMENTS`\n",
			"---\nd: x\n---\nrun `\"/b/plansmith\" plan $ARGUMENTS`\n"},
		{"bare launcher", "---\n---\nsee ${CLAUDE_PLUGIN_ROOT}/bin/plansmith\n", "---\n---\nsee /b/plansmith\n"},
		{"plugin command names", "---\n---\nuse /plansmith:cancel\n", "---\n---\nuse /plansmith-cancel\n"},
		{"no frontmatter gets one", "plain\n", "---\n---\nplain\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Render(tt.src, "/b/plansmith")
			marker, rest, ok := strings.Cut(strings.TrimPrefix(string(out), "---\n"), "\n")
			require.True(t, ok)
			assert.True(t, strings.HasPrefix(marker, markerPrefix), marker)
			assert.Equal(t, tt.want, "---\n"+rest)
		})
	}
}

func TestInspect(t *testing.T) {
	good := Render("---\ndescription: x\n---\nbody\n", "/b/plansmith")
	tests := []struct {
		name string
		data string
		want Provenance
	}{
		{"as written", string(good), Unchanged},
		{"body edited", strings.Replace(string(good), "body", "my body", 1), Edited},
		{"frontmatter edited", strings.Replace(string(good), "description: x", "description: y", 1), Edited},
		{"marker hash edited", strings.Replace(string(good), "sha256=", "sha256=0", 1), Edited},
		{"marker alone", "---\n" + markerPrefix + "abc", Edited},
		{"no marker", "---\ndescription: x\n---\nbody\n", Foreign},
		{"empty", "", Foreign},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Inspect([]byte(tt.data)))
		})
	}
}

// TestCommandFilesPassArgumentsSafely: every command declares its tools, and
// $ARGUMENTS (pasted verbatim by Claude Code) reaches a shell only as the
// body of a quoted heredoc, never as words of a command line or inside !`…`.
func TestCommandFilesPassArgumentsSafely(t *testing.T) {
	names, err := fs.Glob(plansmith.Plugin, "commands/*.md")
	require.NoError(t, err)
	for _, name := range names {
		data, err := fs.ReadFile(plansmith.Plugin, name)
		require.NoError(t, err)
		text := string(data)
		front, _, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
		require.True(t, ok, name)
		assert.Contains(t, front, "\nallowed-tools: ", name)
		lines := strings.Split(text, "\n")
		inCode := false
		for i, line := range lines {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inCode = !inCode
				continue
			}
			if !strings.Contains(line, "$ARGUMENTS") {
				continue
			}
			assert.NotContains(t, line, "!`", "%s:%d", name, i+1)
			if !inCode {
				continue
			}
			require.Equal(t, "$ARGUMENTS", line, "%s:%d: $ARGUMENTS alone on its line", name, i+1)
			_, delim, ok := strings.Cut(lines[i-1], "<<'")
			require.True(t, ok, "%s:%d: the line before opens a quoted heredoc", name, i)
			assert.Equal(t, strings.TrimSuffix(delim, "'"), lines[i+1], "%s:%d: the line after closes it", name, i+2)
		}
	}
	for _, want := range []string{"commands/status.md", "commands/memory.md", "commands/plan.md", "commands/cancel.md", "commands/help.md", "commands/gate.md"} {
		assert.Contains(t, names, want)
	}
}
