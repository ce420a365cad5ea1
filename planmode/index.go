package planmode

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/state"
)

// PlanIndexDir is where the plan index keeps one entry per session,
// relative to HOME (see gate.IndexName): which plan file the PostToolUse
// hook last maintained for that session.
const PlanIndexDir = ".claude/plansmith/plan-index"

// IndexKeep is how long the index keeps a session's entry, and the runs
// its hooks saw, after they were last written: Claude Code's own default
// for keeping a session (cleanupPeriodDays, 30), after which it cleans its
// plans folder too. A session resumed later finds its plan by the scan, and
// runs its gate again.
const IndexKeep = 30 * 24 * time.Hour

// indexPlan records that path, a plan file in the canonical plans folder,
// is sessionID's. It writes only when the entry changes, and like every
// write of plansmith's own files refuses symbolic links on the way. A new
// entry sweeps the entries and runs no hook has written for IndexKeep:
// there is one of each per plan-mode session, and nothing else ever
// removes them (review DD6).
func indexPlan(home, sessionID, path string, now time.Time) error {
	if home == "" {
		return nil
	}
	entry := gate.IndexEntry(sessionID, filepath.Base(path))
	if _, ok := gate.ParseIndexEntry(entry, sessionID); !ok {
		return nil // a session id or name the index cannot hold: ExitPlanMode scans
	}
	file := filepath.Join(home, PlanIndexDir, gate.IndexName(sessionID))
	if old, err := state.ReadOwned(file); err == nil && string(old) == entry {
		return nil
	}
	if err := state.WriteOwned(file, []byte(entry)); err != nil {
		return err
	}
	sweepIndex(filepath.Dir(file), now)
	return nil
}

// sweepIndex removes from dir, the plan index, the entries and runs files
// (named by gate.IndexName) last written more than IndexKeep before now.
// Anything else is left, and failures are ignored: the next new entry
// sweeps again.
func sweepIndex(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := strings.TrimPrefix(e.Name(), "runs-")
		if !e.Type().IsRegular() || len(name) != len(gate.IndexName("")) || strings.Trim(name, "0123456789abcdef") != "" {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > IndexKeep {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// indexedPlan returns the contents of the plan file the index names for
// sessionID, when it verifies: a regular .md file directly in one of
// folders (the canonical plans folders), that carries the session's
// marker. The entry names the file, not its folder, and the session's plan
// may be in two of them under one name (kept where plansDirectory says,
// later in Claude Code's default folder: review BL3): of those that
// verify, the one modified last is the session's plan, as the scan picks
// it (review DD9: the first folder's was taken, an older plan of the
// session's, and its pass ended plan mode on a plan no one had assessed).
// ok is false when there is no entry or nothing verifies, and the caller
// scans.
func indexedPlan(home string, folders []plansFolder, sessionID string) (content string, ok bool) {
	data, err := state.ReadOwned(filepath.Join(home, PlanIndexDir, gate.IndexName(sessionID)))
	if err != nil {
		return "", false
	}
	name, ok := gate.ParseIndexEntry(string(data), sessionID)
	if !ok {
		return "", false
	}
	var newest os.FileInfo
	for _, f := range folders {
		if f.canon == "" {
			continue
		}
		path, ok := planFile(f.canon, filepath.Join(f.canon, name))
		if !ok {
			continue
		}
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxPlanFile || newest != nil && !info.ModTime().After(newest.ModTime()) {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(b, []byte("rodin:session="+sessionID)) || !gate.OwnedBy(string(b), sessionID) {
			continue
		}
		content, newest = string(b), info
	}
	return content, newest != nil
}
