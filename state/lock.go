package state

import (
	"fmt"
	"os"
	"time"
)

// LockWait is how long Lock waits for another process to release the
// project's lock before giving up with a *LockTimeoutError: well inside the
// 60 s Claude Code gives a hook, so a hook whose lock is held by a stuck
// process still answers, and says why, instead of being cut off.
var LockWait = 15 * time.Second

// LockTimeoutError reports a lock another process held for all of Wait.
type LockTimeoutError struct {
	Path string
	Wait time.Duration
}

func (e *LockTimeoutError) Error() string {
	return fmt.Sprintf("another plansmith process has held the project's lock %s for %s", e.Path, e.Wait)
}

// Lock takes an exclusive advisory lock on the project's lock file and
// returns the function that releases it. Every read-modify-write of the
// state file happens under it, so a hook and `plansmith cancel` never
// interleave: a hook that loaded the loop before cancel cannot write it back.
//
// A free lock is taken at once. A held one is waited for, up to LockWait;
// a wait given up leaves a goroutine that releases the lock as soon as it
// gets it, so a long-lived caller never keeps a lock nobody holds.
func Lock(p Paths) (unlock func(), err error) {
	// A lock taken on a file that was renamed away meanwhile (openLock
	// moves aside what a repository plants at the lock's name) excludes no
	// one: take it again on the file the name holds now.
	for range 3 {
		f, release, err := lockOnce(p)
		if err != nil {
			return nil, err
		}
		if sameFile(f, p.Lock()) {
			return release, nil
		}
		release()
	}
	return nil, fmt.Errorf("locking %s: the lock file was replaced while it was taken, three times", p.Lock())
}

// lockOnce takes the lock on the file openLock opens, as Lock describes.
func lockOnce(p Paths) (*os.File, func(), error) {
	f, err := openLock(p)
	if err != nil {
		return nil, nil, err
	}
	release := func() {
		unlockFile(f)
		f.Close()
	}
	got, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("locking %s: %w", p.Lock(), err)
	}
	if got {
		return f, release, nil
	}
	done := make(chan error, 1)
	go func() { done <- waitLock(f) }()
	timer := time.NewTimer(LockWait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("locking %s: %w", p.Lock(), err)
		}
		return f, release, nil
	case <-timer.C:
		go func() {
			if err := <-done; err == nil {
				unlockFile(f)
			}
			f.Close()
		}()
		return nil, nil, &LockTimeoutError{Path: p.Lock(), Wait: LockWait}
	}
}
