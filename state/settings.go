package state

import (
	"fmt"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// SettingsFile is plansmith's settings file, relative to a project (and,
// for user-wide settings, to $HOME). The user writes it; each package
// reads its own keys from it (plan_mode_gate, plans_dir).
const SettingsFile = ".claude/plansmith.yaml"

// Settings is the project's settings file.
func (p Paths) Settings() string { return filepath.Join(p.Project, SettingsFile) }

// settingsLimit is the most a settings file may hold: a few keys.
const settingsLimit = 64 << 10

// ReadSettings decodes the settings file at path into doc (a pointer to a
// struct naming the keys the caller reads). found is false when the file
// does not exist; a file that cannot be read or is not YAML is an error
// naming it, and so is anything but a regular file (a repository can carry
// the name as a link to /dev/zero or a FIFO, which would hang the hook
// reading it) or a file over 64 KiB.
func ReadSettings(path string, doc any) (found bool, err error) {
	data, err := ReadSettingsData(path)
	if plainfile.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := yaml.Unmarshal(data, doc); err != nil {
		return true, fmt.Errorf("%s: not valid YAML settings: %w", path, err)
	}
	return true, nil
}

// ReadSettingsData returns the bytes of the settings file at path, read as
// ReadSettings reads them (a small regular file); a missing file is an
// error satisfying plainfile.IsNotExist.
func ReadSettingsData(path string) ([]byte, error) {
	return plainfile.Read(path, settingsLimit)
}
