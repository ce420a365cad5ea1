//go:build !windows

package state

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a full disk neither the archive nor the state file marked inactive can
// be written; the state file itself moves into the archive (a rename needs
// no room), so the loop does not stay active (review P8). RLIMIT_FSIZE
// stands in for the full disk: writes past it fail, renames do not.
func TestArchiveOnAFullDiskMovesTheFile(t *testing.T) {
	p := Paths{Project: t.TempDir()}
	require.NoError(t, Save(p.State(), &File{Loop: sampleLoop()}))
	require.NoError(t, os.MkdirAll(p.Archive(), 0o755))
	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old))
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64, Max: old.Max}))
	dst, err := Archive(p, &File{Loop: sampleLoop()}, ExitCompleted, time.Now())
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old))
	require.NoError(t, err)
	assert.NoFileExists(t, p.State(), "no active loop is left behind")
	got, err := Load(dst)
	require.NoError(t, err, "the archive holds the loop as last saved")
	assert.Equal(t, sampleLoop().Request, got.Loop.Request)
}

// An archive folder plansmith cannot search (made by sudo with umask 077,
// say) fails the archive at once with the cause, instead of trying names
// forever (review BG6: 45 s per save). Root searches any folder, so as
// root the test runs itself again as nobody.
func TestAnUnsearchableArchiveFailsAtOnce(t *testing.T) {
	dir := os.Getenv("PLANSMITH_TEST_UNSEARCHABLE")
	if dir == "" {
		// t.TempDir's parent is root's alone: nobody needs to reach it.
		var err error
		dir, err = os.MkdirTemp("", "plansmith-unsearchable-")
		require.NoError(t, err)
		t.Cleanup(func() { os.Chmod(filepath.Join(dir, ".claude", "plansmith", "archive"), 0o755); os.RemoveAll(dir) })
		require.NoError(t, os.Chmod(dir, 0o777))
		p := Paths{Project: dir}
		require.NoError(t, os.MkdirAll(p.Archive(), 0o777))
		require.NoError(t, os.Chmod(p.Work(), 0o777))
		require.NoError(t, os.Chmod(filepath.Dir(p.Work()), 0o777))
		require.NoError(t, os.Chmod(p.Archive(), 0o666)) // readable, not searchable
		if os.Geteuid() == 0 {
			// The test binary's own folder is root's alone: a copy runs.
			bin := filepath.Join(dir, "state.test")
			data, err := os.ReadFile(os.Args[0])
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(bin, data, 0o755))
			cmd := exec.Command(bin, "-test.run=^TestAnUnsearchableArchiveFailsAtOnce$", "-test.v")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PLANSMITH_TEST_UNSEARCHABLE="+dir, "GORACE=atexit_sleep_ms=0")
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), "--- PASS", "%s", out)
			return
		}
	}
	p := Paths{Project: dir}
	done := make(chan error, 1)
	go func() { _, err := archiveName(p, ExitCancelled, time.Now()); done <- err }()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "permission denied")
	case <-time.After(5 * time.Second):
		t.Fatal("archiveName still searching after 5 s")
	}
}

// A save that fails on a full disk puts the earlier saved plan back: it
// had been moved into the archive first (review BG2: plans show then said
// no plan was saved, and the message that nothing was archived).
func TestAFailedSaveKeepsTheEarlierPlan(t *testing.T) {
	p := Paths{Project: t.TempDir()}
	now := time.Now()
	_, err := SaveOutput(p, PlanMeta{Request: "first"}, "# First plan\n", now)
	require.NoError(t, err)
	before, err := os.ReadFile(p.Output())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(p.Archive(), 0o755))

	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old))
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64, Max: old.Max}))
	previous, err := SaveOutput(p, PlanMeta{Request: "second"}, "# Second plan\n"+strings.Repeat("x", 4096), now)
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old))
	require.Error(t, err)
	assert.Empty(t, previous, "nothing is left archived")
	after, rerr := os.ReadFile(p.Output())
	require.NoError(t, rerr)
	assert.Equal(t, string(before), string(after), "the earlier plan is where it was")
	entries, rerr := os.ReadDir(p.Archive())
	require.NoError(t, rerr)
	assert.Empty(t, entries)
}
