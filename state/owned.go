package state

import (
	"github.com/plansmith/plansmith/internal/plainfile"

	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// plansmith's own files live under the project's .claude folder, in a
// repository the user may have cloned from anyone. A symbolic link planted
// there (.claude/plansmith -> /elsewhere, a state file linked to a secret)
// would make plansmith write or read outside the project. plansmith never
// creates links, so it refuses every one it finds below .claude instead of
// following it. The .claude folder itself is the user's (Claude Code reads
// it through links too) and is not judged.

// LinkError reports a symbolic link where plansmith keeps its own files.
type LinkError struct {
	Path string // the link
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("refusing to follow %s: it is a symbolic link, and plansmith never creates links among its files; remove it if you did not put it there", e.Path)
}

// NotFileError reports something other than a regular file (a directory, a
// FIFO, a device) where plansmith expects one of its files.
type NotFileError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotFileError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, describeMode(e.Mode))
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// CheckOwned returns a *LinkError when path, or any folder between the
// project's .claude folder and path, is a symbolic link. The nearest
// ".claude" component of path marks where plansmith's files begin; a path
// without one has only its last component judged. Missing components are
// not an error: nothing below them exists to follow.
func CheckOwned(path string) error {
	root, rest := splitClaude(filepath.Clean(path))
	cur := root
	for _, c := range strings.Split(rest, string(filepath.Separator)) {
		if c == "" {
			continue
		}
		cur = filepath.Join(cur, c)
		info, err := os.Lstat(cur)
		if err != nil {
			return nil
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return &LinkError{Path: cur}
		}
	}
	return nil
}

// splitClaude splits path after its last ".claude" component, or before its
// last component when there is none.
func splitClaude(path string) (root, rest string) {
	sep := string(filepath.Separator)
	parts := strings.Split(path, sep)
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i] == ".claude" {
			return strings.Join(parts[:i+1], sep), strings.Join(parts[i+1:], sep)
		}
	}
	return filepath.Dir(path), filepath.Base(path)
}

// ReadOwned reads one of plansmith's own files. It refuses a symbolic link
// (*LinkError) and anything but a regular file (*NotFileError): a FIFO
// planted as the state file must not hang a hook. A missing file yields an
// error satisfying errors.Is(err, fs.ErrNotExist), and one longer than
// ownedLimit one satisfying errors.Is(err, plainfile.ErrTooLarge).
func ReadOwned(path string) ([]byte, error) {
	return ReadOwnedLimit(path, ownedLimit)
}

// ReadOwnedLimit is ReadOwned for a file kept smaller than ownedLimit:
// one longer than limit bytes is an error satisfying
// errors.Is(err, plainfile.ErrTooLarge), read no further.
func ReadOwnedLimit(path string, limit int64) ([]byte, error) {
	if err := CheckOwned(path); err != nil {
		return nil, err
	}
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (over %d KiB)", path, plainfile.ErrTooLarge, limit>>10)
	}
	return data, err
}

// ownedLimit is the most ReadOwned reads: far more than any file plansmith
// writes (a state file holding every answer of a long loop is a few MiB),
// far less than a planted file can make a hook take in time and memory
// before its timeout lets the call through. A variable for the tests.
var ownedLimit int64 = 256 << 20

// openRegular opens path without following a final symbolic link and
// without blocking on a FIFO, and checks that it is a regular file.
func openRegular(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|noFollowNonBlock, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, &LinkError{Path: path}
		}
		// A socket cannot be opened at all (ENXIO): it is no file either,
		// to be moved aside as a FIFO is (review BI2).
		if info, lerr := os.Lstat(path); lerr == nil && info.Mode()&fs.ModeSocket != 0 {
			return nil, &NotFileError{Path: path, Mode: info.Mode()}
		}
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &NotFileError{Path: path, Mode: info.Mode()}
	}
	return f, nil
}

// WriteOwned writes one of plansmith's own files atomically (see
// WriteFile), creating its folders, after refusing any symbolic link on
// the way (*LinkError). It also removes temporary files that killed
// writes of the same file left behind.
func WriteOwned(path string, data []byte) error {
	if err := mkdirOwned(filepath.Dir(path)); err != nil {
		return err
	}
	if err := CheckOwned(path); err != nil {
		return err
	}
	if err := WriteFile(path, data); err != nil {
		return err
	}
	sweepTemps(path, time.Now())
	return nil
}

