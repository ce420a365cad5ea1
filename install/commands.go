package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/plansmith/plansmith"
)

// CommandFile is one slash command install writes: Name is the file name in
// a commands folder (plansmith-plan.md becomes /plansmith-plan).
type CommandFile struct {
	Name string
	Data []byte
}

// CommandPrefix starts every command file install writes; a settings
// command is not namespaced the way a plugin's /plansmith:plan is.
const CommandPrefix = "plansmith-"

// markerPrefix starts the line install adds to each command's frontmatter: a
// YAML comment (so neither Claude Code nor the model sees it) carrying the
// hash of the rest of the file, so uninstall can tell an untouched file from
// one the user edited, whatever version or binary path wrote it.
const markerPrefix = "# plansmith install sha256="

// Commands renders the plugin's commands/*.md for binary: the plugin's
// launcher path becomes the binary's quoted absolute path and the plugin's
// /plansmith:name spellings become /plansmith-name.
func Commands(binary string) ([]CommandFile, error) {
	names, err := fs.Glob(plansmith.Plugin, "commands/*.md")
	if err != nil {
		return nil, fmt.Errorf("listing the embedded commands: %w", err)
	}
	var out []CommandFile
	for _, name := range names {
		src, err := fs.ReadFile(plansmith.Plugin, name)
		if err != nil {
			return nil, fmt.Errorf("reading the embedded %s: %w", name, err)
		}
		out = append(out, CommandFile{
			Name: CommandPrefix + path.Base(name),
			Data: Render(string(src), binary),
		})
	}
	return out, nil
}

// Render turns one plugin command's text into the file install writes.
func Render(src, binary string) []byte {
	s := strings.ReplaceAll(src, `"`+PluginPlaceholder+`"`, Quote(binary))
	s = strings.ReplaceAll(s, PluginPlaceholder, binary)
	s = strings.ReplaceAll(s, "/plansmith:", "/"+CommandPrefix)
	return mark([]byte(s))
}

// mark adds the marker line at the top of the frontmatter (making one when
// the text has none).
func mark(body []byte) []byte {
	if !bytes.HasPrefix(body, []byte("---\n")) {
		body = append([]byte("---\n---\n"), body...)
	}
	sum := sha256.Sum256(body)
	line := markerPrefix + hex.EncodeToString(sum[:8]) + "\n"
	out := make([]byte, 0, len(body)+len(line))
	out = append(out, "---\n"...)
	out = append(out, line...)
	return append(out, body[len("---\n"):]...)
}

// Provenance says what a command file's marker tells about it.
type Provenance int

const (
	Foreign   Provenance = iota // no marker: install did not write it (or the marker was removed)
	Edited                      // install wrote it, and it has changed since
	Unchanged                   // exactly as install wrote it
)

// Inspect reads a command file's marker and checks the file against it.
func Inspect(data []byte) Provenance {
	rest, ok := bytes.CutPrefix(data, []byte("---\n"+markerPrefix))
	if !ok {
		return Foreign
	}
	sum, body, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return Edited
	}
	want := sha256.Sum256(append([]byte("---\n"), body...))
	if string(sum) == hex.EncodeToString(want[:8]) {
		return Unchanged
	}
	return Edited
}
