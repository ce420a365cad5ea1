package loop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// txn is one transaction on a project's state file: it holds the project's
// lock from load to save (or archive), so no hook and no command
// interleaves with another. Every reader and writer of the state file goes
// through begin.
type txn struct {
	paths  state.Paths
	file   *state.File // nil when there is no state file
	unlock func()
	dirty  bool // file changed: save it at commit
	ended  bool // file archived (or moved aside): nothing to save
	// saved runs once the file is saved: what may only follow a change
	// that reached the disk (retireID after a bind).
	saved func()
}

// begin locks the project and loads its state file. With no state file,
// create decides: false returns a txn with a nil file without locking, so
// a project without a loop gets no .claude/plansmith folder; true takes the
// lock anyway, for a caller about to write one. A corrupt file comes back
// as a *state.CorruptError, and a symbolic link in the state file's place
// as a *state.LinkError, and a file that cannot be read at all as a plain
// error, each with the lock held (the caller moves it aside with
// archiveCorrupt, or refuses, and commits); a failure to lock, or a link
// among the folders, releases the lock and returns a nil txn.
func begin(p state.Paths, create bool) (*txn, error) {
	return beginWith(p, create, state.Load)
}

// beginWith is begin with the loader of the state file: state.Load, or
// state.LoadHead for a hook that needs only the frontmatter.
func beginWith(p state.Paths, create bool, load func(string) (*state.File, error)) (*txn, error) {
	t := &txn{paths: p, unlock: func() {}}
	if !create {
		switch found, err := lookState(p); {
		case err != nil:
			// A loop may run there: PreToolUse refuses on it, so the
			// hooks that speak say so, and cancel and status do not call
			// the project free of loops (review CI1).
			return nil, &unreadState{state: p.Rel(p.State()), why: err, unseen: true}
		case !found:
			return t, nil // the common case outside a loop: no lock, no work
		}
	}
	unlock, err := state.Lock(p)
	if err != nil {
		return nil, &lockError{err}
	}
	t.unlock = unlock
	f, err := load(p.State())
	var corrupt *state.CorruptError
	var link *state.LinkError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t, nil
	case errors.As(err, &corrupt):
		return t, err
	case errors.As(err, &link) && link.Path == p.State():
		return t, err // it names the file
	case errors.As(err, &link):
		unlock()
		return nil, err // a link among the folders: nothing there is plansmith's to move
	case err != nil:
		// The file itself cannot be read (permission denied, say): the
		// lock is kept for a caller that moves it aside (Cancel).
		return t, fmt.Errorf("reading %s: %w", p.State(), err)
	}
	t.file = f
	return t, nil
}

// lockError is a failure to take the project's lock (a *state.LockTimeoutError
// among others): nothing was read.
type lockError struct{ err error }

func (e *lockError) Error() string { return e.err.Error() }
func (e *lockError) Unwrap() error { return e.err }

// advised is the error for status and cancel, which the user runs: it says
// what to do, and not "run cancel", which needs the same lock.
func (e *lockError) advised(p state.Paths) error {
	var held *state.LockTimeoutError
	if errors.As(e.err, &held) {
		return fmt.Errorf("%w\nLet the plansmith command still running in this project finish (or stop it), then try again; to end the loop by hand, delete %s", e, p.Rel(p.State()))
	}
	return fmt.Errorf("%w\nMake the project's .claude/plansmith folder writable, then try again; to end the loop by hand, delete %s", e, p.Rel(p.State()))
}

// heldWithoutLock reads the state file without the lock, for a hook that
// could not take it, and reports whether the file is a running loop s must
// heed: one s holds, or one bound to no session yet, started in this
// project. A file it cannot read counts: nothing shows it is not one, and
// so does a call that names no session (review BI5), which may be the
// holder's.
func heldWithoutLock(p state.Paths, s Session) bool {
	f, err := state.LoadHead(p.State())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false
	case err != nil:
		return true
	}
	l := &f.Loop
	if !l.Active || elsewhere(l, p.Project) {
		return false
	}
	return l.SessionID == "" || s.ID == "" || l.HeldBy(s.ID) || s.continues(l)
}

// activeWithoutLock reads the state file without the lock and reports
// whether it may be a running loop of this project, whoever holds it.
func activeWithoutLock(p state.Paths) bool {
	f, err := state.LoadHead(p.State())
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return err != nil || f.Loop.Active && !elsewhere(&f.Loop, p.Project)
}

