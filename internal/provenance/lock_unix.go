//go:build !windows

package provenance

import (
	"os"
	"syscall"
	"time"
)

// lockRecord takes the record's lock (a file beside it), shared for an
// append or exclusive for a trim, and returns its release. A trim does not
// wait: it returns nil when appends hold the lock, and the next append
// trims instead. When the lock file cannot be opened, both go ahead
// unlocked. An append waits up to a second, then goes ahead without
// the lock (its write is one append, which a trim may lose, as before
// there was a lock) rather than hold up a hook.
func lockRecord(path string, exclusive bool) func() {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|noFollowNonBlock, 0o600)
	if err != nil {
		// No lock to be had at all (something else at its path): go ahead
		// as before there was one, a trim included, rather than let the
		// record outgrow what is read of it (review AJ7).
		return func() {}
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for deadline := time.Now().Add(time.Second); ; {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }
		}
		if exclusive || err != syscall.EWOULDBLOCK && err != syscall.EINTR || time.Now().After(deadline) {
			f.Close()
			if exclusive {
				return nil
			}
			return func() {}
		}
		time.Sleep(5 * time.Millisecond)
	}
}
