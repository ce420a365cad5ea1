package planmode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/bashtool"
	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/state"
)

// SettingsFile is the per-project settings file, relative to the project.
// Other keys may live in it; this package reads only its own.
const SettingsFile = state.SettingsFile

// Setting says whether the plan-mode gate guards a project, and
// where that was decided.
type Setting struct {
	On     bool
	Source string // the settings file that sets it; "" when it is the default
}

// UserSettingsFile is the user-level settings file, relative to $HOME: its
// plan_mode_gate applies to every project whose own file does not set one.
const UserSettingsFile = state.SettingsFile

// LoadSetting reads the plan-mode gate's switch, `plan_mode_gate:
// on|off`, from the project's settings file, else from the user's
// (~/.claude/plansmith.yaml; the project's overrides it). The gate is on
// unless a file turns it off: a missing file or key means on, and so does a
// file that cannot be read or parsed, which also returns an error naming it
// (a broken file must not silently drop the guard).
//
// A repository can carry the project's file, so its "off" counts only once
// the user has approved the file as it stands (plansmith policy trust,
// policy.Trusted); until then the gate stays on and the error says why.
//
// The home folder is where the user's approvals and file are, unless the
// project's own Claude Code settings set HOME (or may: one that cannot be
// read): Claude Code 2.1.197 hands that HOME to the hooks, and it names a
// folder the repository fills, whose plansmith.yaml turned the gate off and
// whose approvals passed the project's own "off" (review FD5's note). Then
// neither counts: the gate is on unless the project's file turns it off,
// which then cannot be approved.
func LoadSetting(project string) (Setting, error) {
	def := Setting{On: true}
	home, herr := os.UserHomeDir()
	projectHome := project != "" && bashtool.SettingsSet("HOME", project, os.Getenv("CLAUDE_PROJECT_DIR"))
	if projectHome {
		home = ""
	}
	if project != "" {
		path := filepath.Join(project, SettingsFile)
		s, set, err := loadFile(path)
		if err == nil && set && !s.On && (projectHome || !offTrusted(home, project, path)) {
			return def, &UntrustedOffError{Path: path, ProjectHome: projectHome}
		}
		if err != nil || set {
			return s, err
		}
	}
	if projectHome {
		return def, ErrProjectHome
	}
	if herr != nil || home == "" {
		return def, nil
	}
	s, _, err := loadFile(filepath.Join(home, UserSettingsFile))
	return s, err
}

// ErrProjectHome is LoadSetting's error when the project's Claude Code
// settings set HOME (or may) and the project's own file sets no switch.
var ErrProjectHome = errors.New("the project's Claude Code settings (.claude/settings.json or settings.local.json) set HOME, or cannot be read, so no ~/.claude/plansmith.yaml is taken for yours")

// UntrustedOffError is LoadSetting's answer for a project settings file
// that turns the gate off without the user's approval: the gate stays on.
type UntrustedOffError struct {
	Path string
	// ProjectHome says the project's Claude Code settings set HOME, so no
	// approval can be told from the repository's own.
	ProjectHome bool
}

func (e *UntrustedOffError) Error() string {
	if e.ProjectHome {
		return fmt.Sprintf("%s turns the plan-mode gate off, but the project's Claude Code settings (.claude/settings.json or settings.local.json) set HOME, so plansmith cannot tell your approvals from the repository's and the gate stays on: remove HOME from the project's env settings, then run `plansmith policy trust` in the project", e.Path)
	}
	return fmt.Sprintf("%s turns the plan-mode gate off, but a repository can carry that file, so it counts only once you approve it as it stands: read it, then run `plansmith policy trust` in the project", e.Path)
}

// offTrusted reports whether the user approved the project settings file at
// path as it stands.
func offTrusted(home, project, path string) bool {
	data, err := state.ReadSettingsData(path)
	return err == nil && policy.Trusted(home, project, data)
}

// TrustSetting approves the project's settings file as it stands when it
// turns the gate off, for home's user (plansmith policy trust); approved
// is false when there is nothing to approve.
func TrustSetting(project, home string) (approved bool, err error) {
	path := filepath.Join(project, SettingsFile)
	s, set, err := loadFile(path)
	if err != nil || !set || s.On {
		return false, err
	}
	data, err := state.ReadSettingsData(path)
	if err != nil {
		return false, err
	}
	return true, policy.Approve(home, project, data)
}

// loadFile reads plan_mode_gate from one settings file; set is false when
// the file or the key is missing.
func loadFile(path string) (Setting, bool, error) {
	def := Setting{On: true}
	var doc gateDoc
	if found, err := state.ReadSettings(path, &doc); !found || err != nil {
		return def, false, err
	}
	on, set, err := doc.setting()
	if err != nil {
		return def, false, fmt.Errorf("%s: %w", path, err)
	}
	if !set {
		return def, false, nil
	}
	return Setting{On: on, Source: path}, true, nil
}

// gateDoc is the one key of the settings file this package reads.
type gateDoc struct {
	PlanModeGate any `yaml:"plan_mode_gate"`
}

// setting interprets plan_mode_gate: set is false when it is absent or empty.
func (doc gateDoc) setting() (on, set bool, err error) {
	switch v := doc.PlanModeGate.(type) {
	case nil:
		return true, false, nil
	case bool:
		return v, true, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "on", "true", "yes":
			return true, true, nil
		case "off", "false", "no":
			return false, true, nil
		}
	}
	return true, false, fmt.Errorf("plan_mode_gate is %v; use on or off", doc.PlanModeGate)
}