// lookState reports whether p's state file is there, and an error when that
// cannot even be told: a .claude folder that cannot be searched, a loop of
// links. Either way a loop may run there (stateFile, hasState).
func lookState(p state.Paths) (bool, error) {
	_, err := os.Lstat(p.State())
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return false, nil
	}
	return false, err
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// active reports whether the txn holds a running loop.
func (t *txn) active() bool { return t.file != nil && t.file.Loop.Active }

// commit saves the file when it changed and releases the lock.
func (t *txn) commit() error {
	defer t.unlock()
	return t.save()
}

// save writes the file when it changed, keeping the lock. An error means
// the state file on disk still holds what it held before.
func (t *txn) save() error {
	if !t.dirty || t.ended || t.file == nil {
		return nil
	}
	if err := state.Save(t.paths.State(), t.file); err != nil {
		return err
	}
	t.dirty = false
	if f := t.saved; f != nil {
		t.saved = nil
		f()
	}
	return nil
}

// archive ends the loop: the file, marked inactive with reason, moves to
// the archive folder. It returns the archived file's path.
func (t *txn) archive(reason string, now time.Time) (string, error) {
	t.ended = true
	return state.Archive(t.paths, t.file, reason, now)
}

// archiveCorrupt moves an unreadable state file aside, untouched (a link
// moves as a link; its target is never touched).
func (t *txn) archiveCorrupt(now time.Time) (string, error) {
	t.ended = true
	return state.ArchiveRaw(t.paths, state.ExitCorrupt, now)
}

// openSessionWith is the hooks' way in: the running loop that belongs to
// s, or nil when there is nothing to do — no state file, an inactive loop,
// another session's loop, or a loop recorded for another project folder (a
// state file committed to a repository and cloned elsewhere). A corrupt
// file is moved aside with a one-line note. An unbound loop (started
// without a session id) is bound to s only when bind is set: by the
// session's own Stop or prompt, never by a tool call, which any session
// may make; a tool call on an unbound loop is judged by it all the same.
// The caller commits a non-nil txn. load reads the state file. When a
// state file exists but could not be locked or read, it also returns why
// (noted on stderr already), for a caller that must tell the user.
func openSessionWith(env Env, s Session, bind binding, load func(string) (*state.File, error)) (*txn, error) {
	return openSessionAs(env, s, bind, load, moveCorrupt)
}

// binding says whether opening a session's loop binds an unbound one to
// the session: its own Stop or prompt does, a tool call or a sub-agent's
// run does not.
type binding bool

const (
	bindUnbound  binding = true
	leaveUnbound binding = false
)

// onCorrupt says what opening a session's loop does with a corrupt state
// file: moves it aside (the loop ends), or keeps it where it is, noted and
// returned as the error, for a hook that only adds to the loop (a
// sub-agent's run) and so never ends it.
type onCorrupt bool

const (
	moveCorrupt onCorrupt = true
	keepCorrupt onCorrupt = false
)

