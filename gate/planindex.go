package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// The plan index spares the ExitPlanMode check a read of every plan file
// in ~/.claude/plans: the PostToolUse hook, when it maintains a session's
// plan file, records which file that is, one small entry per session. The
// check reads the entry, verifies that the file it names still carries the
// session's marker (OwnedBy), and falls back to scanning the folder when
// there is no entry or the file does not verify. The entry is a hint, never
// trusted on its own: a stale, damaged or forged entry costs a scan, not a
// wrong verdict.

// IndexName is the file name of sessionID's index entry: a hash, so any
// session id makes a safe, fixed-length name.
func IndexName(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return hex.EncodeToString(sum[:16])
}

const (
	indexSession = "session="
	indexPlan    = "plan="
)

// IndexEntry encodes the entry saying that sessionID's plan file is
// planName, a file name in the plans folder.
func IndexEntry(sessionID, planName string) string {
	return indexSession + sessionID + "\n" + indexPlan + planName + "\n"
}

// ParseIndexEntry returns the plan file name an entry records for
// sessionID. It refuses an entry for another session (a hash collision or a
// copied file), one naming anything but a plain, visible .md file name, and
// anything damaged; the caller then scans.
func ParseIndexEntry(entry, sessionID string) (string, bool) {
	if sessionID == "" || strings.ContainsAny(sessionID, "\n\r") {
		return "", false
	}
	rest, ok := strings.CutPrefix(entry, indexSession+sessionID+"\n"+indexPlan)
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, "\n")
	if !ok || !plainPlanName(name) {
		return "", false
	}
	return name, true
}

// plainPlanName reports whether name is a file name Claude Code could give a
// plan: no path, not hidden, ending in .md.
func plainPlanName(name string) bool {
	return strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, ".") &&
		!strings.ContainsAny(name, "/\\\n\r\x00")
}
