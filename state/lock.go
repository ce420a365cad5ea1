//go:build !windows

package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock takes an exclusive advisory lock on the project's lock file and
// returns the function that releases it. Every read-modify-write of the
// state file happens under it, so a hook and `plansmith cancel` never
// interleave: a hook that loaded the loop before cancel cannot write it back.
func Lock(p Paths) (unlock func(), err error) {
	path := p.Lock()
	if err := mkdirOwned(filepath.Dir(path)); err != nil {
		return nil, err
	}
	// O_NOFOLLOW: a planted lock link must not create a file where it points.
	f, err := openRegular(path, os.O_CREATE|os.O_RDWR)
	if err != nil {
		var link *LinkError
		if errors.As(err, &link) {
			return nil, err
		}
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
