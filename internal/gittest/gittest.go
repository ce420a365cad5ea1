// Package gittest makes git repositories for tests: with real git where
// it is installed (tests that need it skip where it is not), or laid out by
// hand as git init would.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Init makes dir a checkout with git init when git is installed, else
// lays the files out by hand; either way with git init's config.
func Init(t testing.TB, dir string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if git, err := exec.LookPath("git"); err == nil {
		out, err := exec.Command(git, "init", "-q", dir).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return
	}
	dotgit := filepath.Join(dir, ".git")
	for _, d := range []string{"objects", "refs", "hooks"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dotgit, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dotgit, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dotgit, "config"),
		[]byte("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"), 0o644))
}

// WithConfig makes a checkout whose .git/config is config, and
// returns its folder and its .git.
func WithConfig(t testing.TB, config string) (dir, dotgit string) {
	t.Helper()
	dir = t.TempDir()
	Init(t, dir)
	dotgit = filepath.Join(dir, ".git")
	require.NoError(t, os.WriteFile(filepath.Join(dotgit, "config"), []byte(config), 0o644))
	return dir, dotgit
}

func Append(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// In returns a runner of real git in a folder, as a user named a, with
// env added to the environment and each of config given as -c; it returns
// git's output trimmed and fails the test when git does. A test that needs
// git is skipped where there is none.
func In(t testing.TB, env []string, config ...string) func(dir string, args ...string) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("needs git")
	}
	pre := []string{"-c", "user.email=a@b", "-c", "user.name=a"}
	for _, c := range config {
		pre = append(pre, "-c", c)
	}
	return func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append(append([]string(nil), pre...), args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
}

// WithNested makes a repository with another inside it, at sub/,
// which has one commit: what a submodule is made from.
func WithNested(t testing.TB, run func(dir string, args ...string) string) (dir, sub string) {
	t.Helper()
	dir = t.TempDir()
	run(dir, "init", "-q", ".")
	sub = filepath.Join(dir, "sub")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	run(sub, "init", "-q", ".")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "s"), []byte("s\n"), 0o644))
	run(sub, "add", "s")
	run(sub, "commit", "-qm", "s")
	return dir, sub
}

// Need skips a test that proves with real git where there is none.
func Need(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
}

// Run runs git in dir with neither the user's nor the system's config.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}
