package loop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/hooks/policy"
)

// The user's shell, as Claude Code's snapshot restores it before every
// command: zsh prints functions as typeset -f does, Claude Code 2.1.330
// writes bash's as eval and printf %q of declare -f, 2.1.197 in base64,
// and both the aliases as "alias -- NAME=VALUE" (review CN5). The texts
// here are made by the real shells where they are installed.
func TestSnapshotNames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	const startup = `chpwd() { [ -f .venv/bin/activate ] && . .venv/bin/activate; }
cdnvm() { command cd "$@" && nvm install "$(cat .nvmrc)"; }
ls() { command ls -G "$@"; }
_private() { :; }
__helper() { :; }
alias cd=cdnvm
alias cat='bat --paging=never'
alias grep='grep --color=auto'
alias ll='ls -lh'
alias q='\ls'
alias nice='nice '
`
	var texts []string
	if zsh, err := exec.LookPath("zsh"); err == nil {
		out, err := exec.Command(zsh, "-fc", startup+`for f in chpwd cdnvm ls __helper; do typeset -f $f; done
alias | sed 's/^/alias -- /'`).Output()
		require.NoError(t, err)
		texts = append(texts, string(out))
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		// 2.1.330's form and 2.1.197's, each a snapshot of its own.
		for _, functions := range []string{`for f in chpwd cdnvm ls __helper; do printf 'eval %q > /dev/null 2>&1\n' "$(declare -f $f)"; done`,
			`for f in chpwd cdnvm ls __helper; do printf 'eval "$(echo %s | base64 -d)" > /dev/null 2>&1\n' "'$(declare -f $f | base64)'"; done`} {
			out, err := exec.Command(bash, "-c", "shopt -s expand_aliases\n"+startup+functions+`
alias -p | sed 's/^alias /alias -- /'`).Output()
			require.NoError(t, err)
			texts = append(texts, string(out))
		}
	}
	if len(texts) == 0 {
		t.Skip("neither zsh nor bash is installed")
	}
	for _, text := range texts {
		names := snapshotNames(text + "\nfunction find {\n  command find \"$@\"\n}\n  alias rg='/opt/claude --rg'\nalias tree='eza --tree'\n")
		for _, name := range []string{"chpwd", "cdnvm", "ls", "__helper", "cd", "cat", "nice"} {
			assert.Contains(t, names, name, text)
		}
		assert.Contains(t, names["cd"], "cdnvm")
		assert.Contains(t, names["tree"], "eza", "alias -p's own form")
		assert.Contains(t, names["chpwd"], "function")
		for _, name := range []string{"_private", "grep", "find", "rg"} {
			assert.NotContains(t, names, name, "%s in\n%s", name, text)
		}
	}
}

// The snapshots are read from Claude Code's configuration folder, and what
// they define reaches the policy through PreToolUse.
func TestShellDefinesReadsTheSnapshots(t *testing.T) {
	home := t.TempDir()
	config := t.TempDir()
	dir := filepath.Join(config, "shell-snapshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snapshot-zsh-1-a.sh"), []byte("# Functions\nchpwd () {\n\tls\n}\n# Aliases\nalias -- cat=bat\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.sh"), []byte("alias -- ls=eza\n"), 0o644))
	vars := map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": config}
	env := Env{Getenv: func(k string) string { return vars[k] }}
	defs := shellDefines(env)
	assert.Contains(t, defs("chpwd"), "function")
	assert.Contains(t, defs("cat"), "bat")
	assert.Empty(t, defs("ls"), "only snapshot-*.sh files are Claude Code's")
	cfg := policy.Config{ShellDefines: defs}
	assert.Equal(t, "shell-function", policy.Bash("cd sub && ls", cfg).Rule)
	assert.Equal(t, "shell-function", policy.Bash("cat go.mod", cfg).Rule)
	assert.True(t, policy.Bash("ls sub", cfg).Allow)

	delete(vars, "CLAUDE_CONFIG_DIR")
	assert.Empty(t, shellDefines(env)("chpwd"), "~/.claude holds none")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".claude"), 0o755))
	require.NoError(t, os.Rename(dir, filepath.Join(home, ".claude", "shell-snapshots")))
	assert.NotEmpty(t, shellDefines(env)("chpwd"))
}

