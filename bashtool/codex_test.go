package bashtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/hooks/policy"
)

// Codex's snapshots of the user's shell, in its own folder, as Codex 0.169.0
// writes them (review FA1): bash's functions as declare -f prints them, its
// aliases as alias -p, PATH as declare -x; zsh's as functions, setopt lines,
// alias -L and a tied PATH array. The sections are made by the real shells
// where they are installed. ReadCodex reads these and never Claude Code's,
// which Codex does not run its commands with.
func TestReadCodexReadsCodexsSnapshots(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	codexHome, home := t.TempDir(), t.TempDir()
	folder := filepath.Join(codexHome, "shell_snapshots")
	require.NoError(t, os.MkdirAll(folder, 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(folder, name), []byte(text), 0o644))
	}
	shells := 0
	if bash, err := exec.LookPath("bash"); err == nil {
		shells++
		out, err := exec.Command(bash, "-c", `cat() { command cat "$@"; }
alias ls='echo x; ls'
export PATH="tools:/usr/bin"
echo '# Snapshot file'
echo 'unalias -a 2>/dev/null || true'
shopt -p
echo '# Functions'
declare -f
echo '# aliases 1'
alias -p
echo '# exports (native declarations)'
declare -xp PATH`).Output()
		require.NoError(t, err)
		write("0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.1795783697444429113.sh", string(out))
	}
	if zsh, err := exec.LookPath("zsh"); err == nil {
		shells++
		out, err := exec.Command(zsh, "-fc", `head() { command head "$@"; }
alias tree='eza --tree'
path=(/opt/bin '/x y' /usr/bin); export PATH
print '# Snapshot file'
print '# Functions'
functions
print '# setopts 1'
print 'setopt nohashdirs'
print '# aliases 1'
alias -L
print '# exports (native declarations)'
typeset -xp PATH`).Output()
		require.NoError(t, err)
		write("0199ffff-bbbb-7ccc-8ddd-eeeeeeeeeeee.1795783697444429114.sh", string(out))
	}
	if shells == 0 {
		t.Skip("neither bash nor zsh is installed")
	}
	// What Codex writes before it has checked a snapshot is none yet.
	write("0199aaaa-bbbb-7ccc-8ddd-000000000000.tmp-4242", "evil () {\n\t:\n}\n")
	// Claude Code's, which Codex never reads.
	claude := filepath.Join(home, ".claude", "shell-snapshots")
	require.NoError(t, os.MkdirAll(claude, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(claude, "snapshot-bash-1.sh"), []byte("grep () \n{ \n    :\n}\nexport PATH=/claude/bin\n"), 0o644))

	getenv := func(name string) string {
		return map[string]string{"CODEX_HOME": codexHome, "HOME": home}[name]
	}
	s := ReadCodex(getenv)
	if _, err := exec.LookPath("bash"); err == nil {
		assert.Contains(t, s.Defines("cat", ""), "cat is a function of your shell")
		assert.Contains(t, s.Defines("ls", ""), "ls is an alias of your shell")
		assert.Contains(t, s.paths, "tools:/usr/bin")
		// The relative folder the commands' PATH holds refuses a program,
		// which the hook's own PATH would have let run.
		assert.Contains(t, s.Lookup("/usr/bin:/bin", t.TempDir(), "", "")("cat"), `PATH holds "tools"`)
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		assert.Contains(t, s.Defines("head", ""), "head is a function of your shell")
		assert.Contains(t, s.Defines("tree", ""), "tree is an alias of your shell")
		assert.Contains(t, s.paths, "/opt/bin:/x y:/usr/bin")
		// zsh's command runs programs only (review CR1), told by the
		// snapshot's setopt lines, whatever $SHELL says.
		assert.NotEmpty(t, s.Defines(policy.CommandSkipsBuiltins, "/bin/bash"))
	}
	assert.Empty(t, s.Defines("evil", ""), "a snapshot Codex has not finished")
	assert.Empty(t, s.Defines("grep", ""), "Claude Code's snapshot")
	assert.NotContains(t, s.paths, "/claude/bin")

	// Without $CODEX_HOME, Codex's home is ~/.codex.
	require.NoError(t, os.Rename(codexHome, filepath.Join(home, ".codex")))
	s = ReadCodex(func(name string) string { return map[string]string{"HOME": home}[name] })
	assert.NotEmpty(t, s.paths)
	assert.Empty(t, s.Defines("grep", ""))
}

