package bashtool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// links answers, for the PATH lookups of one tool call, what the file
// system says about a path: its links resolved as filepath.EvalSymlinks
// resolves them (eval), os.Lstat and os.Stat (lstat, stat), and the
// program a script's "#!/usr/bin/env NAME" line runs (interpreter). It asks
// the file system about each path once: PATH entries share their first
// folders (/usr, /home/me/.local), a user's shell snapshots export PATHs
// that share most entries, and EvalSymlinks looks at every folder of every
// path it is given anew (a PreToolUse on one command made ~40 such calls
// for 13 entries). What it learns is kept for as long as it lives, so a
// links serves one call's lookups and no more (from one goroutine: its
// maps are not locked): the judgment of one command already rests on the
// file system as the hook saw it then.
type links struct {
	lstats map[string]lstatResult
	stats  map[string]statResult
	reals  map[string]realResult
	interp map[string]string // envInterpreter's answers
}

type lstatResult struct {
	mode   fs.FileMode
	err    error
	target string // a link's, read once it is asked for
	read   bool
	rerr   error
}

type statResult struct {
	info fs.FileInfo
	err  error
}

type realResult struct {
	path string
	err  error
}

func newLinks() *links {
	return &links{lstats: map[string]lstatResult{}, stats: map[string]statResult{}, reals: map[string]realResult{}, interp: map[string]string{}}
}

// stat is os.Stat(path), asked once.
func (l *links) stat(path string) (fs.FileInfo, error) {
	r, ok := l.stats[path]
	if !ok {
		r.info, r.err = os.Stat(path)
		l.stats[path] = r
	}
	return r.info, r.err
}

// lstat is os.Lstat(path)'s mode, asked once.
func (l *links) lstat(path string) (fs.FileMode, error) {
	r, ok := l.lstats[path]
	if !ok {
		info, err := os.Lstat(path)
		if err == nil {
			r.mode = info.Mode()
		}
		r.err = err
		l.lstats[path] = r
	}
	return r.mode, r.err
}

// readlink is os.Readlink(path), asked once.
func (l *links) readlink(path string) (string, error) {
	r := l.lstats[path]
	if !r.read {
		r.target, r.rerr = os.Readlink(path)
		r.read = true
		l.lstats[path] = r
	}
	return r.target, r.rerr
}

// interpreter is envInterpreter(file), read once.
func (l *links) interpreter(file string) string {
	n, ok := l.interp[file]
	if !ok {
		n = envInterpreter(file)
		l.interp[file] = n
	}
	return n
}

// eval is filepath.EvalSymlinks(path): the same path or the same failure
// (links_test.go holds the two together). On Windows, where EvalSymlinks
// asks the system for a file's final name instead, it is EvalSymlinks.
func (l *links) eval(path string) (string, error) {
	r, ok := l.reals[path]
	if !ok {
		if runtime.GOOS == "windows" {
			r.path, r.err = filepath.EvalSymlinks(path)
		} else {
			r.path, r.err = l.walk(path)
		}
		l.reals[path] = r
	}
	return r.path, r.err
}

// errTooManyLinks is what walk fails with past maxLinks links, as
// EvalSymlinks does.
var errTooManyLinks = errors.New("EvalSymlinks: too many links")

const maxLinks = 255

// walk resolves path one name at a time, as EvalSymlinks does on a POSIX
// system: real is the part resolved so far; "." is skipped; ".." takes the
// last name off real (real then names no link: the kernel would take ".."
// of where a link led too); a name that is a link is replaced by its
// target, resolved from real's folder when relative, from the root when
// absolute, followed by what was left of path. Anything but a folder
// before the last name fails (ENOTDIR), and so does a name that is not
// there.
func (l *links) walk(path string) (string, error) {
	root := 0 // 1 when real is absolute: its leading "/" stays
	if strings.HasPrefix(path, "/") {
		root = 1
	}
	real := path[:root]
	walked := 0
	for next := root; next < len(path); {
		start := next
		for start < len(path) && path[start] == '/' {
			start++
		}
		end := start
		for end < len(path) && path[end] != '/' {
			end++
		}
		next = end
		name := path[start:end]
		switch name {
		case "":
			return filepath.Clean(real), nil
		case ".":
			continue
		case "..":
			cut := strings.LastIndexByte(real[root:], '/')
			if cut < 0 || real[root+cut+1:] == ".." {
				// Nothing to take off (a relative path's start, or
				// ".." already kept): keep this one.
				if len(real) > root {
					real += "/"
				}
				real += ".."
			} else {
				real = real[:root+cut]
			}
			continue
		}
		if len(real) > 0 && real[len(real)-1] != '/' {
			real += "/"
		}
		real += name
		mode, err := l.lstat(real)
		if err != nil {
			return "", err
		}
		if mode&fs.ModeSymlink == 0 {
			if !mode.IsDir() && end < len(path) {
				return "", syscall.ENOTDIR
			}
			continue
		}
		if walked++; walked > maxLinks {
			return "", errTooManyLinks
		}
		target, err := l.readlink(real)
		if err != nil {
			return "", err
		}
		path = target + path[end:]
		if strings.HasPrefix(target, "/") {
			real, root, next = "/", 1, 1
			continue
		}
		if cut := strings.LastIndexByte(real[root:], '/'); cut < 0 {
			real = real[:root]
		} else {
			real = real[:root+cut]
		}
		next = 0
	}
	return filepath.Clean(real), nil
}