// Through PreToolUse: with a snapshot that defines chpwd, a cd is refused
// while the loop blocks tools; the same command without it passes.
func TestPreToolUseRefusesACdThatRunsChpwd(t *testing.T) {
	judge, dir := snapshotSession(t, map[string]string{"PATH": "/usr/bin:/bin"})
	assert.False(t, judge("cd sub && ls").Deny)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snapshot-zsh-1-a.sh"), []byte("chpwd () {\n\t. ./.venv/bin/activate\n}\n"), 0o644))
	out := judge("cd sub && ls")
	require.True(t, out.Deny)
	assert.Contains(t, out.Reason, "shell-function")
	assert.Contains(t, out.Reason, "chpwd is a function of your shell")
	assert.False(t, judge("ls sub").Deny)

	// allexport among the shell's options: a plain assignment is an export
	// (review CN7: GROFF_BIN_PATH=$PWD; man jq ran the project's troff).
	assert.False(t, judge("PROJ_ROOT=$PWD; ls").Deny)
	for _, option := range []string{"set -o allexport", "setopt allexport"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "snapshot-zsh-1-a.sh"), []byte("# Shell Options\nset -o braceexpand\n"+option+"\n"), 0o644))
		out := judge("PROJ_ROOT=$PWD; ls")
		assert.True(t, out.Deny, option)
		assert.Contains(t, out.Reason, "env-var", option)
		assert.False(t, judge("proj_root=$PWD; ls").Deny, "a lower-case name is no program's")
	}

	// bash's keyword option: NAME=VALUE after the command is an export
	// (review CN8).
	assert.False(t, judge("ls NODE_OPTIONS=x").Deny)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snapshot-bash-1-a.sh"), []byte("# Shell Options\nset -o hashall\nset -o keyword\n"), 0o644))
	out = judge("ls NODE_OPTIONS=x")
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "set -k")
}

// Claude Code ends a snapshot with export PATH=, printed with printf %q.
func TestSnapshotPath(t *testing.T) {
	for text, want := range map[string]string{
		"alias -- x=y\nexport PATH=/usr/local/bin:/usr/bin:/bin\n":                  "/usr/local/bin:/usr/bin:/bin",
		"export PATH=/opt/my\\ tools/bin:/usr/bin\n":                                "/opt/my tools/bin:/usr/bin",
		"export PATH=/old\nf () {\n    export PATH=/inside\n}\nexport PATH=/last\n": "/last",
		"export PATH=''\n": "",
		// printf %q where the locale is C: bash quotes the whole value,
		// zsh the bytes (review CR2).
		"export PATH=$'/home/jos\\303\\251/bin:node_modules/.bin:/usr/bin'\n":    "/home/jos\303\251/bin:node_modules/.bin:/usr/bin",
		"export PATH=/home/jos$'\\303'$'\\251'/bin:node_modules/.bin:/usr/bin\n": "/home/jos\303\251/bin:node_modules/.bin:/usr/bin",
		"export PATH=$'/a\\tb:.:/usr/bin'\n":                                     "/a\tb:.:/usr/bin",
		"export PATH=/a$'\\t'b:.:/usr/bin\n":                                     "/a\tb:.:/usr/bin",
		"export PATH=$'/a\\n/b\\x41\\'\\\\'\n":                                   "/a\n/bA'\\",
		"export PATH=/a\\ b:/c\\!d:/g\\#h:\\~/bin\n":                             "/a b:/c!d:/g#h:~/bin",
		// Claude Code 2.1.197 quotes it as a whole with '...'.
		"export PATH='/Applications/Visual Studio Code.app/bin:.:/usr/bin'\n": "/Applications/Visual Studio Code.app/bin:.:/usr/bin",
		"export PATH='/it'\"'\"'s:/usr/bin'\n":                                "/it's:/usr/bin",
	} {
		got, ok := snapshotPath(text)
		assert.True(t, ok, text)
		assert.Equal(t, want, got, text)
	}
	for _, text := range []string{"alias -- x=y\n", "export PATH=\"$HOME/a\"\n", "export PATH=/a\\\n", "export PATH=$'/a\\q'\n",
		"export PATH=$'/a\n", "export PATH=/a$(./x)\n", "export PATH='/a\n"} {
		_, ok := snapshotPath(text)
		assert.False(t, ok, text)
	}
}