// Past the bounds, Codex's snapshots are said to be Codex's.
func TestCodexSnapshotsBoundedSayWhose(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.1.sh"), []byte("export -T PATH path=( /usr/bin 'unclosed )\n"), 0o644))
	s := snapshotsIn(codexSnapshots(dir))
	why := s.Lookup("/usr/bin", t.TempDir(), "", "")("cat")
	assert.Contains(t, why, "Codex's snapshot a.1.sh")
	assert.NotContains(t, why, "Claude Code")
}

// FuzzSnapshotPath: reading a snapshot's PATH, in any of the forms the two
// clients write, never panics, and a tied array read is its words joined
// with ":" (review FA1 added the Codex forms).
func FuzzSnapshotPath(f *testing.F) {
	for _, seed := range []string{
		"export PATH=/usr/bin:/bin\n",
		"export PATH='/Applications/Visual Studio Code.app/bin':/usr/bin\n",
		"export PATH=/home/jos$'\\303'$'\\251'/bin\n",
		"declare -x PATH=\"/opt/fa-bin:/usr/bin\"\n",
		"export -T PATH path=( /opt/a '/x y' /usr/bin )\n",
		"export -T PATH path=( /a\\ b $'c\\'d' \"e f\" )\n",
		"export -T PATH path=( 'unclosed )\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		path, ok := snapshotPath(text)
		if ok && !exportPath.MatchString(text) && !tiedPath.MatchString(text) {
			t.Fatalf("a PATH %q read from text with none: %q", path, text)
		}
		for _, w := range splitWords(text) {
			if w == "" || w[0] == ' ' || w[0] == '\t' {
				t.Fatalf("word %q of %q", w, text)
			}
		}
	})
}

// Codex names no shell in a snapshot's name: zsh is told by a line that
// starts "setopt " (or a tied PATH), and its posix_builtins option, which
// makes command run builtins again, is read as in Claude Code's zsh
// snapshots; a word that only starts with setopt tells nothing, and a PATH
// line ended by CR is read without it (review FG: mutants no other test
// told apart).
func TestCodexSnapshotTellsZshByItsLines(t *testing.T) {
	for text, want := range map[string]bool{
		"setopt nohashdirs\nexport PATH=/usr/bin\n":                        true,
		"setopt nohashdirs\nsetopt posixbuiltins\nexport PATH=/usr/bin\n":  false,
		"setopt nohashdirs\nSETOPT POSIX_BUILTINS\nexport PATH=/usr/bin\n": false,
		"setoptions=1\nexport PATH=/usr/bin\n":                             false,
		"export -T PATH path=( /usr/bin )\n":                               true,
		"declare -x PATH=\"/usr/bin\"\n":                                   false,
		"setopt nohashdirs\r\nexport PATH=/usr/bin:/bin\r\n":               true,
	} {
		codexHome := t.TempDir()
		folder := filepath.Join(codexHome, "shell_snapshots")
		require.NoError(t, os.MkdirAll(folder, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(folder, "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.1.sh"), []byte(text), 0o644))
		s := ReadCodex(func(name string) string { return map[string]string{"CODEX_HOME": codexHome}[name] })
		assert.Equal(t, want, s.Defines(policy.CommandSkipsBuiltins, "") != "", "%q", text)
	}
	got, ok := snapshotPath("export PATH=/usr/bin:/bin\r\n")
	assert.True(t, ok)
	assert.Equal(t, "/usr/bin:/bin", got, "a CR at the line's end is not PATH's")
}

