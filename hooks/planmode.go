package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// The plan-mode gate guards Claude Code's own plan mode with the gate
// package's metadata embedded in the plan file (~/.claude/plans/<slug>.md).
// The two halves fail in opposite directions on purpose: PostToolUse only
// maintains metadata, so it fails open and never disturbs an edit; the
// ExitPlanMode check is the enforcement, so it fails closed. A missed
// maintenance step is caught at exit as stale or missing metadata.

// PlansDir is where Claude Code keeps plan-mode plan files, relative to HOME.
const PlansDir = ".claude/plans"

// PostToolUse maintains the plan-mode gate's metadata after the agent writes
// its plan file in plan mode: for Write, Edit and MultiEdit with
// permission_mode "plan" on a file whose canonical path is a .md file
// directly in the canonical ~/.claude/plans, it rewrites the file with
// gate.Maintain (session marker, hashes, validation), atomically and only
// when something changed. Anything else, and any input it cannot make sense
// of, is left alone: no output, and a stderr note only for real I/O errors.
func PostToolUse(in Input, env Env) any {
	switch in.ToolName {
	case "Write", "Edit", "MultiEdit":
	default:
		return nil
	}
	if in.PermissionMode != "plan" || strings.TrimSpace(in.SessionID) == "" {
		return nil
	}
	target := rawString(in.ToolInput, "file_path")
	if target == "" {
		target = rawString(in.ToolResponse, "filePath")
	}
	if target == "" || !filepath.IsAbs(target) {
		return nil
	}
	if !planModeOn(in, env) {
		return nil
	}
	home := env.Getenv("HOME")
	if home == "" {
		return nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(home, PlansDir))
	if err != nil {
		return nil
	}
	path, ok := planFile(dir, target)
	if !ok {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: plan-mode gate: reading %s: %v\n", path, err)
		return nil
	}
	content := string(data)
	out, err := gate.Maintain(content, in.SessionID, env.Now())
	if err != nil || out == content {
		return nil
	}
	// A plan the user keeps private stays private.
	if err := state.WriteFileMode(path, []byte(out), info.Mode().Perm()); err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: plan-mode gate: %v\n", err)
	}
	return nil
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

// planModeExit judges an ExitPlanMode call: the session's plan file (found
// by its session marker among ~/.claude/plans/*.md; the most recently
// modified when several carry it) must hold a pass verdict bound to its
// current plan and gaps (gate.CheckExit). It fails closed: no session id, no
// plan with the marker, an unreadable folder or file, or an internal error
// all deny, each with a message that says how to proceed.
func planModeExit(in Input, env Env) (out any) {
	defer func() {
		if r := recover(); r != nil {
			out = deny(exitMessage("unreadable", map[string]any{"Detail": fmt.Sprintf("internal error: %v", r)}))
		}
	}()
	if !planModeOn(in, env) {
		return nil
	}
	if strings.TrimSpace(in.SessionID) == "" {
		return deny(gate.CheckExit("", "").Message)
	}
	content, err := sessionPlan(env.Getenv("HOME"), in.SessionID)
	if err != nil {
		return deny(exitMessage("unreadable", map[string]any{"Detail": err.Error()}))
	}
	// No plan carries the marker: CheckExit says "no assessment".
	ex := gate.CheckExit(content, in.SessionID)
	if ex.Allow {
		return nil
	}
	return deny(ex.Message)
}

// sessionPlan returns the contents of the plan file marked with sessionID,
// or "" when none is. A plan file that cannot be read is an error only when
// no readable file carries the marker: it might have been this session's.
func sessionPlan(home, sessionID string) (string, error) {
	if home == "" {
		return "", fmt.Errorf("HOME is not set, so %s cannot be found", filepath.Join("~", PlansDir))
	}
	dir := filepath.Join(home, PlansDir)
	canon, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil // no plans at all
		}
		return "", fmt.Errorf("reading %s: %w", dir, err)
	}
	entries, err := os.ReadDir(canon)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", dir, err)
	}
	marker := "rodin:session=" + sessionID
	var best string
	var bestInfo fs.FileInfo
	var firstErr error
	for _, e := range entries {
		name := e.Name()
		path, ok := planFile(canon, filepath.Join(canon, name))
		if !ok {
			continue // a symlink out of the folder is not a plan file
		}
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("reading %s: %w", filepath.Join(dir, name), err)
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
	if bestInfo == nil && firstErr != nil {
		return "", firstErr
	}
	return best, nil
}

// planModeMalformed answers a PreToolUse call whose input could not be
// decoded. The tool is unknown, so other tools pass (the policy cannot judge
// them either), but input that names ExitPlanMode is refused: the plan-mode
// gate fails closed.
func planModeMalformed(in Input, raw []byte, err error, env Env) any {
	if !bytes.Contains(raw, []byte("ExitPlanMode")) {
		return nil
	}
	// in holds whatever decoded before the error, perhaps the cwd.
	if !planModeOn(in, env) {
		return nil
	}
	return deny(exitMessage("malformed-input", map[string]any{"Detail": err.Error()}))
}

// planModeOn reads the project's switch; a broken settings file leaves the
// gate on, with a note.
func planModeOn(in Input, env Env) bool {
	s, err := LoadPlanModeSetting(ProjectPaths(in, env).Project)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: %v (the plan-mode gate stays on)\n", err)
	}
	return s.On
}

func exitMessage(name string, data map[string]any) string {
	d := map[string]any{"Command": gate.GateCommand}
	for k, v := range data {
		d[k] = v
	}
	out, err := templates.Render("gate/exit/"+name+".md", d)
	if err != nil {
		return fmt.Sprintf("[plansmith gate] internal error: %v", err)
	}
	return strings.TrimSpace(out)
}
