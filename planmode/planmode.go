// Package planmode is the plan-mode gate: it guards Claude Code's own plan
// mode with the gate package's metadata embedded in the plan file
// (~/.claude/plans/<slug>.md), and reads the project's switch for it
// (plan_mode_gate in .claude/plansmith.yaml). It does no decoding of hook
// input: the loop package hands it a Call.
package planmode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plansmith/plansmith/bashtool"
	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// maxPlanFile is the most of a plan file the gate reads: far more than any
// plan. A larger file in the plans folder (a repository that points
// plansDirectory at a folder of its own can fill it with huge .md files)
// is passed by, not read whole into memory: a hook that runs out of memory
// is killed, and a killed hook lets the call through (review DD12). A
// variable for the tests.
var maxPlanFile int64 = 8 << 20

// tooLarge says that path is passed by for its size.
func tooLarge(path string, size int64) error {
	return fmt.Errorf("%s is larger than any plan (%d MiB, over %d MiB), so plansmith does not read it", path, size>>20, maxPlanFile>>20)
}

// The two halves fail in opposite directions on purpose: PostToolUse only
// maintains metadata, so it fails open and never disturbs an edit; the
// ExitPlanMode check is the enforcement, so it fails closed. A missed
// maintenance step is caught at exit as stale or missing metadata.

// PlansDir is where Claude Code keeps plan-mode plan files by default,
// relative to HOME (plansdir.go: the settings and $CLAUDE_CONFIG_DIR that
// move them).
const PlansDir = ".claude/plans"

// Call is one tool call as the plan-mode gate sees it.
type Call struct {
	Project        string // the project, for its settings file
	Root           string // Claude Code's project root ($CLAUDE_PROJECT_DIR), where plansDirectory is relative to; Project when ""
	Home           string // $HOME, where plansmith's plan index lives (and ~/.claude/plans)
	ConfigDir      string // $CLAUDE_CONFIG_DIR, Claude Code's config folder when set
	SessionID      string
	PermissionMode string // "plan" in plan mode
	Tool           string
	Input          json.RawMessage // the tool's input object
	Response       json.RawMessage // the tool's response (after the call)
}