// Which files in Codex's folder are its snapshots, and which snapshots are
// of zsh, each told apart on its own (review FH: every mutant that dropped
// one of these tests lived, as the snapshots above have both signs of zsh
// and no other file).
func TestCodexSnapshotsToldApart(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("a.1.sh.tmp-4242", "one () \n{\n\t:\n}\n")
	write("a.2.tmp-4242.sh", "two () \n{\n\t:\n}\n")
	write("a.3.ps1", "three () \n{\n\t:\n}\n")
	write("notes.txt", "four () \n{\n\t:\n}\n")
	write("a.4.sh", "five () \n{\n\t:\n}\n")
	s := snapshotsIn(codexSnapshots(dir))
	for _, name := range []string{"one", "two", "three", "four"} {
		assert.Empty(t, s.Defines(name, ""), "%s: no snapshot of Codex's", name)
	}
	assert.NotEmpty(t, s.Defines("five", ""))
	assert.Empty(t, s.Defines(policy.CommandSkipsBuiltins, "/bin/bash"), "no sign of zsh")

	for what, text := range map[string]string{
		"its setopt lines alone": "# setopts 1\nsetopt nohashdirs\n",
		"its tied PATH alone":    "export -T PATH path=( /usr/bin /bin )\n",
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "z.1.sh"), []byte("# Snapshot file\n"+text), 0o644))
		s := snapshotsIn(codexSnapshots(dir))
		assert.NotEmpty(t, s.Defines(policy.CommandSkipsBuiltins, "/bin/bash"), "a snapshot of zsh, told by %s", what)
	}
}

// A relative CODEX_HOME (or CLAUDE_CONFIG_DIR) is taken by the client from
// the folder it started in, which the hook cannot know: the snapshots, and
// the PATH the commands run with, cannot be found, and every program is
// refused with the reason (review FH: it was passed over, and the hook's
// own PATH judged the commands).
func TestARelativeClientFolderLeavesThePATHUnknown(t *testing.T) {
	for _, c := range []struct {
		variable string
		read     func(func(string) string) Shell
	}{{"CODEX_HOME", ReadCodex}, {"CLAUDE_CONFIG_DIR", Read}} {
		home := t.TempDir()
		s := c.read(func(name string) string {
			return map[string]string{c.variable: "cfg", "HOME": home}[name]
		})
		why := s.Lookup("/usr/bin:/bin", t.TempDir(), "", "/bin/bash")("ls")
		assert.Contains(t, why, c.variable+` is the relative path "cfg"`, c.variable)
		assert.Contains(t, why, "set "+c.variable+" to an absolute path")
		// The refusal's rule and advice fit a PATH nobody knows: not one
		// shown to search the project, whose fix is another PATH (review
		// FI4).
		d := policy.Bash("ls", policy.Config{PathLookup: s.Lookup("/usr/bin:/bin", t.TempDir(), "", "/bin/bash")})
		assert.Equal(t, "path-lookup", d.Rule)
		assert.Contains(t, d.Reason, "snapshots of your shell, which could not be read", c.variable)
		assert.Contains(t, d.Reason, "once the user fixes what the Refused line names", c.variable)
		assert.NotContains(t, d.Reason, "(a relative entry, or a folder inside the project)", c.variable)
		assert.NotContains(t, d.Reason, "starts Claude Code with a PATH", c.variable)

		abs := c.read(func(name string) string {
			return map[string]string{c.variable: filepath.Join(home, "cfg"), "HOME": home}[name]
		})
		assert.Empty(t, abs.Lookup("/usr/bin:/bin", t.TempDir(), "", "/bin/bash")("ls"), "%s absolute, no snapshots: the hook's PATH", c.variable)
	}
}
