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
//
// The file invites hand edits, and an editor may save it with CRLF line
// ends or put a byte-order mark first (review BT2: every hook then called
// it corrupt, "the file must start with a --- line", and the next Stop
// ended the loop). A mark is skipped and an opening "---\r\n" accepted;
// such a file is then read as the LF one would be (frontLF, bodyLF), and
// the next save writes it with LF again.

var (
	openingLine     = []byte("---\n")
	openingLineCRLF = []byte("---\r\n")
	byteOrderMark   = []byte("\ufeff")
)

// maxOpening is the longest opening a state file can have: a byte-order
// mark, then "---\r\n".
var maxOpening = len(byteOrderMark) + len(openingLineCRLF)

// opening returns the length of data's opening line, a byte-order mark
// before it included, or 0 when data does not start with an opening line.
func opening(data []byte) int {
	rest := bytes.TrimPrefix(data, byteOrderMark)
	mark := len(data) - len(rest)
	switch {
	case bytes.HasPrefix(rest, openingLine):
		return mark + len(openingLine)
	case bytes.HasPrefix(rest, openingLineCRLF):
		return mark + len(openingLineCRLF)
	}
	return 0
}

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

var crlf = []byte("\r\n")

// frontLF returns the frontmatter with every CRLF line end made LF: YAML
// reads a CRLF line end as a line break, so its meaning is the same, and
// the fast reader (readBlock), which takes only LF lines, then reads it too.
func frontLF(front []byte) []byte {
	if !bytes.Contains(front, crlf) {
		return front
	}
	return bytes.ReplaceAll(front, crlf, []byte("\n"))
}

// bodyLF returns the body as the file written with LF held it; closedCRLF
// says the closing line before it ends in CRLF. The answers' byte counts
// and the texts' hashes are those of their LF text, so a body saved with
// CRLF line ends is made LF again. But the body is whatever text it is, an
// answer may hold a CRLF of its own, so it is changed only when the closing
// line, which Marshal ends with LF, ends in CRLF too and every line in the
// body ends in CRLF: never in a file plansmith wrote.
func bodyLF(body []byte, closedCRLF bool) []byte {
	if !closedCRLF {
		return body
	}
	n := bytes.Count(body, crlf)
	if n == 0 || n != bytes.Count(body, []byte("\n")) {
		return body
	}
	return bytes.ReplaceAll(body, crlf, []byte("\n"))
}

var errUnclosed = errors.New("frontmatter is not closed by a --- line")

func errNoOpening() error {
	return errors.New("no YAML frontmatter (the file must start with a --- line)")
}

// splitFrontmatter splits a whole state file into its frontmatter (without
// the delimiter lines) and its body.
func splitFrontmatter(data []byte) (front, body []byte, err error) {
	n := opening(data)
	if n == 0 {
		return nil, nil, errNoOpening()
	}
	end, bodyAt, _ := closingLine(data, n, true)
	if end < 0 {
		return nil, nil, errUnclosed
	}
	return frontLF(data[n:end]), bodyLF(data[bodyAt:], bytes.HasSuffix(data[:bodyAt], crlf)), nil
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
// frontmatter, as splitFrontmatter does, the offset of the body in r, and
// whether the closing line ends in CRLF (bodyLF's closedCRLF). It never
// reads more than one chunk past the closing line, however long the body.
func readHead(r io.Reader) (front []byte, bodyAt int64, closedCRLF bool, err error) {
	buf := make([]byte, 0, headChunk)
	pos := -1  // where the closing line scan resumes; -1 until the opening line is read
	start := 0 // where the frontmatter starts, after the opening line
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
		}
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		atEOF := errors.Is(rerr, io.EOF)
		if rerr != nil && !atEOF {
			return nil, 0, false, rerr
		}
		if pos < 0 {
			if len(buf) < maxOpening && !atEOF {
				continue
			}
			if start = opening(buf); start == 0 {
				return nil, 0, false, errNoOpening()
			}
			pos = start
		}
		end, body, next := closingLine(buf, pos, atEOF)
		if end >= 0 {
			return frontLF(buf[start:end]), int64(body), bytes.HasSuffix(buf[:body], crlf), nil
		}
		if atEOF {
			return nil, 0, false, errUnclosed
		}
		if len(buf) > frontLimit {
			return nil, 0, false, fmt.Errorf("the frontmatter does not end within its first %d MiB", frontLimit>>20)
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
	front, bodyAt, closedCRLF, err := readHead(fd)
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
	return &File{Loop: loop, head: &headOnly{path: path, bodyAt: bodyAt, closedCRLF: closedCRLF}}, nil
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
// at path, from bodyAt on, after a closing line ending in CRLF when
// closedCRLF is set.
type headOnly struct {
	path       string
	bodyAt     int64
	closedCRLF bool
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
	return bodyLF(b, h.closedCRLF), nil // as Load reads it, so the save that follows keeps what Load would (review BT2)
}
