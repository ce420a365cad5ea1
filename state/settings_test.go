package state

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A repository can carry .claude/plansmith.yaml as a link to /dev/zero or
// as a FIFO: every hook that reads the settings (the plan-mode gate on
// ExitPlanMode, PostToolUse, the Stop that ends a loop) would hang or fill
// its memory until its timeout let the call through. Each is an error at
// once instead.
func TestReadSettingsRefusesWhatIsNotASmallFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links to devices and FIFOs")
	}
	dir := t.TempDir()
	var doc struct {
		Gate string `yaml:"plan_mode_gate"`
	}
	zero := filepath.Join(dir, "zero.yaml")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, []byte("plan_mode_gate: on\n"+strings.Repeat("# x\n", 20000)), 0o644))
	for _, path := range []string{zero, fifo, big} {
		done := make(chan error, 1)
		go func() {
			found, err := ReadSettings(path, &doc)
			assert.False(t, found && err == nil, path)
			done <- err
		}()
		select {
		case err := <-done:
			require.Error(t, err, path)
			assert.Contains(t, err.Error(), path)
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadSettings(%s) did not return", path)
		}
	}
	ok := filepath.Join(dir, "ok.yaml")
	require.NoError(t, os.WriteFile(ok, []byte("plan_mode_gate: off\n"), 0o644))
	found, err := ReadSettings(ok, &doc)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "off", doc.Gate)
	found, err = ReadSettings(filepath.Join(dir, "missing.yaml"), &doc)
	assert.NoError(t, err)
	assert.False(t, found)
}