// Maintain maintains the plan-mode gate's metadata after the agent writes
// its plan file in plan mode: for Write, Edit and MultiEdit with
// permission_mode "plan" on a file whose canonical path is a .md file
// directly in the canonical plans folder (~/.claude/plans unless moved:
// plansdir.go), it rewrites the file with
// gate.Maintain (session marker, hashes, validation), atomically and only
// when something changed, and records the file in the plan index (see
// index.go). Anything else, and any input it cannot make sense
// of, is left alone: no output, and a stderr note only for real I/O errors.
// A plan file whose metadata could not be written is a *NotMaintainedError,
// for the agent to hear: the edit stands, but ExitPlanMode will refuse the
// plan as not assessed until the metadata is written.
func Maintain(c Call, now time.Time, notes io.Writer) error {
	switch c.Tool {
	case "Write", "Edit", "MultiEdit":
	default:
		return nil
	}
	if c.PermissionMode != "plan" || strings.TrimSpace(c.SessionID) == "" {
		return nil
	}
	target := rawString(c.Input, "file_path")
	if target == "" {
		target = rawString(c.Response, "filePath")
	}
	if target == "" || !filepath.IsAbs(target) || !On(c.Project, notes) || c.Home == "" {
		return nil
	}
	folders, err := c.plansFolders()
	if err != nil {
		return nil
	}
	path, ok := "", false
	for _, f := range folders {
		if f.canon != "" {
			if path, ok = planFile(f.canon, target); ok {
				break
			}
		}
	}
	if !ok {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	if info.Size() > maxPlanFile {
		fmt.Fprintf(notes, "plansmith: plan-mode gate: %v\n", tooLarge(path, info.Size()))
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(notes, "plansmith: plan-mode gate: reading %s: %v\n", path, err)
		return nil
	}
	// A pass verdict signal stands only on runs this session's hooks saw.
	content := checkSignal(string(data), c.Home, c.SessionID)
	out, err := gate.Maintain(content, c.SessionID, now)
	if err != nil {
		return nil
	}
	if out != content {
		// A plan the user keeps private stays private.
		if err := state.WriteFileMode(path, []byte(out), info.Mode().Perm()); err != nil {
			fmt.Fprintf(notes, "plansmith: plan-mode gate: %v\n", err)
			return &NotMaintainedError{Path: path, Err: err}
		}
	}
	// CheckExit finds the plan through the index, not a scan of the folder.
	if gate.OwnedBy(out, c.SessionID) {
		if err := indexPlan(c.Home, c.SessionID, path, now); err != nil {
			fmt.Fprintf(notes, "plansmith: plan-mode gate: %v\n", err)
			// The runs are recorded only for an indexed plan (RecordRun):
			// without the entry none was, in silence (review FB11: a
			// plansDirectory plan, with the home's disk full).
			return &NotMaintainedError{Path: path, Err: err, Index: true}
		}
	}
	return nil
}

// NotMaintainedError says that the plan-mode gate's metadata in the plan
// file at Path, or the plan's entry in the plan index, could not be
// written (Err). The gate then refuses
// ExitPlanMode as if the plan had never been assessed, and advises running
// the gate again, which cannot help (review FB3: a full disk under the
// home, told only on stderr).
type NotMaintainedError struct {
	Path  string
	Err   error
	Index bool // the plan index's entry, not the plan file, could not be written
}

func (e *NotMaintainedError) Error() string {
	return fmt.Sprintf("plan-mode gate: writing the metadata of %s: %v", e.Path, e.Err)
}

func (e *NotMaintainedError) Unwrap() error { return e.Err }

// Message tells the agent and the user that the plan's record is behind,
// and what to do.
func (e *NotMaintainedError) Message() string {
	what := "plan"
	if e.Index {
		what = "index"
	}
	return unrecordedMessage(map[string]any{"What": what, "Path": e.Path, "Why": errText(e.Err)})
}

// planFile returns the canonical path of target when it is a .md file
// directly inside dir, the canonical plans folder, and not hidden (Claude
// Code names plans <slug>.md; editors and atomic writes leave dot files).
// Symlinks and ".." are resolved first, so neither can lead outside the
// folder. Both hooks use it, so the file PostToolUse maintains is the file
// the ExitPlanMode check finds.
func planFile(dir, target string) (string, bool) {
	path, err := filepath.EvalSymlinks(target)
	if err != nil {
		return "", false
	}
	base := filepath.Base(path)
	if filepath.Dir(path) != dir || !strings.HasSuffix(base, ".md") || strings.HasPrefix(base, ".") {
		return "", false
	}
	return path, true
}

// rawString reads one string field of a JSON object, or "" when raw is not
// an object or the field is absent, null or not a string.
func rawString(raw json.RawMessage, key string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(obj[key], &s) != nil {
		return ""
	}
	return s
}

// CheckExit judges an ExitPlanMode call: the session's plan file (the one
// the plan index names, verified; else found by its session marker among
// the plans folder's *.md files, the most recently modified when several carry it) must hold a pass verdict bound to its
// current plan and gaps (gate.CheckExit). It fails closed: no session id, no
// plan with the marker, an unreadable folder or file, or an internal error
// all deny, each with a message that says how to proceed. It returns the
// reason for the denial, or "" to let plan mode end.
func CheckExit(c Call, notes io.Writer) (deny string) {
	defer func() {
		if r := recover(); r != nil {
			deny = exitMessage(c.Project, "unreadable", fmt.Sprintf("internal error: %v", r))
		}
	}()
	if !On(c.Project, notes) {
		return ""
	}
	if strings.TrimSpace(c.SessionID) == "" {
		return gate.CheckExit("", "").Message
	}
	content, dir, err := sessionPlan(c)
	if err != nil {
		return exitMessage(c.Project, "unreadable", err.Error())
	}
	// No plan carries the marker: CheckExit says "no assessment", and the
	// agent is told where plansmith looked (review BG8: a plan kept
	// elsewhere was refused with advice that could not be followed).
	ex := gate.CheckExit(content, c.SessionID)
	if ex.Case == gate.ExitNoAssessment {
		return strings.TrimSpace(ex.Message) + "\n" + strings.TrimSpace(templates.Show("gate/exit-looked.md", map[string]any{"Dir": dir})) +
			"\n" + switchText(c.Project)
	}
	if !ex.Allow {
		return ex.Message
	}
	// The pass recorded in the plan file is a line any edit can write
	// (outside plan mode PostToolUse does not look: review T2): it stands
	// only on the runs this session's hooks saw, judged again now.
	if ok, why := gate.JudgePlanRuns(content, loadRuns(c.Home, c.SessionID)); !ok {
		return exitMessage(c.Project, "unobserved", why)
	}
	return ""
}

// sessionPlan returns the contents of the plan file marked with the
// session's id, or "" when none is. A plan file that cannot be read is an
// error only when no readable file carries the marker: it might have been
// this session's.
func sessionPlan(c Call) (content, dir string, err error) {
	home, sessionID := c.Home, c.SessionID
	if home == "" {
		return "", "", fmt.Errorf("HOME is not set, so plansmith's plan index cannot be found")
	}
	folders, err := c.plansFolders()
	if err != nil {
		return "", "", err
	}
	var dirs []string
	for _, f := range folders {
		dirs = append(dirs, f.dir)
	}
	dir = strings.Join(dirs, " and ")
	if content, ok := indexedPlan(home, folders, sessionID); ok {
		return content, dir, nil
	}
	marker := "rodin:session=" + sessionID
	var best string
	var bestInfo fs.FileInfo
	var firstErr error
	for _, f := range folders {
		if f.canon == "" {
			continue // no plans there at all
		}
		entries, err := os.ReadDir(f.canon)
		if err != nil {
			return "", dir, fmt.Errorf("reading %s: %w", f.dir, err)
		}
		for _, e := range entries {
			name := e.Name()
			path, ok := planFile(f.canon, filepath.Join(f.canon, name))
			if !ok {
				continue // a symlink out of the folder is not a plan file
			}
			info, err := os.Stat(path)
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			if info.Size() > maxPlanFile {
				if firstErr == nil {
					firstErr = tooLarge(filepath.Join(f.dir, name), info.Size())
				}
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("reading %s: %w", filepath.Join(f.dir, name), err)
				}
				continue
			}
			// The substring test skips other plans without parsing them.
			if !bytes.Contains(data, []byte(marker)) || !gate.OwnedBy(string(data), sessionID) {
				continue
			}
			if bestInfo == nil || info.ModTime().After(bestInfo.ModTime()) {
				best, bestInfo = string(data), info
			}
		}
	}
	if bestInfo == nil && firstErr != nil {
		return "", dir, firstErr
	}
	return best, dir, nil
}

