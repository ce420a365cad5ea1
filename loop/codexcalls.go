package loop

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
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

// codexCallGrace is how long a note is kept, and codexCallFresh how long
// after the hook wrote it plan takes it for its own call's: moments, so
// that neither a call id reused later (review BQ3) nor a terminal started
// earlier by a call naming plansmith (BQ4) passes for it.
const (
	codexCallGrace = time.Hour
	codexCallFresh = 2 * time.Minute
)

// NoteCodexCall records that the Codex PreToolUse hook judged the tool
// call id of thread, when command runs plansmith plan, with verdict: why
// Codex would not run plansmith's other hooks, as the hook could tell
// from outside the sandbox ("" when it would: review BQ1). Old notes are
// swept, once the note is written where no link leads elsewhere (BQ2).
// Errors are the caller's to note; a call that cannot be noted is judged
// all the same.
func NoteCodexCall(env Env, id, thread, command, verdict string) error {
	home := env.Getenv("HOME")
	if home == "" || id == "" || !safeSessionID(id) || !RunsPlansmithPlan(command) {
		return nil
	}
	dir := filepath.Join(home, CodexCallsDir)
	if err := state.WriteOwned(filepath.Join(dir, id), []byte(thread+"\n"+templates.OneLine(verdict, 1000)+"\n")); err != nil {
		return err
	}
	sweepCodexCalls(dir, env.Now())
	return nil
}

// RunsPlansmithPlan reports whether a shell command may run plansmith
// plan: the calls whose notes plan looks for.
func RunsPlansmithPlan(command string) bool {
	return strings.Contains(command, "plansmith") && strings.Contains(command, "plan ")
}

// CodexCallJudged reports whether the Codex PreToolUse hook judged the
// tool call id of thread ($CODEX_TOOL_CALL_ID, $CODEX_THREAD_ID of the
// command asking) moments before now, and what it found of Codex's other
// hooks (verdict, "" when they run).
func CodexCallJudged(home, id, thread string, now time.Time) (judged bool, verdict string) {
	if home == "" || id == "" || !safeSessionID(id) {
		return false, ""
	}
	path := filepath.Join(home, CodexCallsDir, id)
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) > codexCallFresh || info.ModTime().Sub(now) > codexCallFresh {
		return false, ""
	}
	data, err := state.ReadOwnedLimit(path, 4096)
	if err != nil {
		return false, ""
	}
	first, rest, _ := strings.Cut(string(data), "\n")
	if strings.TrimSpace(first) != thread {
		return false, ""
	}
	return true, strings.TrimSpace(rest)
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
