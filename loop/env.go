package loop

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/state"
)

// Env is everything plansmith reads from or writes to its process: the
// streams, the environment, the working directory and the clock. The
// binary passes the real ones; tests and benchmarks pass their own. The
// loop itself writes only one-line notes to Stderr.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	Now    func() time.Time
	// Parent names the process that started this one (its pid and, where
	// the system tells, its start time): for a hook, the client's own
	// process (the hook command execs the binary), the same for every hook
	// of one running Claude Code. nil or "" reads as unknown.
	Parent func() string
	// Started tells when the operating system started this process, as a
	// bound never earlier than that: for a hook, when the client spawned
	// it, which on a loaded machine can be well before the process first
	// runs. Asked only by the Stop hook (reading it costs two files of
	// /proc); nil or a zero time reads as unknown.
	Started func() time.Time
}

// Began is when this hook call began, for telling the same Stop run twice
// (two of plansmith's hooks on one event, a plugin and a settings
// install, or Codex's project and user hooks) from a later one
// (StopMark.Repeats): when the process was started, where the system says
// (Started), else start, when the hook's work began. The client spawns the
// hooks of one event together, but on a loaded machine one of them can
// first run after the other has judged the answer and written the judgment
// (seen: 7 of 10 such pairs judged one answer twice, a retry spent on a
// good answer; review DB2).
func (e Env) Began(start time.Time) time.Time {
	if e.Started == nil {
		return start
	}
	if started := e.Started(); !started.IsZero() && started.Before(start) {
		return started
	}
	return start
}

// parent is e.Parent(), or "" when it is not known.
func (e Env) parent() string {
	if e.Parent == nil {
		return ""
	}
	return e.Parent()
}

// Paths locates the project: a hook's, from the cwd and session its input
// names (see hookProject); else a command's (see CommandProject):
// $CLAUDE_PROJECT_DIR, else the folder Claude Code runs the session in,
// found from its transcript, else the working directory.
func (e Env) Paths(s Session) (state.Paths, error) {
	if s.Cwd != "" {
		return state.Paths{Project: hookProjectOf(s.Cwd, e.Getenv("CLAUDE_PROJECT_DIR"), s)}, nil
	}
	p, err := e.CommandProject()
	if err != nil {
		return state.Paths{}, err
	}
	return state.Paths{Project: p.Dir}, nil
}

// hookProject is the project of a hook call whose input names cwd, the
// session's working directory. A `cd` in the Bash tool moves it: Claude
// Code then sends hooks the folder the agent went to (and runs them there)
// while $CLAUDE_PROJECT_DIR (project) still names the project; Codex sends
// its session's folder and sets no such variable. A loop must be found
// wherever in its project the session stands, or a `cd` would leave the
// read-only policy behind. So the project is looked for in cwd, each folder
// above it up to project, and project itself, and it is the first of them
// that holds a state entry — any entry, even one that cannot be checked or
// read, so that the caller refuses on it (fail closed). When more than one
// holds an entry, the nearest of the best kind comes first: the session's own
// running loop; then an entry that cannot be read (it may be that loop);
// then a running loop bound to no session that names its own folder as its
// project (plansmith plan writes it so), which the session's Stop may take
// on; then the nearest entry. So neither a finished loop's file left in a
// subfolder nor another session's loop, nor one a repository carries (it
// cannot name the folder it is cloned to), hides the session's loop above
// it: after a cd into that subfolder the session would otherwise be judged
// by a loop that is not its own, or by none. With no entry, it is
// project when cwd lies inside it (its settings are there), else cwd. The
// events with nothing to do without a loop start the binary only when
// hooks/hooks.json's shell check finds such an entry where this would look,
// or cannot tell; a change here needs one there (precheck_test.go holds the
// two together).
func hookProject(cwd, project, session string) string {
	return hookProjectOf(cwd, project, Session{ID: session})
}

// hookProjectOf is hookProject for s, whose fork's loop counts as its own
// (review BO5: a fork in a subfolder holding another state file was judged
// by that file).
func hookProjectOf(cwd, project string, s Session) string {
	if project == "" || !filepath.IsAbs(project) {
		// Codex names no project: its loops are kept at the checkout's
		// root (CodexProject), so they are looked for from cwd up to it.
		root := checkoutRoot(cwd)
		if root == "" || root == filepath.Clean(cwd) {
			return cwd
		}
		project = root
	}
	if !filepath.IsAbs(cwd) {
		// Claude Code sends an absolute cwd; anything else is malformed
		// input, which must not lead the hooks away from the project.
		return project
	}
	cwd, project = filepath.Clean(cwd), filepath.Clean(project)
	var look []string
	fallback := project
	rel, err := filepath.Rel(project, cwd)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		// Outside the project (a folder added with --add-dir, say).
		look, fallback = []string{cwd}, cwd
	} else {
		for dir := cwd; dir != project; dir = filepath.Dir(dir) {
			look = append(look, dir)
		}
	}
	var found []string
	for _, dir := range append(look, project) {
		if hasState(dir) {
			found = append(found, dir)
		}
	}
	switch len(found) {
	case 0:
		return fallback
	case 1:
		return found[0]
	}
	best, rank := found[0], rankOther
	for _, dir := range found {
		if r := loopRank(dir, s); r < rank {
			best, rank = dir, r
		}
	}
	return best
}

// The kinds of state entry hookProject prefers, best first.
const (
	rankOurs       = iota // the session's own running loop
	rankUnreadable        // cannot be read: may be the session's
	rankUnbound           // running, bound to no session, made in dir
	rankOther             // finished, or another session's or folder's
)

// loopRank is the kind of dir's state entry for session.
func loopRank(dir string, s Session) int {
	f, err := state.LoadHead(state.Paths{Project: dir}.State())
	switch {
	case err != nil:
		return rankUnreadable
	case !f.Loop.Active:
		return rankOther
	case f.Loop.SessionID != "":
		if (f.Loop.HeldBy(s.ID) || s.continues(&f.Loop)) && (f.Loop.Project == "" || namesDir(f.Loop.Project, dir)) {
			return rankOurs
		}
		return rankOther
	case f.Loop.Project != "" && namesDir(f.Loop.Project, dir):
		return rankUnbound
	}
	return rankOther
}

// hasState reports whether dir holds a loop's state entry, or one that
// cannot even be looked for (a loop may be running there).
func hasState(dir string) bool {
	return plainfile.Present(state.Paths{Project: dir}.State())
}

// note writes one line for the user on stderr, prefixed "plansmith: ".
func (e Env) note(format string, a ...any) {
	for i, v := range a {
		if err, ok := v.(error); ok {
			a[i] = plainfile.Message(err)
		}
	}
	fmt.Fprintf(e.Stderr, "plansmith: "+format+"\n", a...)
}
