// Package plainfile reads small files a repository may carry (a policy
// extension, a sub-agent's definition, a go.mod, a .git/HEAD) without
// letting their kind hold a hook up: a link is followed, but what it leads
// to must be a regular file, opened without waiting on a FIFO, and read up
// to a limit. A link to /proc/self/fd/1 (the hook's own output pipe) or
// to /dev/zero would otherwise hang the hook or fill its memory, and
// Claude Code lets a call through when a PreToolUse hook times out.
package plainfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrTooLarge reports a file longer than the caller's limit.
var ErrTooLarge = errors.New("larger than a file of its kind can be")

// Read returns the contents of the regular file at path (links followed),
// at most limit bytes. Anything else (a folder, a FIFO, a device) is an
// error naming it; a missing file is one satisfying
// errors.Is(err, fs.ErrNotExist).
func Read(path string, limit int64) ([]byte, error) {
	data, err := read(path, limit+1)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", path, ErrTooLarge, limit)
	}
	return data, nil
}

// Head returns the first n bytes of the regular file at path (fewer when
// it is shorter), with Read's checks: a script's "#!" line, say, of a
// program that may be large.
func Head(path string, n int64) ([]byte, error) {
	return read(path, n)
}

// read returns at most n bytes of the regular file at path.
func read(path string, n int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v)", path, info.Mode().Type())
	}
	// The kernel's own files pass for regular ones, and some block a
	// reader (/proc/kmsg) or never end: a link there is refused (review
	// BL5: a settings file linked to /proc/kmsg held a hook to its
	// deadline).
	if real, err := filepath.EvalSymlinks(path); err == nil && systemFile(real) {
		return nil, fmt.Errorf("%s leads to %s, a file of the kernel's, not one to read", path, real)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// What was opened is checked too: the entry may have changed since.
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v)", path, info.Mode().Type())
	}
	return readAll(io.LimitReader(f, n), min(info.Size(), n))
}

// readAll is io.ReadAll(r) into a buffer made for size bytes, the file's
// size when opened: io.ReadAll starts at 512 bytes and grows, and a shell
// snapshot of 300 KiB, read before every Bash command, took ten buffers
// and twice its size in fresh memory (review FE). A file that grew since
// is read whole all the same.
func readAll(r io.Reader, size int64) ([]byte, error) {
	c := int64(512) // io.ReadAll's start, for a file that says nothing of its size
	if size > 0 {
		c = size + 1 // +1: EOF is seen without growing
	}
	b := make([]byte, 0, c)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// systemFile reports whether p, links resolved, lies in /proc, /sys or
// /dev (but for /dev/shm, an ordinary folder).
func systemFile(p string) bool {
	p = filepath.ToSlash(p)
	if strings.HasPrefix(p, "/dev/shm/") {
		return false
	}
	for _, dir := range []string{"/proc/", "/sys/", "/dev/"} {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return false
}

// IsNotExist reports whether err says the file is not there.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// Present reports whether something stands at path, or whether that cannot
// even be checked: either way the caller must reckon with it.
func Present(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR)
}

// Message is err's message for people: Go's operation prefix of a failed
// system call ("open /x: …", "lstat /x: …", "mkdir /x: …") becomes the
// path and the reason ("/x: no such file or directory"), wherever it
// stands in the message; the rest is kept.
func Message(err error) string {
	msg := err.Error()
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Err != nil {
		msg = strings.Replace(msg, pe.Error(), pe.Path+": "+pe.Err.Error(), 1)
	}
	return msg
}

// PerProcess reports whether p lies in /proc or /dev/fd.
func PerProcess(p string) bool {
	p = filepath.ToSlash(filepath.Clean(p))
	for _, magic := range []string{"/proc", "/dev/fd"} {
		if p == magic || strings.HasPrefix(p, magic+"/") {
			return true
		}
	}
	return false
}

// EndsMidLine reports whether f, opened for reading, ends without a
// newline: the end of a line a full disk cut short. A record appended to
// such a file must start with a newline, or it is glued to the torn line
// and lost with it (review DD1).
func EndsMidLine(f *os.File) bool {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return false
	}
	last := make([]byte, 1)
	_, err = f.ReadAt(last, info.Size()-1)
	return err == nil && last[0] != '\n'
}
