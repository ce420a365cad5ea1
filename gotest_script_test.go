package plansmith

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoTestScript runs .ci/go-test (make go-test) with a stand-in for the
// go command that reports what it was given.
func TestGoTestScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}

	t.Run("a folder named by TEST_TMPDIR is used and kept", func(t *testing.T) {
		dir, mine := t.TempDir(), t.TempDir()
		lines := runGoTest(t, fakeGo(t, dir), exec.Command("sh", ".ci/go-test"), "TEST_TMPDIR="+mine)
		assert.Equal(t, mine, lines[0])
		assert.FileExists(t, filepath.Join(mine, "left-by-a-test"))
	})

	t.Run("a folder of its own in /dev/shm is removed at the end", func(t *testing.T) {
		probe, err := os.MkdirTemp("/dev/shm", "probe")
		if err != nil {
			t.Skip("no /dev/shm here: the default temp folder is used")
		}
		require.NoError(t, os.RemoveAll(probe))
		lines := runGoTest(t, fakeGo(t, t.TempDir()), exec.Command("sh", ".ci/go-test"), "TEST_TMPDIR=")
		if !strings.HasPrefix(lines[0], "/dev/shm/plansmith-test.") {
			t.Skipf("/dev/shm is not used here (TMPDIR %q): too small or noexec", lines[0])
		}
		assert.Equal(t, "drwxrwxrwt", lines[4], "open to every user and sticky, as /tmp is")
		assert.NoDirExists(t, lines[0], "removed with what the tests left in it")
	})

	// A /dev/shm of each kind, mounted in a mount namespace of the script's
	// own; the files the script sees live outside /dev/shm, which the
	// mount hides.
	t.Run("a /dev/shm too small or mounted noexec is left alone", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("mounts a tmpfs in a mount namespace of its own: needs root")
		}
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("no unshare")
		}
		outside, err := os.MkdirTemp("/var/tmp", "go-test-script")
		if err != nil {
			t.Skip("no /var/tmp")
		}
		t.Cleanup(func() { _ = os.RemoveAll(outside) })
		goCmd := fakeGo(t, outside)
		for _, c := range []struct{ options, want string }{
			{"size=100m", outside},
			{"size=1g,noexec", outside},
			{"size=1g", "/dev/shm/plansmith-test."}, // the control: such a /dev/shm is used
		} {
			sh := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
				"mount -t tmpfs -o "+c.options+" tmpfs /dev/shm && exec sh .ci/go-test \"$0\" \"$@\"")
			lines := runGoTest(t, goCmd, sh, "TEST_TMPDIR=", "TMPDIR="+outside)
			assert.True(t, strings.HasPrefix(lines[0], c.want), "/dev/shm mounted %s: TMPDIR %q", c.options, lines[0])
		}
	})
}

// fakeGo writes, in dir, a stand-in for the go command: it reports its
// TMPDIR, GORACE, PLANSMITH_E2E, arguments and TMPDIR's mode (ls -ld) in
// dir/report, leaves a file in TMPDIR as a test would, and exits 3.
func fakeGo(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "go")
	require.NoError(t, os.WriteFile(path, []byte(`#!/bin/sh
printf '%s\n%s\n%s\n%s\n%s\n' "$TMPDIR" "$GORACE" "$PLANSMITH_E2E" "$*" "$(ls -ld "$TMPDIR" | cut -c1-10)" > "${0%/*}/report"
: > "$TMPDIR/left-by-a-test"
exit 3
`), 0o755))
	return path
}

// runGoTest runs cmd (the script, possibly wrapped) with the stand-in go
// and go test's usual arguments, checks what every run must do, and
// returns the stand-in's report.
func runGoTest(t *testing.T, goCmd string, cmd *exec.Cmd, env ...string) []string {
	t.Helper()
	report := filepath.Join(filepath.Dir(goCmd), "report")
	require.NoError(t, os.RemoveAll(report))
	cmd.Args = append(cmd.Args, goCmd, "-parallel", "6", "./...")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, 3, exit.ExitCode(), "go test's exit status is the script's: %s", out)
	b, err := os.ReadFile(report)
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 5)
	assert.Equal(t, "atexit_sleep_ms=0", lines[1])
	assert.Equal(t, "1", lines[2])
	assert.Equal(t, "test -race -parallel 6 ./...", lines[3])
	return lines
}
