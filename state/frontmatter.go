package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// A state file is "---\n", the YAML frontmatter, a closing line "---", then
// the body. The closing line is the first line after the opening one that
// reads "---" once surrounding white space is trimmed: the rule of the
// frontmatter library earlier versions used, so files they wrote read the
// same. Marshal writes every string on one double-quoted line, so no
// frontmatter line it writes can close the frontmatter early.

var openingLine = []byte("---\n")

// closingLine scans data from pos, which is the start of a line, for the
// closing line. It returns where that line starts and where the body after
// it starts, or end = -1 and next, the start of the first line not yet
// complete, so a caller reading more can resume there. A last line without
// a newline counts only when atEOF says data is the whole file.
func closingLine(data []byte, pos int, atEOF bool) (end, body, next int) {
	for pos < len(data) {
		nl := bytes.IndexByte(data[pos:], '\n')
		lineEnd := pos + nl + 1
		if nl < 0 {
			if !atEOF {
				return -1, 0, pos
			}
			lineEnd = len(data)
		}
		if string(bytes.TrimSpace(data[pos:lineEnd])) == "---" {
			return pos, lineEnd, lineEnd
		}
		pos = lineEnd
	}
	return -1, 0, pos
}

var errUnclosed = errors.New("frontmatter is not closed by a --- line")

func errNoOpening() error {
	return errors.New("no YAML frontmatter (the file must start with a --- line)")
}

// splitFrontmatter splits a whole state file into its frontmatter (without
// the delimiter lines) and its body.
func splitFrontmatter(data []byte) (front, body []byte, err error) {
	if !bytes.HasPrefix(data, openingLine) {
		return nil, nil, errNoOpening()
	}
	end, bodyAt, _ := closingLine(data, len(openingLine), true)
	if end < 0 {
		return nil, nil, errUnclosed
	}
	return data[len(openingLine):end], data[bodyAt:], nil
}

// headChunk is how much LoadHead reads at a time: a frontmatter is a few
// KiB, a convergence ledger a few tens.
const headChunk = 32 << 10

// frontLimit is the longest frontmatter a state file may have: readHead
// reads no further before calling the file corrupt (a planted state file of
// gigabytes with no closing line would otherwise be read whole by every
// hook that ranks it), and parseLoop decodes none longer (yaml.v3 builds
// its whole tree before boundedyaml counts it: 32 MiB took one Stop 6 s
// and 1.8 GB, review P). A loop's is a few KiB; the gate's sub-agent
// outputs live in the body.
var frontLimit = 1 << 20

// readHead reads r until the frontmatter is closed and returns the
// frontmatter and the offset of the body in r. It never reads more than one
// chunk past the closing line, however long the body.
func readHead(r io.Reader) (front []byte, bodyAt int64, err error) {
	buf := make([]byte, 0, headChunk)
	pos := -1 // where the closing line scan resumes; -1 until the opening line is read
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
		}
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		atEOF := errors.Is(rerr, io.EOF)
		if rerr != nil && !atEOF {
			return nil, 0, rerr
		}
		if pos < 0 {
			if len(buf) < len(openingLine) && !atEOF {
				continue
			}
			if !bytes.HasPrefix(buf, openingLine) {
				return nil, 0, errNoOpening()
			}
			pos = len(openingLine)
		}
		end, body, next := closingLine(buf, pos, atEOF)
		if end >= 0 {
			return buf[len(openingLine):end], int64(body), nil
		}
		if atEOF {
			return nil, 0, errUnclosed
		}
		if len(buf) > frontLimit {
			return nil, 0, fmt.Errorf("the frontmatter does not end within its first %d MiB", frontLimit>>20)
		}
		pos = next
	}
}

// LoadHead reads only the frontmatter of the state file at path: what a
// hook needs that judges a tool call or counts blocks, whatever the size of
// the answers kept in the body. The File it returns has an empty Body that
// it must not change; Save keeps the body on disk as it is. Errors are
// Load's: fs.ErrNotExist for a missing file, *LinkError for a symbolic link
// on the way, *CorruptError for a file that cannot be parsed or a non-file
// in its place.
func LoadHead(path string) (*File, error) {
	fd, err := openState(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	front, bodyAt, err := readHead(fd)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, &CorruptError{Path: path, Err: err}
	}
	loop, err := parseLoop(front)
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	return &File{Loop: loop, head: &headOnly{path: path, bodyAt: bodyAt}}, nil
}

// openState opens the state file for reading with ReadOwned's checks.
func openState(path string) (*os.File, error) {
	if err := CheckOwned(path); err != nil {
		return nil, err
	}
	fd, err := openRegular(path, os.O_RDONLY)
	var notFile *NotFileError
	if errors.As(err, &notFile) {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("it is %s, not a file", describeMode(notFile.Mode))}
	}
	return fd, err
}

// headOnly marks a File loaded by LoadHead: its body is still in the file
// at path, from bodyAt on.
type headOnly struct {
	path   string
	bodyAt int64
}

// body reads the body LoadHead left on disk.
func (h *headOnly) body() ([]byte, error) {
	fd, err := openState(h.path)
	if err != nil {
		return nil, fmt.Errorf("reading the body of %s: %w", h.path, err)
	}
	defer fd.Close()
	if _, err := fd.Seek(h.bodyAt, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading the body of %s: %w", h.path, err)
	}
	b, err := io.ReadAll(fd)
	if err != nil {
		return nil, fmt.Errorf("reading the body of %s: %w", h.path, err)
	}
	return b, nil
}
