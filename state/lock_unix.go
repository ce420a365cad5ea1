//go:build !windows

package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// openLock opens (creating) the project's lock file. O_NOFOLLOW: a planted
// lock link must not create a file where it points. The lock and the
// folder holding it are plansmith's own: whatever else stands at their
// names (a folder, a link, a file where the folder goes, all of which a
// repository can carry) is moved aside first (review P), so no committed
// file turns plansmith off in every session. On a read-only disk the lock
// is opened read-only: flock works on it, reading the loop still does, and
// a save fails and says so.
func openLock(p Paths) (*os.File, error) {
	path := p.Lock()
	dir := filepath.Dir(path)
	err := mkdirOwned(dir)
	if err != nil && moveAside(dir, fs.ModeDir) {
		err = mkdirOwned(dir)
	}
	if err != nil {
		return nil, err
	}
	f, err := openRegular(path, os.O_CREATE|os.O_RDWR)
	if err != nil && moveAside(path, 0) {
		f, err = openRegular(path, os.O_CREATE|os.O_RDWR)
	}
	if errors.Is(err, syscall.EROFS) {
		f, err = openRegular(path, os.O_RDONLY)
	}
	if err != nil {
		var link *LinkError
		if errors.As(err, &link) {
			return nil, err
		}
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	return f, nil
}

// moveAside renames what stands at path, inside a project's .claude, out
// of the way when it is not what plansmith keeps there (a folder for
// fs.ModeDir, else a regular file): a link moves as a link, a folder with
// its contents. The check and the rename happen under a lock on the
// .claude folder, so two hooks arriving together never rename what the
// other has just made (review Q2: one renamed the other's lock file, and
// both held "the" lock). It reports whether path may now be used: moved,
// gone, or already made right by another process.
func moveAside(path string, want fs.FileMode) bool {
	if claudeInside(path) != nil {
		return false
	}
	root, _ := splitClaude(filepath.Clean(path))
	if filepath.Base(root) != ".claude" {
		return false
	}
	d, err := os.Open(root)
	if err != nil {
		return false
	}
	defer d.Close()
	if flock(d, syscall.LOCK_EX) != nil {
		return false
	}
	defer flock(d, syscall.LOCK_UN)
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true
	case err != nil:
		return false
	case info.Mode().Type() == want:
		return true // made right meanwhile
	}
	return os.Rename(path, fmt.Sprintf("%s.moved-%d", path, time.Now().UnixNano())) == nil
}

// reclaimDir makes dir, one of plansmith's own folders inside a project's
// .claude, makeable again when something else stands there.
func reclaimDir(dir string) bool { return moveAside(dir, fs.ModeDir) }

// ReclaimFile makes path, one of plansmith's own file names inside a
// project's .claude, usable again when something else stands there (a
// folder or a link a repository carries): it is moved aside as moveAside
// does. It reports whether path may now be written.
func ReclaimFile(path string) bool { return moveAside(path, 0) }

// sameFile reports whether path still names the file f has open: a lock
// taken on a file renamed away meanwhile locks nothing anyone else takes.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
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