// AppendOwned appends line, which ends in a newline, to one of plansmith's
// own files in one write, creating the file and its folders when missing,
// after refusing any symbolic link on the way (*LinkError). Hooks that
// append side by side keep each other's lines, where a read, change and
// write lost all but the last (review FB8: messages to gate runs noted by
// two hooks at once). A line a full disk cut short stays on its own.
func AppendOwned(path string, line []byte) error {
	if err := mkdirOwned(filepath.Dir(path)); err != nil {
		return err
	}
	if err := CheckOwned(path); err != nil {
		return err
	}
	f, err := openRegular(path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	if plainfile.EndsMidLine(f) {
		line = append([]byte("\n"), line...)
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// RemoveOwned removes one of plansmith's own files, after refusing any
// symbolic link on the way (*LinkError), a .claude leading out of the
// project among them: a repository's .claude linked to another project's
// must not lose that project's file (review P9). A missing file is not an
// error.
func RemoveOwned(path string) error {
	if err := CheckOwned(path); err != nil {
		return err
	}
	if err := claudeInside(path); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// TakeOwned moves one of plansmith's own files out of the way, to to
// beside it (replacing what is there), and returns what it held, at most
// limit bytes: a file others append to (AppendOwned) is taken whole, and
// what is appended after goes to a new file of that name, not lost with
// the old one. Links on the way are refused (*LinkError), as for every
// owned file. The taken file is removed.
func TakeOwned(path, to string, limit int64) ([]byte, error) {
	for _, p := range []string{path, to} {
		if err := CheckOwned(p); err != nil {
			return nil, err
		}
		if err := claudeInside(p); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(path, to); err != nil {
		return nil, err
	}
	data, err := ReadOwnedLimit(to, limit)
	if rerr := os.Remove(to); err == nil && rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = rerr
	}
	return data, err
}

// mkdirOwned creates dir and its parents after checking that no existing
// component below .claude is a link (MkdirAll would follow one), and that
// .claude, when it is a link, leads to a folder inside the project: it is
// the user's to link, but a repository can carry one leading out (into
// ~/.claude/rules, whose files Claude Code loads into every session), and
// plansmith writes only inside the project.
func mkdirOwned(dir string) error {
	if err := CheckOwned(dir); err != nil {
		return err
	}
	if err := claudeInside(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	return nil
}

// claudeInside returns a *LinkError when path lies below a .claude that is
// a link leading outside the folder holding it (or that cannot be
// resolved). The user's own ~/.claude is theirs to keep where they like
// (dotfiles on another disk): no repository carries it, and Claude Code
// follows it, so plansmith's files below it are written through the link
// (review BG5: the plan-mode gate's evidence was never recorded).
func claudeInside(path string) error {
	root, _ := splitClaude(filepath.Clean(path))
	if filepath.Base(root) != ".claude" || isUserClaude(root) {
		return nil
	}
	info, err := os.Lstat(root)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, err := filepath.EvalSymlinks(root)
	if err != nil {
		return &LinkError{Path: root}
	}
	project, err := filepath.EvalSymlinks(filepath.Dir(root))
	if err != nil {
		return &LinkError{Path: root}
	}
	if rel, err := filepath.Rel(project, target); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &LinkError{Path: root}
	}
	return nil
}

// isUserClaude reports whether root, a .claude folder, is the one in the
// user's home folder ($HOME).
func isUserClaude(root string) bool {
	home := os.Getenv("HOME")
	return home != "" && filepath.IsAbs(home) && filepath.Dir(root) == filepath.Clean(home)
}

// TempGrace is how old a leftover temporary file must be before a later
// write removes it: younger ones may belong to a write still in progress
// (a plan-mode file written without the project lock).
const TempGrace = time.Minute

// sweepTemps removes the temporary files WriteFile creates for path
// (".NAME.tmp-*") that a process killed between creating and renaming one
// left behind (SweepTemps).
func sweepTemps(path string, now time.Time) {
	SweepTemps(filepath.Dir(path), "."+filepath.Base(path)+".tmp-", now)
}

// SweepTemps removes the regular files in dir whose names start with
// prefix and that are older than TempGrace: temporary files a crash or a
// kill left, which nothing else ever removes, while one a writer is still
// using now is left alone. Failures are ignored: the sweep is
// housekeeping, and the next write tries again.
func SweepTemps(dir, prefix string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < TempGrace {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}
