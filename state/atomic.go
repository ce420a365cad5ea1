package state

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically: a temporary file in the same
// folder, renamed over path. A reader sees the old or the new contents, never
// a torn write. It does not fsync: that would cost every hook call several
// milliseconds on ordinary disks, and what it guards against (power loss) at
// worst loses the last phase transition, which the agent simply repeats.
func WriteFile(path string, data []byte) error {
	return WriteFileMode(path, data, 0o644)
}

// WriteFileMode is WriteFile with the permissions the new file gets. They
// are set before the rename, so a file kept private (say 0600) is never
// readable by others, not even for a moment.
func WriteFileMode(path string, data []byte, perm os.FileMode) error {
	return WriteFileChecked(path, data, perm, nil)
}

// WriteFileChecked is WriteFileMode that calls check, when it is not nil,
// just before the rename, and writes nothing when it fails: a file another
// program may write too is replaced only while it still holds what the new
// contents were made from (the moment left between the two is a read's).
func WriteFileChecked(path string, data []byte, perm os.FileMode, check func() error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		os.Remove(name)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Chmod(name, perm); err != nil {
		return fail(err)
	}
	if check != nil {
		if err := check(); err != nil {
			os.Remove(name)
			return err
		}
	}
	if err := os.Rename(name, path); err != nil {
		return fail(err)
	}
	return nil
}
