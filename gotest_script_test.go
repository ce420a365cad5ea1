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
	dir := t.TempDir()
	report := filepath.Join(dir, "report")
	fakeGo := filepath.Join(dir, "go")
	// It writes a file into its TMPDIR (as tests do) and exits 3.
	require.NoError(t, os.WriteFile(fakeGo, []byte(`#!/bin/sh
printf '%s\n%s\n%s\n%s\n%s\n' "$TMPDIR" "$GORACE" "$PLANSMITH_E2E" "$*" "$(ls -ld "$TMPDIR" | cut -c1-10)" > "$REPORT"
: > "$TMPDIR/left-by-a-test"
exit 3
`), 0o755))
	run := func(env ...string) []string {
		t.Helper()
		cmd := exec.Command("sh", ".ci/go-test", fakeGo, "-parallel", "6", "./...")
		cmd.Env = append(os.Environ(), append([]string{"REPORT=" + report}, env...)...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s", out)
		assert.Equal(t, 3, exit.ExitCode(), "go test's exit status is the script's: %s", out)
		b, err := os.ReadFile(report)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		require.Len(t, lines, 5)
		assert.Equal(t, "atexit_sleep_ms=0", lines[1])
		assert.Equal(t, "1", lines[2])
		assert.Equal(t, "test -race -parallel 6 ./...", lines[3])
		return lines
	}

	t.Run("a folder named by TEST_TMPDIR is used and kept", func(t *testing.T) {
		mine := t.TempDir()
		lines := run("TEST_TMPDIR=" + mine)
		assert.Equal(t, mine, lines[0])
		assert.FileExists(t, filepath.Join(mine, "left-by-a-test"))
	})

	t.Run("a folder of its own in /dev/shm is removed at the end", func(t *testing.T) {
		probe, err := os.MkdirTemp("/dev/shm", "probe")
		if err != nil {
			t.Skip("no /dev/shm here: the default temp folder is used")
		}
		require.NoError(t, os.RemoveAll(probe))
		lines := run("TEST_TMPDIR=")
		if !strings.HasPrefix(lines[0], "/dev/shm/plansmith-test.") {
			t.Skipf("/dev/shm is not used here (TMPDIR %q): too small or noexec", lines[0])
		}
		assert.Equal(t, "drwxrwxrwt", lines[4], "open to every user and sticky, as /tmp is")
		assert.NoDirExists(t, lines[0], "removed with what the tests left in it")
	})
}