// The Bash tool's commands run with the PATH the snapshot exports, not the
// hook's own (Claude Code started from an editor may lack what the user's
// startup files add): a program the hook's PATH does not hold is not "not
// installed" when the snapshot's does, and a relative entry in the
// snapshot's PATH counts though the hook's has none.
func TestPreToolUseLooksProgramsUpInTheSnapshotsPath(t *testing.T) {
	judge, dir := snapshotSession(t, map[string]string{"PATH": "/nonexistent/bin"})
	out := judge("ls sub")
	require.True(t, out.Deny, "ls is in no folder of the hook's PATH")
	assert.Contains(t, out.Reason, "not-installed")

	snapshot := filepath.Join(dir, "snapshot-bash-1-a.sh")
	require.NoError(t, os.WriteFile(snapshot, []byte("# Aliases\nexport PATH=/usr/bin:/bin\n"), 0o644))
	assert.False(t, judge("ls sub").Deny, "the snapshot's PATH has ls")

	require.NoError(t, os.WriteFile(snapshot, []byte("export PATH=.:/usr/bin:/bin\n"), 0o644))
	out = judge("ls sub")
	require.True(t, out.Deny, "the snapshot's PATH looks in the folder the command runs in first")
	assert.Contains(t, out.Reason, "relative to the folder a command runs in")
}

// zsh's command runs only programs (review CR1): the policy learns the
// user's shell is zsh from a zsh snapshot, or from $SHELL before there is
// one; zsh's POSIX_BUILTINS lets command run builtins again.
func TestPreToolUseKnowsZshCommandRunsPrograms(t *testing.T) {
	vars := map[string]string{"PATH": "/usr/bin:/bin", "SHELL": "/bin/bash"}
	judge, dir := snapshotSession(t, vars)
	if _, err := os.Stat("/usr/bin/cd"); err == nil {
		t.Skip("a program cd is installed here")
	}
	assert.False(t, judge("command cd sub && ls").Deny, "bash's command runs its builtin cd")
	vars["SHELL"] = "/usr/bin/zsh"
	out := judge("command cd sub && ls")
	require.True(t, out.Deny, "$SHELL is zsh")
	assert.Contains(t, out.Reason, "not-installed")
	assert.Contains(t, out.Reason, "zsh's command runs only a program named cd")
	assert.False(t, judge("cd sub && ls").Deny)

	vars["SHELL"] = "/bin/bash"
	snapshot := filepath.Join(dir, "snapshot-zsh-1-a.sh")
	require.NoError(t, os.WriteFile(snapshot, []byte("# Shell Options\nsetopt login\n"), 0o644))
	assert.True(t, judge("command cd sub && ls").Deny, "a zsh snapshot")
	require.NoError(t, os.WriteFile(snapshot, []byte("# Shell Options\nsetopt login\nsetopt posixbuiltins\n"), 0o644))
	assert.False(t, judge("command cd sub && ls").Deny, "zsh with POSIX_BUILTINS runs the builtin")
	require.NoError(t, os.Rename(snapshot, filepath.Join(dir, "snapshot-bash-1-a.sh")))
	assert.False(t, judge("command cd sub && ls").Deny, "a bash snapshot")
}