// CheckMalformed answers a tool call whose input could not be decoded
// (raw is what was read, err why it failed). The tool is unknown, so other
// tools pass (the policy cannot judge them either), but input that names
// ExitPlanMode is refused: the plan-mode gate fails closed. It returns the
// reason for the denial, or "" to let the call through.
func CheckMalformed(project string, raw []byte, err error, notes io.Writer) (deny string) {
	if !bytes.Contains(raw, []byte("ExitPlanMode")) || !On(project, notes) {
		return ""
	}
	return exitMessage(project, "malformed-input", err.Error())
}

// On reads the project's switch; a broken settings file leaves the gate
// on, with a note.
func On(project string, notes io.Writer) bool {
	s, err := LoadSetting(project)
	if err != nil {
		fmt.Fprintf(notes, "plansmith: %v (the plan-mode gate stays on)\n", err)
	}
	return s.On
}

func exitMessage(project, name, detail string) string {
	msg := strings.TrimSpace(templates.Show("gate/exit/"+name+".md", map[string]any{"Command": templates.Slash("gate"), "Detail": detail}))
	return msg + "\n" + switchText(project)
}

// switchText says how the user turns the gate off. Where the project's
// Claude Code settings set HOME, neither the user's file nor an approval
// counts (LoadSetting), so it says what must change first (review FI).
func switchText(project string) string {
	home := project != "" && bashtool.SettingsSet("HOME", project, os.Getenv("CLAUDE_PROJECT_DIR"))
	return strings.TrimSpace(templates.Show("gate/exit-switch.md", map[string]any{"ProjectHome": home}))
}
