package state

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"

	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v3"
)

// File is a whole state file: frontmatter and markdown body.
type File struct {
	Loop Loop
	Body string
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
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	return f, nil
}

var yamlFormat = frontmatter.NewFormat("---", "---", yaml.Unmarshal)

// Parse decodes a state file's bytes.
func Parse(data []byte) (*File, error) {
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, errors.New("no YAML frontmatter (the file must start with a --- line)")
	}
	var f File
	body, err := frontmatter.MustParse(bytes.NewReader(data), &f.Loop, yamlFormat)
	if err != nil {
		if errors.Is(err, frontmatter.ErrNotFound) {
			return nil, errors.New("frontmatter is not closed by a --- line")
		}
		return nil, err
	}
	if len(f.Loop.Phases) == 0 {
		return nil, errors.New("frontmatter has no phases")
	}
	if f.Loop.PhaseIndex < 0 || f.Loop.PhaseIndex > len(f.Loop.Phases) {
		return nil, fmt.Errorf("phase_index %d is outside 0..%d", f.Loop.PhaseIndex, len(f.Loop.Phases))
	}
	f.Body = string(body)
	return &f, nil
}

// Marshal encodes a state file. Strings are written double-quoted on one
// line (see encodeExact), so whatever the request contains it round-trips
// exactly and no frontmatter line can read as the closing "---".
func Marshal(f *File) ([]byte, error) {
	n, err := encodeExact(reflect.ValueOf(f.Loop))
	if err != nil {
		return nil, fmt.Errorf("encoding state: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("encoding state: %w", err)
	}
	enc.Close()
	buf.WriteString("---\n")
	buf.WriteString(f.Body)
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
