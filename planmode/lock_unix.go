//go:build !windows

package planmode

import (
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/plansmith/plansmith/state"
)

// lockRuns takes the plan index's lock (.lock in its folder) for one read,
// change and write of a session's observed runs, and returns its release.
// A session's hooks run side by side (two sub-agents' SubagentStop, an
// Agent call's PostToolUse beside another's): without the lock one's write
// replaced the other's, and a run it recorded was lost (review DD7). When
// the lock file cannot be had (a link there, a folder that cannot be
// made), or the lock is not free within a second, the write goes ahead as
// before there was one.
func lockRuns(home string) func() {
	path := filepath.Join(home, PlanIndexDir, ".lock")
	if state.CheckOwned(path) != nil || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return func() {}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return func() {}
	}
	for deadline := time.Now().Add(time.Second); ; {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR || time.Now().After(deadline) {
			f.Close()
			return func() {}
		}
		time.Sleep(2 * time.Millisecond)
	}
}
