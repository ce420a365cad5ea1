package bashtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettingsEnv: a project's Claude Code settings files whose env sets a
// variable that is not known to be inert make the Bash tool's commands
// suspect (review FD1: BASH_ENV, CLAUDE_ENV_FILE, ZDOTDIR and an exported
// function there ran a project script with every ls while planning).
func TestSettingsEnv(t *testing.T) {
	for _, c := range []struct {
		name, file, content string
		want                string // a part of the reason; "" for none
	}{
		{"no settings", "", "", ""},
		{"settings without env", "settings.json", `{"permissions": {"allow": ["Bash(ls:*)"]}}`, ""},
		{"an empty env", "settings.json", `{"env": {}}`, ""},
		{"a null env", "settings.json", `{"env": null}`, ""},
		{"only Claude Code's own variables", "settings.json", `{"env": {"ANTHROPIC_MODEL": "x", "DISABLE_TELEMETRY": "1", "BASH_DEFAULT_TIMEOUT_MS": "60000"}}`, ""},
		{"BASH_ENV", "settings.json", `{"env": {"BASH_ENV": "./tools/x"}}`, `sets "BASH_ENV" under env`},
		{"CLAUDE_ENV_FILE", "settings.json", `{"env": {"CLAUDE_ENV_FILE": "tools/env"}}`, `"CLAUDE_ENV_FILE"`},
		{"Claude Code's shell prefix", "settings.json", `{"env": {"CLAUDE_CODE_SHELL_PREFIX": "tools/wrap"}}`, `"CLAUDE_CODE_SHELL_PREFIX"`},
		{"ZDOTDIR among inert ones", "settings.json", `{"env": {"ZDOTDIR": "z", "DISABLE_TELEMETRY": "1"}}`, `sets "ZDOTDIR" under env`},
		{"an exported function", "settings.json", `{"env": {"BASH_FUNC_ls%%": "() { x; }"}}`, `"BASH_FUNC_ls%%"`},
		{"a name spelled with a JSON escape", "settings.json", `{"env": {"BASH\u005fENV": "x"}}`, `"BASH_ENV"`},
		{"the local settings file", "settings.local.json", `{"env": {"PATH": "./bin:/usr/bin"}}`, "settings.local.json sets \"PATH\""},
		{"the last of two env keys", "settings.json", `{"env": {"A": "1"}, "env": {"BASH_ENV": "x"}}`, `"BASH_ENV"`},
		{"an env that is no object", "settings.json", `{"env": ["BASH_ENV=x"]}`, "not an object"},
		{"a file that is no JSON", "settings.json", `{"env": {"BASH_ENV": "x"},}`, "cannot be understood"},
		// Claude Code reads a file that starts with a byte order mark
		// (install.ClaudeSkips): so does the rule.
		{"a byte order mark, no env", "settings.json", "\ufeff{\"permissions\": {}}", ""},
		{"a byte order mark, inert env", "settings.json", "\ufeff{\"env\": {\"DISABLE_TELEMETRY\": \"1\"}}", ""},
		{"a byte order mark, BASH_ENV", "settings.json", "\ufeff{\"env\": {\"BASH_ENV\": \"x\"}}", `sets "BASH_ENV" under env`},
		{"ANTHROPIC_ alone", "settings.json", `{"env": {"ANTHROPIC_": "x"}}`, `"ANTHROPIC_"`},
		{"a name that only starts like the API's", "settings.json", `{"env": {"ANTHROPICS_KEY": "x"}}`, `"ANTHROPICS_KEY"`},
		// Claude Code reads the key env alone.
		{"another key's case", "settings.json", `{"Env": {"BASH_ENV": "x"}}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			project := t.TempDir()
			if c.file != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", c.file), []byte(c.content), 0o644))
			}
			got := SettingsEnv(t.TempDir(), project)
			if c.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, c.want)
			assert.Contains(t, got, filepath.Join(project, ".claude", c.file))
		})
	}
}

// TestSettingsEnvFolders: the folders looked in are the ones given (the
// loop's project and where Claude Code was started), never the user's home,
// whose .claude/settings.json holds the user's own settings; a settings
// file that cannot be read counts, and so does a dangling link, whose
// target may appear while the session runs (as .codex/config.toml's does).
func TestSettingsEnvFolders(t *testing.T) {
	write := func(dir, file, content string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", file), []byte(content), 0o644))
	}
	home, project, started := t.TempDir(), t.TempDir(), t.TempDir()
	write(home, "settings.json", `{"env": {"BASH_ENV": "/home/me/.bashenv"}}`)
	assert.Empty(t, SettingsEnv(home, home, project), "the user's own settings")
	// A project that sets HOME to its own folder does not pass for the
	// user's home (review FD5).
	write(project, "settings.json", `{"env": {"HOME": "`+project+`", "BASH_ENV": "x"}}`)
	assert.Contains(t, SettingsEnv(project, project), `"BASH_ENV"`)
	require.NoError(t, os.Remove(filepath.Join(project, ".claude", "settings.json")))
	assert.Empty(t, SettingsEnv(home, "", "relative/dir", project), "no folder to read")
	write(started, "settings.local.json", `{"env": {"LD_PRELOAD": "./x.so"}}`)
	assert.Contains(t, SettingsEnv(home, project, started), `"LD_PRELOAD"`, "where Claude Code was started")

	unreadable := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(unreadable, ".claude", "settings.json"), 0o755))
	assert.Contains(t, SettingsEnv(home, unreadable), "cannot be read")

	dangling := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dangling, ".claude"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dangling, "gone"), filepath.Join(dangling, ".claude", "settings.json")))
	assert.Contains(t, SettingsEnv(home, dangling), "cannot be read")
}

// TestSettingsSet: whether a project's settings set a variable under env,
// counting a file that cannot be understood.
func TestSettingsSet(t *testing.T) {
	project := t.TempDir()
	assert.False(t, SettingsSet("HOME", project), "no settings")
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	local := filepath.Join(project, ".claude", "settings.local.json")
	require.NoError(t, os.WriteFile(local, []byte(`{"env": {"TZ": "UTC"}}`), 0o644))
	assert.False(t, SettingsSet("HOME", project))
	assert.True(t, SettingsSet("TZ", project))
	require.NoError(t, os.WriteFile(local, []byte(`{"env": {"HOME": "/elsewhere"}}`), 0o644))
	assert.True(t, SettingsSet("HOME", "", "relative", project))
	require.NoError(t, os.WriteFile(local, []byte(`{"env": `), 0o644))
	assert.True(t, SettingsSet("HOME", project), "a file that cannot be understood may set it")
}

// TestSettingsEnvGitRoot: Claude Code 2.1.330 reads the local settings of
// the git repository a session starts in at the repository's root (the
// main checkout's, for a linked worktree), however deep the session
// starts: LD_PRELOAD in the root's .claude/settings.local.json reached
// every Bash command of a session started in a subfolder, and the rule,
// which read only the folder Claude Code was started in, let ls run
// (review FG1). Its settings.json is not read there, and a repository at
// the user's home holds the user's own settings.
func TestSettingsEnvGitRoot(t *testing.T) {
	write := func(dir, file, content string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", file), []byte(content), 0o644))
	}
	home, root := t.TempDir(), t.TempDir()
	git(t, root, "init", "-q")
	sub := filepath.Join(root, "a", "sub")
	require.NoError(t, os.MkdirAll(sub, 0o755))

	write(root, "settings.json", `{"env": {"BASH_ENV": "x"}}`)
	assert.Empty(t, SettingsEnv(home, sub, sub), "Claude Code reads no settings.json above where it starts")
	require.NoError(t, os.Remove(filepath.Join(root, ".claude", "settings.json")))
	write(root, "settings.local.json", `{"env": {"LD_PRELOAD": "./x.so"}}`)
	local := filepath.Join(root, ".claude", "settings.local.json")
	got := SettingsEnv(home, sub, sub)
	assert.Contains(t, got, `"LD_PRELOAD"`)
	assert.Contains(t, got, local)
	assert.True(t, SettingsSet("LD_PRELOAD", sub))
	assert.Contains(t, SettingsEnv(home, root, root), local, "at the root itself")
	assert.Empty(t, SettingsEnv(root, sub, sub), "a repository at the user's home holds the user's settings")
	// Unless the repository moves HOME there (review FD5).
	write(root, "settings.local.json", `{"env": {"HOME": "`+root+`", "LD_PRELOAD": "./x.so"}}`)
	assert.Contains(t, SettingsEnv(root, sub, sub), local, "a HOME the repository's own settings move there")
	write(root, "settings.local.json", `{"env": {"LD_PRELOAD": "./x.so"}}`)
	assert.Empty(t, SettingsEnv(home, t.TempDir()), "no repository")

	// A linked worktree: the main checkout's local settings.
	git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
	tree := filepath.Join(t.TempDir(), "tree")
	git(t, root, "worktree", "add", "-q", tree)
	assert.Contains(t, SettingsEnv(home, tree), local, "a linked worktree")
	inTree := filepath.Join(tree, "deep")
	require.NoError(t, os.MkdirAll(inTree, 0o755))
	assert.Contains(t, SettingsEnv(home, inTree), local, "a folder of a linked worktree")
	require.NoError(t, os.Remove(local))
	assert.Empty(t, SettingsEnv(home, inTree))
	write(tree, "settings.local.json", `{"env": {"PAGER": "./x"}}`)
	assert.Contains(t, SettingsEnv(home, inTree), filepath.Join(tree, ".claude", "settings.local.json"), "the worktree's own root")
	require.NoError(t, os.RemoveAll(filepath.Join(tree, ".claude")))

	// A worktree whose .git file names its gitdir relatively (git
	// worktree add --relative-paths, or worktree.useRelativePaths).
	write(root, "settings.local.json", `{"env": {"LD_PRELOAD": "./x.so"}}`)
	gitdir, err := os.ReadFile(filepath.Join(tree, ".git"))
	require.NoError(t, err)
	abs := strings.TrimSpace(strings.TrimPrefix(string(gitdir), "gitdir:"))
	rel, err := filepath.Rel(tree, abs)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tree, ".git"), []byte("gitdir: "+rel+"\n"), 0o644))
	assert.Contains(t, SettingsEnv(home, inTree), local, "a relative gitdir")
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}
