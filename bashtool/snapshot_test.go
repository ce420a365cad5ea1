package bashtool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
// they define reaches the policy.
func TestShellDefinesReadsTheSnapshots(t *testing.T) {
	home := t.TempDir()
	config := t.TempDir()
	dir := filepath.Join(config, "shell-snapshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snapshot-zsh-1-a.sh"), []byte("# Functions\nchpwd () {\n\tls\n}\n# Aliases\nalias -- cat=bat\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.sh"), []byte("alias -- ls=eza\n"), 0o644))
	vars := map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": config}
	getenv := func(k string) string { return vars[k] }
	defs := func(name string) string { return Read(getenv).Defines(name, "") }
	assert.Contains(t, defs("chpwd"), "function")
	assert.Contains(t, defs("cat"), "bat")
	assert.Empty(t, defs("ls"), "only snapshot-*.sh files are Claude Code's")
	cfg := policy.Config{ShellDefines: defs}
	assert.Equal(t, "shell-function", policy.Bash("cd sub && ls", cfg).Rule)
	assert.Equal(t, "shell-function", policy.Bash("cat go.mod", cfg).Rule)
	assert.True(t, policy.Bash("ls sub", cfg).Allow)

	delete(vars, "CLAUDE_CONFIG_DIR")
	assert.Empty(t, Read(getenv).Defines("chpwd", ""), "~/.claude holds none")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".claude"), 0o755))
	require.NoError(t, os.Rename(dir, filepath.Join(home, ".claude", "shell-snapshots")))
	assert.NotEmpty(t, Read(getenv).Defines("chpwd", ""))
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

// Every PreToolUse of the Bash tool reads all the snapshots: what it reads
// is bounded, one and all together, and past the bound every program is
// refused, never judged with a PATH read in part (review CV1: 50 snapshots
// of 300 KiB took 1.3 s a command; one past 16 MiB whose export PATH=.:…
// came after the limit let ls run from the project; a PATH of 1,500,000
// folders held a command 7 s: CV3).
func TestSnapshotsBounded(t *testing.T) {
	pad := strings.Repeat("# "+strings.Repeat("x", 98)+"\n", (snapshotLimit/100)/2+1) // over half the limit
	for what, files := range map[string]map[string]string{
		"one snapshot past the limit": {"snapshot-bash-1-a.sh": pad + pad + "export PATH=.\\:/usr/bin\\:/bin\n"},
		"two past it together": {"snapshot-bash-1-a.sh": pad + "export PATH=/usr/bin\\:/bin\n",
			"snapshot-bash-2-b.sh": pad + "export PATH=.\\:/usr/bin\\:/bin\n"},
		"too many folders": {"snapshot-bash-1-a.sh": "export PATH=" + strings.Repeat("/usr/bin\\:", pathEntries) + "/bin\n"},
		"too many": func() map[string]string {
			m := map[string]string{}
			for i := 0; i <= snapshotsCount; i++ {
				m[fmt.Sprintf("snapshot-bash-%d-a.sh", i)] = "export PATH=/usr/bin\\:/bin\n"
			}
			return m
		}(),
	} {
		config := t.TempDir()
		dir := filepath.Join(config, "shell-snapshots")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, text := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
		}
		getenv := func(k string) string { return map[string]string{"CLAUDE_CONFIG_DIR": config}[k] }
		why := Read(getenv).Lookup("/usr/bin:/bin", t.TempDir(), "", "")("ls")
		assert.Contains(t, why, "remove the old ones", what)
	}
	// Under the bounds the snapshots are read as before.
	config := t.TempDir()
	dir := filepath.Join(config, "shell-snapshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i := 0; i < snapshotsCount; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("snapshot-bash-%d-a.sh", i)), []byte("export PATH=/usr/bin\\:/bin\n"), 0o644))
	}
	getenv := func(k string) string { return map[string]string{"CLAUDE_CONFIG_DIR": config}[k] }
	assert.Empty(t, Read(getenv).Lookup("/usr/bin:/bin", t.TempDir(), "", "")("ls"))
}

// snapshotNames reads one snapshot's functions and aliases, as snapshotsIn
// does.
func snapshotNames(text string) map[string]string {
	return scanSnapshot(text).names(text)
}

// snapshotPath is the PATH the snapshot text exports last, as snapshotsIn
// reads it.
func snapshotPath(text string) (string, bool) {
	return scanSnapshot(text).path()
}
