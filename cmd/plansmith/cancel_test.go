package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/state"
)

// readOnlyProject makes the project dir unwritable and returns the reason
// writes then fail with: as root, whom file modes do not stop, by mounting
// it on itself read-only (skipped, saying so, where that is not allowed);
// otherwise by taking write permission off its .claude folders.
func readOnlyProject(t *testing.T, dir string) string {
	t.Helper()
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
			t.Skipf("cannot bind-mount the project: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", dir).Run() })
		if out, err := exec.Command("mount", "-o", "remount,ro,bind", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot make the mount read-only: %v %s", err, out)
		}
		return "read-only file system"
	}
	p := state.Paths{Project: dir}
	for _, d := range []string{filepath.Dir(p.State()), p.Work()} {
		require.NoError(t, os.Chmod(d, 0o555))
		t.Cleanup(func() { os.Chmod(d, 0o755) })
	}
	return "permission denied"
}

// plansmith cancel on a read-only project says, in plain words, that the
// loop is still active and where, why it could not be ended, and what to
// do, and exits 1: not Go's chain of paths with a temporary file's name,
// silent about the loop (review BT3).
func TestCancelOnAReadOnlyProject(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Now: time.Now,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
		Getwd: func() (string, error) { return dir, nil }}
	require.Equal(t, 0, run([]string{"plan", "Add rate limiting"}, env), stderr.String())
	why := readOnlyProject(t, dir)
	stdout.Reset()
	stderr.Reset()

	assert.Equal(t, 1, run([]string{"cancel"}, env))
	assert.Empty(t, stdout.String())
	assert.Equal(t, "plansmith: the planning loop is still active at understand [1/8]: it could not be ended ("+why+"), so the project stays read-only. "+
		"Make the project's .claude folder writable, then run `plansmith cancel` again; or delete .claude/plansmith.local.md to end the loop by hand.\n", stderr.String())
	assert.NotContains(t, stderr.String(), ".tmp-")
	f, err := state.Load(state.Paths{Project: dir}.State())
	require.NoError(t, err)
	assert.True(t, f.Loop.Active, "the loop runs on")
}