// The PATH line as the real shells print it with printf %q where the
// locale is C (a devcontainer's): bash writes $'...' for a folder whose
// name is not ASCII, zsh $'\303' inside the word. The reader once dropped
// such a line and judged with the hook's PATH, which lacked the project's
// node_modules/.bin the Bash tool's shell ran ls from (review CR2). A PATH
// line that cannot be read refuses every program.
func TestPreToolUseReadsTheSnapshotsQuotedPath(t *testing.T) {
	judge, dir := snapshotSession(t, map[string]string{"PATH": "/usr/bin:/bin"})
	snapshot := filepath.Join(dir, "snapshot-bash-1-a.sh")
	const path = "/home/jos\303\251/bin:node_modules/.bin:/usr/bin:/bin"
	var lines []string
	for _, shell := range []string{"bash", "zsh"} {
		if sh, err := exec.LookPath(shell); err == nil {
			cmd := exec.Command(sh, "-c", `builtin printf 'export PATH=%q\n' "$1"`, "_", path)
			cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
			out, err := cmd.Output()
			require.NoError(t, err, shell)
			lines = append(lines, string(out))
		}
	}
	lines = append(lines, "export PATH=$'/home/jos\\303\\251/bin:node_modules/.bin:/usr/bin:/bin'\n")
	for _, line := range lines {
		require.NoError(t, os.WriteFile(snapshot, []byte("# Aliases\n"+line), 0o644))
		out := judge("ls sub")
		require.True(t, out.Deny, line)
		assert.Contains(t, out.Reason, `"node_modules/.bin", relative to the folder a command runs in`, line)
	}
	require.NoError(t, os.WriteFile(snapshot, []byte("export PATH=/usr/bin:/bin\n"), 0o644))
	assert.False(t, judge("ls sub").Deny)
	require.NoError(t, os.WriteFile(snapshot, []byte("export PATH=\"$HOME/bin:/usr/bin\"\n"), 0o644))
	out := judge("ls sub")
	require.True(t, out.Deny, "a PATH line that cannot be read")
	assert.Contains(t, out.Reason, "could not be read")
	assert.False(t, judge("cd sub && echo x").Deny, "builtins need no PATH")
}

// An alias to the program itself runs it with the alias's words; one that
// expands a variable or holds another command runs more than the command
// judged: with git='git $GITFLAGS' in the user's shell,
// GITFLAGS="-c core.fsmonitor=./x"; git status ran the project's x in bash
// and zsh (review CR3). The alias lines are printed by the real shells
// where installed, as Claude Code's snapshot writes them.
func TestSnapshotAliasToItselfWithExpansions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	const startup = `alias git='git $GITFLAGS'
alias rg='rg --hidden; rg_done'
alias ls='ls --color=auto'
alias grep='grep --color=auto --exclude-dir={.bzr,CVS,.git,.hg,.svn,.idea,.tox}'
`
	texts := []string{"alias -- git='git $GITFLAGS'\nalias -- rg='rg --hidden; rg_done'\nalias -- ls='ls --color=auto'\nalias -- grep='grep --color=auto --exclude-dir={.bzr,CVS,.git,.hg,.svn,.idea,.tox}'\n"}
	if bash, err := exec.LookPath("bash"); err == nil {
		out, err := exec.Command(bash, "--norc", "-c", startup+`alias -p | sed -e 's/^alias -- /alias /' -e 's/^alias /alias -- /'`).Output()
		require.NoError(t, err)
		texts = append(texts, string(out))
	}
	if zsh, err := exec.LookPath("zsh"); err == nil {
		out, err := exec.Command(zsh, "-fc", startup+`alias | sed -e 's/^alias //g' -e 's/^/alias -- /'`).Output()
		require.NoError(t, err)
		texts = append(texts, string(out))
	}
	for _, text := range texts {
		names := snapshotNames(text)
		assert.Contains(t, names["git"], "$GITFLAGS", text)
		assert.Contains(t, names["rg"], "rg_done", text)
		assert.NotContains(t, names, "ls", text)
		assert.NotContains(t, names, "grep", text)
		cfg := policy.Config{ShellDefines: func(name string) string { return names[name] }}
		assert.Equal(t, "shell-function", policy.Bash(`GITFLAGS="-c core.fsmonitor=./x"; git status --short`, cfg).Rule, text)
		assert.True(t, policy.Bash("ls sub && grep -rn x .", cfg).Allow, text)
	}
}

// snapshotSession starts a loop that blocks tools and returns a judge of
// its session's Bash commands, the hook's environment read from vars (a
// test may change them between calls), and the folder of Claude Code's
// shell snapshots, empty until the test writes one.
func snapshotSession(t *testing.T, vars map[string]string) (judge func(command string) ToolOutcome, snapshots string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	env, p := blockingLoop(t)
	config := t.TempDir()
	snapshots = filepath.Join(config, "shell-snapshots")
	require.NoError(t, os.MkdirAll(snapshots, 0o755))
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return vars[k]
	}
	return func(command string) ToolOutcome {
		t.Helper()
		in, err := json.Marshal(map[string]string{"command": command})
		require.NoError(t, err)
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: in})
	}, snapshots
}