// openSessionAs is openSessionWith, saying what to do with a corrupt state
// file.
func openSessionAs(env Env, s Session, bind binding, load func(string) (*state.File, error), corruptFile onCorrupt) (*txn, error) {
	p, err := env.Paths(s)
	if err != nil {
		return nil, nil
	}
	t, err := beginWith(p, false, load)
	var corrupt *state.CorruptError
	switch {
	case errors.As(err, &corrupt) && corruptFile == keepCorrupt:
		env.note("%v; nothing recorded", err)
		t.commit()
		return nil, err
	case errors.As(err, &corrupt):
		dst, aerr := t.archiveCorrupt(env.Now())
		t.commit()
		if aerr != nil {
			env.note("%v; could not move it aside: %v", err, aerr)
			return nil, &unreadState{state: p.Rel(p.State()), why: fmt.Errorf("%w; it could not be moved aside: %w", corrupt.Err, aerr)}
		}
		env.note("%v; loop deactivated, file kept at %s", err, p.Rel(dst))
		return nil, &movedAside{err: corrupt, archive: p.Rel(dst)}
	case err != nil && t != nil:
		// The state file itself cannot be read: a link a repository
		// carries, a file left unreadable by another user. It may hold a
		// running loop, so tool calls stay refused; the user is told
		// (review BI2: every hook that speaks said nothing).
		env.note("%v", err)
		t.commit()
		return nil, &unreadState{state: p.Rel(p.State()), why: err}
	case err != nil:
		env.note("%v", err)
		return nil, err
	}
	if !t.active() {
		t.commit()
		return nil, nil
	}
	l := &t.file.Loop
	switch {
	case elsewhere(l, p.Project) && movedFrom(l, s):
		t.commit()
		return nil, &movedAway{state: p.Rel(p.State()), from: l.Project}
	case elsewhere(l, p.Project):
		t.commit()
		return nil, nil
	case l.SessionID == "" && s.ID != "" && bind == bindUnbound && l.Project == "":
		// plansmith plan records the folder it starts in; a loop that names
		// none was not started here (a repository can carry one), and is
		// not taken on.
		env.note("the loop in %s names no project folder; it was not started here and is left alone", p.Project)
		t.commit()
		return nil, &notStartedHere{} // the user is told, and /plansmith:cancel ends it (review AB3)
	case l.SessionID == "" && !startedHere(env, p, l):
		// Bound or not: a resumed session's context, a prompt's reminder
		// and a sub-agent's record are no more for such a loop than a Stop
		// is (review AA1: SessionStart handed its request to the agent).
		env.note("the loop in %s was not started by plansmith on this machine (a repository may carry its state file); it is left alone", p.Project)
		t.commit()
		return nil, &notStartedHere{}
	case l.SessionID == "" && s.ID != "" && bind == bindUnbound:
		l.SessionID = s.ID
		t.dirty = true
		// The ID is spent once the binding is on disk: a bind whose save
		// fails (a full disk) leaves the loop unbound, for a later Stop.
		t.saved = func() { retireID(env, p, l) }
	case l.SessionID != "" && !l.HeldBy(s.ID) && s.continues(l):
		// A fork of the planning session carries its conversation on: it
		// is held to the loop (review BK10: a forked Codex thread wrote
		// freely while the loop waited for a thread nobody used).
		if bind {
			l.Continued = append(l.Continued, s.ID)
			t.dirty = true
		}
	case l.SessionID != "" && s.ID == "":
		// A call that names no session may be the planning session's:
		// the caller says it could not tell (review BI4: a Stop was
		// dropped in silence).
		t.commit()
		return nil, errNoSession
	case l.SessionID != "" && !l.HeldBy(s.ID):
		t.commit()
		return nil, nil
	}
	return t, nil
}

// errNoSession is openSessionAs's answer for a call that names no session
// while a session holds the loop.
var errNoSession = errors.New("this hook input names no session, so plansmith could not tell whether it is the planning session's")

// plantedHere reports whether l, active in p's project and bound to no
// session, is a loop no session will take on: it names no project folder,
// or plansmith plan did not start it on this machine (startedHere). Its
// state file still holds the project read-only, so status and the tool
// policy's refusals say what it is (review AA10: they presented it as
// planning in progress).
func plantedHere(env Env, p state.Paths, l *state.Loop) bool {
	return l.SessionID == "" && (l.Project == "" || !startedHere(env, p, l))
}

// NotStartedHere is plantedHere for a caller with no Env (doctor): home is
// the user's home, where plansmith records the loops it started.
func NotStartedHere(home string, p state.Paths, l *state.Loop) bool {
	return plantedHere(Env{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}, p, l)
}

// startedHere reports whether plansmith plan started l on this machine and
// no session took it on yet (its ID is on record under the user's home,
// and not retired). Without a home to keep the record under, nothing can
// be told apart, and a loop is taken on as before.
func startedHere(env Env, p state.Paths, l *state.Loop) bool {
	ledger := provenance.Open(env.Getenv("HOME"), p.Project)
	return !ledger.Known() || ledger.HasID(loopIDKind, l.ID) && !ledger.HasID(retiredIDKind, l.ID)
}

// retireID records that l's ID has served: once a session holds the loop,
// or it ended unheld, no state file carrying that ID is to be taken on
// again. The archive keeps the ID in plain text, and a repository that
// commits it could plant it (review AA3).
func retireID(env Env, p state.Paths, l *state.Loop) {
	if l.ID == "" {
		return
	}
	if err := provenance.Open(env.Getenv("HOME"), p.Project).RecordID(retiredIDKind, l.ID, env.Now()); err != nil {
		env.note("%v", err)
	}
}

