package planmode

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/state"
)

// PlanIndexDir is where the plan index keeps one entry per session,
// relative to HOME (see gate.IndexName): which plan file the PostToolUse
// hook last maintained for that session.
const PlanIndexDir = ".claude/plansmith/plan-index"

// indexPlan records that path, a plan file in the canonical plans folder,
// is sessionID's. It writes only when the entry changes, and like every
// write of plansmith's own files refuses symbolic links on the way.
func indexPlan(home, sessionID, path string) error {
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
	return state.WriteOwned(file, []byte(entry))
}

// indexedPlan returns the contents of the plan file the index names for
// sessionID, when it verifies: a regular .md file directly in canon, the
// canonical plans folder, that carries the session's marker. ok is false
// when there is no entry or it does not verify, and the caller scans.
func indexedPlan(home, canon, sessionID string) (content string, ok bool) {
	data, err := state.ReadOwned(filepath.Join(home, PlanIndexDir, gate.IndexName(sessionID)))
	if err != nil {
		return "", false
	}
	name, ok := gate.ParseIndexEntry(string(data), sessionID)
	if !ok {
		return "", false
	}
	path, ok := planFile(canon, filepath.Join(canon, name))
	if !ok {
		return "", false
	}
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte("rodin:session="+sessionID)) || !gate.OwnedBy(string(b), sessionID) {
		return "", false
	}
	return string(b), true
}
