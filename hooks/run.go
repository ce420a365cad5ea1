package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/plansmith/plansmith/state"
)

// Events are the hook subcommands, named as `plansmith hook EVENT`.
var Events = []string{"stop", "pretooluse", "posttooluse", "userpromptsubmit"}

// Env is what a hook reads from its process besides stdin.
type Env struct {
	Stderr io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	Now    func() time.Time
}

// Run handles one hook call: it decodes the input from stdin and writes the
// hook's JSON answer (or nothing) to stdout. It never panics and never asks
// for a non-zero exit: a hook that fails reports on stderr and lets Claude
// Code carry on, except where a rule says to fail closed (ExitPlanMode).
func Run(event string, stdin io.Reader, stdout io.Writer, env Env) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "plansmith: internal error in the %s hook: %v\n", event, r)
		}
	}()
	in, raw, err := readInput(stdin)
	if err != nil {
		if event == "pretooluse" {
			// The one hook that must not fail open: a malformed ExitPlanMode
			// call is refused by the plan-mode gate, everything else passes.
			if out := planModeMalformed(in, raw, err, env); out != nil {
				writeJSON(stdout, out, env)
			}
		}
		fmt.Fprintf(env.Stderr, "plansmith: %s hook: %v; ignoring this call\n", event, err)
		return
	}
	var out any
	switch event {
	case "stop":
		out = Stop(in, env)
	case "pretooluse":
		out = PreToolUse(in, env)
	case "posttooluse":
		out = PostToolUse(in, env)
	case "userpromptsubmit":
		out = UserPromptSubmit(in, env)
	default:
		fmt.Fprintf(env.Stderr, "plansmith: unknown hook event %q\n", event)
	}
	if out != nil {
		writeJSON(stdout, out, env)
	}
}

func writeJSON(w io.Writer, v any, env Env) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // the model reads these; <promise> must stay legible
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: writing hook output: %v\n", err)
	}
}

// ProjectPaths locates the project: the hook input's cwd, else
// $CLAUDE_PROJECT_DIR, else the working directory.
func ProjectPaths(in Input, env Env) state.Paths {
	if in.Cwd != "" {
		return state.Paths{Project: in.Cwd}
	}
	if d := env.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return state.Paths{Project: d}
	}
	wd, _ := env.Getwd()
	return state.Paths{Project: wd}
}

// DefaultBlockCap is how many consecutive Stop-hook blocks Claude Code obeys
// before it overrides the next one and ends the turn.
const DefaultBlockCap = 8

// blockCap reads CLAUDE_CODE_STOP_HOOK_BLOCK_CAP; 0 means no cap.
func blockCap(env Env) int {
	v := env.Getenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")
	if v == "" {
		return DefaultBlockCap
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return DefaultBlockCap
	}
	if n <= 0 {
		return 0
	}
	return n
}

// session is an open transaction on a project's loop: the lock is held from
// load to save, so no other hook or `plansmith cancel` interleaves.
type session struct {
	paths  state.Paths
	file   *state.File
	unlock func()
	dirty  bool
}

// openLoop loads the loop that belongs to in's session, or returns nil when
// there is nothing for this hook to do: no state file, an inactive loop, or
// another session's loop. A corrupt file is moved aside with a one-line
// reason on stderr. An unbound loop is bound to this session.
func openLoop(in Input, env Env) *session {
	if !stateExists(in, env) {
		return nil // the common case outside a loop: no lock, no work
	}
	p := ProjectPaths(in, env)
	unlock, err := state.Lock(p)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: %v\n", err)
		return nil
	}
	f, err := state.Load(p.State())
	var corrupt *state.CorruptError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		unlock()
		return nil
	case errors.As(err, &corrupt):
		dst, aerr := state.ArchiveRaw(p, state.ExitCorrupt, env.Now())
		if aerr != nil {
			fmt.Fprintf(env.Stderr, "plansmith: %v; could not move it aside: %v\n", err, aerr)
		} else {
			fmt.Fprintf(env.Stderr, "plansmith: %v; loop deactivated, file kept at %s\n", err, p.Rel(dst))
		}
		unlock()
		return nil
	case err != nil:
		fmt.Fprintf(env.Stderr, "plansmith: reading %s: %v\n", p.State(), err)
		unlock()
		return nil
	}
	if !f.Loop.Active {
		unlock()
		return nil
	}
	s := &session{paths: p, file: f, unlock: unlock}
	switch {
	case f.Loop.SessionID == "" && in.SessionID != "":
		f.Loop.SessionID = in.SessionID
		s.dirty = true
	case f.Loop.SessionID != "" && in.SessionID != f.Loop.SessionID:
		unlock()
		return nil
	}
	return s
}

// stateExists says whether the project has a state file (or anything in
// its place) — the cheap check before any lock or transcript is touched.
func stateExists(in Input, env Env) bool {
	_, err := os.Lstat(ProjectPaths(in, env).State())
	return err == nil
}

// close saves the loop when it changed and releases the lock.
func (s *session) close(env Env) {
	if s.dirty {
		if err := state.Save(s.paths.State(), s.file); err != nil {
			fmt.Fprintf(env.Stderr, "plansmith: %v\n", err)
		}
	}
	s.unlock()
}
