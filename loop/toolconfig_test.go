package loop

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNpmrc(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(home, "code", "app")
	web := filepath.Join(project, "packages", "web")
	src := filepath.Join(web, "src")
	require.NoError(t, os.MkdirAll(src, 0o755))
	write := func(path string) {
		t.Helper()
		require.NoError(t, os.WriteFile(path, []byte("x"), 0o644))
	}
	env := Env{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}

	write(filepath.Join(home, ".npmrc")) // the user's own
	write(filepath.Join(home, "package.json"))
	assert.Empty(t, npmrc(env, src), "$HOME/.npmrc is the user's configuration")

	write(filepath.Join(root, ".npmrc")) // above a folder that is no prefix
	assert.Empty(t, npmrc(env, src), "a folder without package.json or node_modules is no prefix")

	write(filepath.Join(project, "package.json"))
	write(filepath.Join(project, ".npmrc"))
	assert.Equal(t, filepath.Join(project, ".npmrc"), npmrc(env, src), "the project's, found from below")

	require.NoError(t, os.Mkdir(filepath.Join(web, "node_modules"), 0o755))
	write(filepath.Join(web, ".npmrc"))
	assert.Equal(t, filepath.Join(web, ".npmrc"), npmrc(env, src), "the nearest prefix first")

	write(filepath.Join(src, ".npmrc"))
	assert.Equal(t, filepath.Join(src, ".npmrc"), npmrc(env, src), "cwd itself, npm's prefix when none is found")

	require.NoError(t, os.Remove(filepath.Join(src, ".npmrc")))
	require.NoError(t, os.Symlink(filepath.Join(root, "missing"), filepath.Join(src, ".npmrc")))
	assert.Equal(t, filepath.Join(src, ".npmrc"), npmrc(env, src), "a dangling link counts")

	env.Getwd = func() (string, error) { return src, nil }
	assert.Equal(t, filepath.Join(src, ".npmrc"), npmrc(env, ""), "no cwd in the input: the process's folder")
}

// Through the hook: with a loop running, npm is refused where the project
// carries an .npmrc, and judged as before where it does not.
func TestNpmRefusedWithAProjectNpmrc(t *testing.T) {
	env, p, _ := guardedLoop(t)
	npm := ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: []byte(`{"command":"npm ls --depth=0"}`)}

	assert.False(t, PreToolUse(env, npm).Deny, "no .npmrc")
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, ".npmrc"), []byte("logs-dir=./npmlogs\n"), 0o644))
	out := PreToolUse(env, npm)
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, filepath.Join(p.Project, ".npmrc"))
}

// A sub-agent's definition can ask for a worktree as the call's input can
// (isolation: worktree in its frontmatter); such an agent is refused while
// planning (the review of the eighth review's fixes).
func TestAgentDefinitionIsolation(t *testing.T) {
	env, p, _ := guardedLoop(t)
	agents := filepath.Join(p.Project, ".claude", "agents")
	require.NoError(t, os.MkdirAll(filepath.Join(agents, "team"), 0o755))
	define := func(file, text string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(agents, file), []byte(text), 0o644))
	}
	call := func(agent string) ToolOutcome {
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Agent",
			Input: []byte(`{"description":"x","prompt":"x","subagent_type":"` + agent + `"}`)})
	}
	define("reader.md", "---\nname: reader\ndescription: reads\n---\nRead.\n")
	define("team/helper-file.md", "---\r\nname: helper\r\ndescription: h\r\nisolation: worktree\r\n---\r\nHelp.\r\n")
	define("plain.md", "---\nname: plain\nisolation: none\n---\n")

	assert.False(t, call("reader").Deny, "a definition without isolation")
	assert.False(t, call("plain").Deny, "isolation none")
	assert.False(t, call("general-purpose").Deny, "a built-in agent")
	out := call("helper")
	assert.True(t, out.Deny, "named in its frontmatter, in a subfolder, with CRLF lines")
	assert.Contains(t, out.Reason, "worktree")

	define("broken.md", "---\nname: [\n---\n")
	assert.True(t, call("reader").Deny, "a definition that cannot be read may be the one called")
}
