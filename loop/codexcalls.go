package loop

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plansmith/plansmith/state"
)

// Whether Codex runs plansmith's hooks for the thread a `plan` runs in is
// best told by the hook itself: Codex gives the command the model runs
// the id of its tool call ($CODEX_TOOL_CALL_ID), which the PreToolUse hook
// is given as tool_use_id before the command runs. The hook notes the
// calls it judges that name plansmith, under the user's home, and plan
// looks for its own: no note, no hook judged it, whatever the reason
// (hooks not trusted, changed since, turned off in any config layer or
// for this session: reviews BO1–BO3). The note is read from inside
// Codex's sandbox, which lets the command read the home folder, not write
// it.

// CodexCallsDir is where the notes are kept, relative to HOME.
const CodexCallsDir = ".claude/plansmith/codex-calls"

// codexCallGrace is how long a note is kept: plan reads it moments after
// the hook writes it.
const codexCallGrace = time.Hour

// NoteCodexCall records that the Codex PreToolUse hook judged the tool
// call id of thread, when command names plansmith (the calls plan may be
// run by). Old notes are swept. Errors are the caller's to note; a call
// that cannot be noted is judged all the same.
func NoteCodexCall(env Env, id, thread, command string) error {
	home := env.Getenv("HOME")
	if home == "" || id == "" || !safeSessionID(id) || !strings.Contains(command, "plansmith") {
		return nil
	}
	dir := filepath.Join(home, CodexCallsDir)
	sweepCodexCalls(dir, env.Now())
	return state.WriteOwned(filepath.Join(dir, id), []byte(thread+"\n"))
}

// CodexCallJudged reports whether the Codex PreToolUse hook judged the
// tool call id of thread ($CODEX_TOOL_CALL_ID, $CODEX_THREAD_ID of the
// command asking).
func CodexCallJudged(home, id, thread string) bool {
	if home == "" || id == "" || !safeSessionID(id) {
		return false
	}
	data, err := state.ReadOwnedLimit(filepath.Join(home, CodexCallsDir, id), 4096)
	return err == nil && strings.TrimSpace(string(data)) == thread
}

// sweepCodexCalls removes notes older than codexCallGrace.
func sweepCodexCalls(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) < 16 {
		return // a handful is not worth the look
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > codexCallGrace {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
