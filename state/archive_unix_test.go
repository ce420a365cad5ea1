//go:build !windows

package state

import (
	"os"
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
