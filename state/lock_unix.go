//go:build !windows

package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// openLock opens (creating) the project's lock file. O_NOFOLLOW: a planted
// lock link must not create a file where it points.
func openLock(p Paths) (*os.File, error) {
	path := p.Lock()
	if err := mkdirOwned(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := openRegular(path, os.O_CREATE|os.O_RDWR)
	if err != nil {
		var link *LinkError
		if errors.As(err, &link) {
			return nil, err
		}
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	return f, nil
}

// tryLock takes the lock if it is free.
func tryLock(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// waitLock takes the lock, waiting for it.
func waitLock(f *os.File) error { return flock(f, syscall.LOCK_EX) }

func unlockFile(f *os.File) { flock(f, syscall.LOCK_UN) }

func flock(f *os.File, how int) error {
	for {
		if err := syscall.Flock(int(f.Fd()), how); err != syscall.EINTR {
			return err
		}
	}
}
