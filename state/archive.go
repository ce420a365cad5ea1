package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Archive ends the loop: it writes f, marked inactive with reason, into the
// archive folder and removes the state file, so no stale `active: true` file
// is left behind. It returns the archived file's path.
func Archive(p Paths, f *File, reason string, now time.Time) (string, error) {
	f.Loop.Active = false
	f.Loop.Paused = false
	f.Loop.ExitReason = reason
	f.Loop.EndedAt = now.UTC()
	data, err := Marshal(f)
	if err != nil {
		return "", err
	}
	dst, err := archiveName(p, reason, now)
	if err == nil {
		err = WriteOwned(dst, data)
		// A full disk has no room for the archive, nor for the state file
		// marked inactive: the file itself moves, as it was last saved (a
		// rename needs no room), so no active loop is left behind (review
		// P8).
		if err != nil && CheckOwned(p.State()) == nil && os.Rename(p.State(), dst) == nil {
			return dst, nil
		}
	}
	if err != nil {
		// The loop has ended whether or not the archive can be written:
		// leave it inactive in place rather than active for the next hook.
		return "", deactivateInPlace(p, data, err)
	}
	if err := os.Remove(p.State()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return dst, deactivateInPlace(p, data, fmt.Errorf("removing %s after archiving it: %w", p.State(), err))
	}
	return dst, nil
}

// deactivateInPlace writes the ended loop over the state file after the
// archive failed, and returns that failure.
func deactivateInPlace(p Paths, data []byte, cause error) error {
	if err := WriteOwned(p.State(), data); err != nil {
		// Both wrapped: the caller words the failure by the system's
		// reason (loop's plainError), which may be either one's (review
		// BT3).
		return fmt.Errorf("%w; and could not mark %s inactive: %w", cause, p.State(), err)
	}
	return fmt.Errorf("%w; %s is kept in place, marked inactive", cause, p.State())
}

// ArchiveRaw moves an unreadable state file into the archive untouched, so it
// stops steering hooks but stays available for inspection. Whatever stands
// in its place moves as it is: a directory with its contents, a symbolic
// link as a link (rename never follows one).
func ArchiveRaw(p Paths, reason string, now time.Time) (string, error) {
	return ArchiveFile(p, p.State(), reason, now)
}

// ArchiveFile moves path, one of plansmith's files in the project, into
// the archive as it is, named for reason and now, through the same checks
// as every archive (no link on the way, the folder made or reclaimed).
func ArchiveFile(p Paths, path, reason string, now time.Time) (string, error) {
	dst, err := archiveName(p, reason, now)
	if err != nil {
		return "", err
	}
	if err := os.Rename(path, dst); err != nil {
		return "", fmt.Errorf("moving %s to %s: %w", path, dst, err)
	}
	return dst, nil
}

func archiveName(p Paths, reason string, now time.Time) (string, error) {
	dir := p.Archive()
	err := mkdirOwned(dir)
	if err != nil && reclaimDir(dir) {
		// A file or link where the archive folder goes (a repository can
		// carry one) is moved aside, as the lock's folder is: otherwise
		// nothing could ever be archived, a corrupt state file included,
		// and its loop could not be ended (review BI1).
		err = mkdirOwned(dir)
	}
	if err != nil {
		return "", err
	}
	stamp := now.UTC().Format("20060102-150405")
	for i := 0; i < ArchiveTries; i++ {
		name := fmt.Sprintf("%s-%s.md", stamp, reason)
		if i > 0 {
			name = fmt.Sprintf("%s-%s-%d.md", stamp, reason, i)
		}
		path := filepath.Join(dir, name)
		_, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return path, nil
		case err != nil:
			// The folder cannot be searched (permission denied): no name
			// will do, and trying more only spins (review BG6).
			return "", fmt.Errorf("checking %s: %w", path, err)
		}
	}
	return "", fmt.Errorf("%s holds %d files named %s-%s: no free name", dir, ArchiveTries, stamp, reason)
}

// ArchiveTries is how many names archiveName tries within one second's
// stamp: far more than hooks and commands archive in a second. A variable
// for the tests.
var ArchiveTries = 10000
