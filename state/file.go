package state

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/plansmith/plansmith/internal/boundedyaml"
	"github.com/plansmith/plansmith/internal/plainfile"
)

// File is a whole state file: frontmatter and markdown body.
type File struct {
	Loop Loop
	Body string

	head *headOnly // set by LoadHead: the body is still on disk
}

// CorruptError reports a state file that exists but cannot be understood.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("state file %s is corrupt: %v", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// FrontmatterTooLargeError refuses to write a state file whose frontmatter
// is longer than a state file's may be when read back (frontLimit): the
// next hook would find it corrupt and end the loop (review CI2: a request
// of 1.2 MB started a loop that the first Stop moved aside).
type FrontmatterTooLargeError struct {
	Size  int // the frontmatter's length in bytes
	Limit int
}

func (e *FrontmatterTooLargeError) Error() string {
	return fmt.Sprintf("the state file's frontmatter would be %d KiB, more than the %d KiB plansmith reads back", (e.Size+1023)>>10, e.Limit>>10)
}

// Load reads the state file at path. A missing file yields an error
// satisfying errors.Is(err, fs.ErrNotExist); a symbolic link on the way
// yields a *LinkError (see ReadOwned); a file that cannot be parsed, or a
// directory or other non-file in its place, yields a *CorruptError.
func Load(path string) (*File, error) {
	data, err := ReadOwned(path)
	var notFile *NotFileError
	if errors.As(err, &notFile) {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("it is %s, not a file", describeMode(notFile.Mode))}
	}
	if errors.Is(err, plainfile.ErrTooLarge) {
		return nil, &CorruptError{Path: path, Err: err}
	}
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	return f, nil
}

// Parse decodes a state file's bytes.
func Parse(data []byte) (*File, error) {
	front, body, err := splitFrontmatter(data)
	if err != nil {
		return nil, err
	}
	loop, err := parseLoop(front)
	if err != nil {
		return nil, err
	}
	f := &File{Loop: loop, Body: string(body)}
	resolveTexts(&f.Loop, f.Body)
	return f, nil
}

// parseLoop decodes and checks the frontmatter.
func parseLoop(front []byte) (Loop, error) {
	if len(front) > frontLimit {
		return Loop{}, fmt.Errorf("the frontmatter is larger than %d MiB; a loop's is a few KiB", frontLimit>>20)
	}
	var l Loop
	if !readBlock(front, &l) {
		l = Loop{}
		if err := boundedyaml.Decode(front, &l, "the frontmatter"); err != nil {
			return Loop{}, err
		}
	}
	if len(l.Phases) == 0 {
		return Loop{}, errors.New("frontmatter has no phases")
	}
	if l.PhaseIndex < 0 || l.PhaseIndex > len(l.Phases) {
		return Loop{}, fmt.Errorf("phase_index %d is outside 0..%d", l.PhaseIndex, len(l.Phases))
	}
	return l, nil
}

// Marshal encodes a state file; it refuses one whose frontmatter could not
// be read back (*FrontmatterTooLargeError). Strings are written double-quoted on one
// line (see writeFrontmatter), so whatever the request contains it round-trips
// exactly and no frontmatter line can read as the closing "---". A File
// from LoadHead gets its body from the file it was loaded from. The gate
// runs' texts go into the body (keepTexts), which Parse reads them back from.
func Marshal(f *File) ([]byte, error) {
	body := []byte(f.Body)
	if f.head != nil {
		if f.Body != "" {
			return nil, errors.New("encoding state: the body of a file loaded with LoadHead cannot change")
		}
		var err error
		if body, err = f.head.body(); err != nil {
			return nil, err
		}
	}
	loop, kept := keepTexts(f.Loop, string(body))
	var buf bytes.Buffer
	buf.Grow(len(kept) + 4<<10)
	if err := writeFrontmatter(&buf, loop); err != nil {
		return nil, fmt.Errorf("encoding state: %w", err)
	}
	if buf.Len() > frontLimit {
		return nil, &FrontmatterTooLargeError{Size: buf.Len(), Limit: frontLimit}
	}
	buf.WriteString(kept)
	return buf.Bytes(), nil
}

// Save writes f to path atomically, refusing symbolic links (see
// WriteOwned). An error means the file on disk still holds what it held.
func Save(path string, f *File) error {
	data, err := Marshal(f)
	if err != nil {
		return err
	}
	return WriteOwned(path, data)
}