// movedFrom reports whether l, found in a folder it does not record, is
// held by s and records a folder that is no longer there: most likely the
// same project, moved or renamed while the loop ran. A state file a
// repository carries is held by no session of this machine's (session ids
// are random), so this never takes one for the session's own.
func movedFrom(l *state.Loop, s Session) bool {
	if l.Project == "" || l.SessionID == "" || s.ID == "" || !l.HeldBy(s.ID) {
		return false
	}
	_, err := os.Lstat(l.Project)
	return errors.Is(err, fs.ErrNotExist)
}

// movedAway is openSessionWith's error for a loop movedFrom describes: it is
// not run where its record names another folder, but its session is told
// (and its tool calls stay judged), not left with a loop that ended in
// silence (review CI4).
type movedAway struct {
	state string // the state file, relative to the project
	from  string // the folder the loop records
}

func (m *movedAway) Error() string {
	return fmt.Sprintf("the planning loop in %s was started in %s, which is no longer there; it is not run here", m.state, m.from)
}

// message is what the user is told.
func (m *movedAway) message() string {
	return strings.TrimSpace(templates.Show("messages/loop-moved.md", map[string]any{"State": m.state, "From": m.from}))
}

// elsewhere reports whether l was started in another folder than dir, the
// one its state file was found in: a state file committed to a repository
// and cloned. Such a loop is never run (a loop that names no folder is
// judged by its ID: startedHere).
func elsewhere(l *state.Loop, dir string) bool {
	return l.Project != "" && !namesDir(l.Project, dir)
}

// namesDir reports whether a loop's recorded project folder names dir. It
// must be absolute and mean the same folder to every process: "." or
// /proc/self/cwd would name whichever folder a hook runs in, so a state
// file a repository carries could claim any folder it is cloned to. So
// neither it nor what its links lead to may lie in /proc or /dev/fd (whose
// entries are per process); /dev/shm and the like are ordinary folders.
func namesDir(project, dir string) bool {
	if !filepath.IsAbs(project) {
		return false
	}
	paths := []string{project}
	if real, err := filepath.EvalSymlinks(project); err == nil {
		paths = append(paths, real)
	}
	for _, p := range paths {
		if plainfile.PerProcess(p) {
			return false
		}
	}
	return sameDir(project, dir)
}

// sameDir reports whether a and b name the same folder.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

// close commits a hook's txn; a failed save is a note, since a hook must
// answer whatever happens.
func (t *txn) close(env Env) {
	if err := t.commit(); err != nil {
		env.note("%v", err)
	}
}

// movedAside says that a state file could not be read and was moved aside,
// which ends its loop: the hook that did it tells the user (review X, F6:
// only stderr said so, which Claude Code does not show).
type movedAside struct {
	err     *state.CorruptError
	archive string
}

func (m *movedAside) Error() string { return m.err.Error() + "; moved aside to " + m.archive }

// told says so to the user and the model, from a hook that can speak to
// both (UserPromptSubmit, SessionStart): the loop they knew has ended, and
// the project is writable again (review AR2: only stderr said so).
func (m *movedAside) told() PromptOutcome {
	text := strings.TrimSpace(templates.Show("messages/state-moved-aside.md",
		map[string]any{"Why": plainError(m.err.Err), "Archive": m.archive}))
	return PromptOutcome{Message: text, Context: text}
}

// unreadState says that the state file exists but can be neither read nor
// moved aside: while it is there the tool calls stay refused (they cannot
// tell it holds no loop), so the hooks that speak tell the user what it is
// and how to end it, rather than nothing (review BI1, BI2).
type unreadState struct {
	state string // the state file, relative to the project
	why   error
	// unseen: the file cannot even be looked up (lookState), so no
	// command of plansmith's can move it aside either.
	unseen bool
}

func (u *unreadState) Error() string {
	if u.unseen {
		return fmt.Sprintf("the loop's state file %s cannot be looked up (%s): make the project's .claude folder readable and searchable (a link there must lead to a folder), then try again", u.state, plainError(u.why))
	}
	return u.why.Error()
}

// message is what the user is told.
func (u *unreadState) message() string {
	return strings.TrimSpace(templates.Show("messages/state-stuck.md", map[string]any{"State": u.state, "Why": plainError(u.why), "Unseen": u.unseen}))
}

// notStartedHere says that a session did not take on a loop that plansmith
// plan did not start on this machine: the Stop tells the user that it is
// there and how to clear it, never what it asks (a repository may have
// written that, review AN8).
type notStartedHere struct{}

func (n *notStartedHere) Error() string {
	return "the loop was not started by plansmith on this machine"
}
