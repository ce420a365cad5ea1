package loop

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/principles"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Options are a new loop's settings, checked by the caller (the phase
// sequence comes from phases.Sequence).
type Options struct {
	SessionID         string // the agent session to bind; "" binds the first hook's
	Request           string
	Phases            []string
	RefineIterations  int
	MaxPhases         int
	MaxRetries        int
	CritiqueMode      string // state.CritiquePrinciples, CritiqueOpen or CritiqueConverge
	UseMemory         bool
	ClearMemory       bool // erase the memory before starting
	BlockTools        bool
	RequiredSections  []string
	CompletionPromise string
	Gate              bool
	GateRetries       int
	Agent             string // "" for Claude Code, state.AgentCodex for Codex CLI
}

// Started is a loop Start wrote, with what the agent does first.
type Started struct {
	Loop   state.Loop
	Label  string // the first phase, e.g. "understand [1/8]"
	Prompt string // the first phase's instructions
	State  string // the state file, relative to the project
	// Shape is what the sequence will run (iterate after it, critiques,
	// whether --max-phases ends it before the final revise).
	Shape phases.Shape
	// Unenforced, set by the caller, says why no hook would check the loop
	// (install.Unenforced), "" when hooks are registered.
	Unenforced string
	// UnenforcedFix, set with Unenforced, says what to do when installing
	// would not help (a settings file turns every hook off); "" for the
	// usual advice.
	UnenforcedFix string
}

// loopIDKind is what the provenance ledger files loop IDs under, and
// retiredIDKind the IDs that served (retireID).
const (
	loopIDKind    = "loop"
	retiredIDKind = "loop-retired"
	// heldIDKind records a loop started already held by a session: never
	// one to take on (startedHere does not read it), but plansmith's own,
	// for what is said of it to other sessions (heldElsewhere).
	heldIDKind = "loop-held"
	// keptIDKind records which kept plan a loop's finish wrote
	// (keepInProject), so that finishing again keeps it once.
	keptIDKind = "loop-kept"
)

// ActiveError refuses to start a loop while another one runs.
type ActiveError struct {
	Label     string
	StartedAt time.Time
	// Codex marks a loop running in Codex CLI, whose users have no
	// /plansmith:cancel (review FA2).
	Codex bool
}

func (e *ActiveError) Error() string {
	if templates.Codex() || e.Codex {
		// The command line is the one way to cancel there.
		return fmt.Sprintf("a planning loop is already active (%s, started %s)\nRun `%s` to end it first",
			e.Label, e.StartedAt.Format("2006-01-02 15:04 UTC"), templates.CLI("cancel"))
	}
	return fmt.Sprintf("a planning loop is already active (%s, started %s)\nRun %s (or '%s') to end it first",
		e.Label, e.StartedAt.Format("2006-01-02 15:04 UTC"), templates.Slash("cancel"), templates.CLI("cancel"))
}

// Start writes a new loop's state file under the lock. It refuses while a
// loop runs (*ActiveError) or the state file is unreadable; a leftover
// inactive file is archived first, so nothing is lost.
func Start(env Env, p state.Paths, o Options) (Started, error) {
	l := state.Loop{
		Active:            true,
		SessionID:         o.SessionID,
		StartedAt:         env.Now().UTC(),
		Request:           o.Request,
		Project:           p.Project,
		Phases:            o.Phases,
		RefineIterations:  o.RefineIterations,
		MaxPhases:         o.MaxPhases,
		MaxRetries:        o.MaxRetries,
		CritiqueMode:      o.CritiqueMode,
		UseMemory:         o.UseMemory,
		BlockTools:        o.BlockTools,
		RequiredSections:  o.RequiredSections,
		CompletionPromise: o.CompletionPromise,
		Gate:              o.Gate,
		GateRetries:       o.GateRetries,
		Agent:             o.Agent,
	}
	store(&l, phases.Progress{}, nil)
	// The loop's ID goes on record under the user's home before the state
	// file exists: a session takes on only a loop this machine started
	// (review V3). Where there is a home and the record cannot be written,
	// no loop starts, rather than one no session would take on.
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return Started{}, err
	}
	l.ID = hex.EncodeToString(id[:])
	// A loop started for a session (/plansmith:plan passes its id) is held
	// from the start and never taken on by a Stop: its ID needs no record,
	// and a copy of it (the archive keeps it) is taken on by nothing
	// (review AB1).
	if l.SessionID == "" {
		if err := provenance.Open(env.Getenv("HOME"), p.Project).RecordID(loopIDKind, l.ID, env.Now()); err != nil {
			return Started{}, fmt.Errorf("%w (under $HOME: plansmith records there which loops it started, so that a state file a repository carries is never taken for one)", err)
		}
	} else if err := provenance.Open(env.Getenv("HOME"), p.Project).RecordID(heldIDKind, l.ID, env.Now()); err != nil {
		env.note("%v (other sessions will not be told of this loop)", err)
	}
	t, err := begin(p, true)
	if err != nil {
		if t != nil {
			t.commit()
		}
		var corrupt *state.CorruptError
		if errors.As(err, &corrupt) {
			return Started{}, fmt.Errorf("%v\nInspect it, then run '%s' to archive it before starting a new loop", err, templates.CLI("cancel"))
		}
		var lock *lockError
		var held *state.LockTimeoutError
		if errors.As(err, &lock) && !errors.As(err, &held) {
			return Started{}, notStarted(p, p.Work(), err) // the lock's folder or file could not be made
		}
		return Started{}, err
	}
	defer t.commit()
	if err := t.clearLeftover(); err != nil {
		var active *ActiveError
		if errors.As(err, &active) {
			return Started{}, err
		}
		// Said plainly: the archive's words alone read as a cancel (review
		// AN10).
		return Started{}, fmt.Errorf("no loop started: the previous loop's state file could not be moved to the archive (%w). Fix what is in the way, then run plan again", err)
	}
	// Messages to gate runs noted for an earlier loop (noteSteer) are no
	// business of this one: left, they marked this loop's first critic as
	// messaged when the agent gave it the same name (review FB10).
	if err := state.RemoveOwned(p.Steers()); err != nil {
		env.note("%v", err)
	}
	if o.ClearMemory {
		if err := memory.Clear(p.Memory()); err != nil {
			return Started{}, err
		}
	}
	// The body's copy of the request is for people reading the file (the
	// frontmatter's is the loop's): with "<!--" written as "&lt;!--", text
	// pasted into a request cannot read as one of the body's records
	// (review Q4: a fake draft record became the saved plan).
	body, err := templates.Render("cli/state-body.md", map[string]any{"Loop": l, "Principles": principles.All,
		"Request": strings.ReplaceAll(l.Request, "<!--", "&lt;!--")})
	if err != nil {
		return Started{}, err
	}
	f := &state.File{Loop: l, Body: body}
	if err := state.Save(p.State(), f); err != nil {
		return Started{}, notStarted(p, p.State(), err)
	}
	// The first prompt is explore's when the sequence starts there
	// (--skip-understand): it shows the memory as a Stop's would.
	mem := ""
	if len(l.Phases) > 0 && l.Phases[0] == phases.Explore {
		mem = shownMemory(env, p, &l)
	}
	cfg := config(&l, mem)
	return Started{
		Loop:   l,
		Label:  phases.Label(cfg, phases.Progress{}),
		Prompt: phases.Prompt(cfg, phases.Progress{}, ""),
		State:  p.Rel(p.State()),
		Shape:  phases.ShapeOf(l.Phases, l.MaxPhases),
	}, nil
}

// NotStartedError is Start's error when the new loop's files could not be
// written (a full disk, a read-only project): its message says that no
// loop was started, with the system's reason and what to do, rather than
// Go's chain of paths with a temporary file's name in it (review BT3).
type NotStartedError struct {
	Path string // the file or folder that could not be written, relative to the project
	Err  error
}

func (e *NotStartedError) Error() string {
	return strings.TrimSpace(templates.Show("cli/not-started.md", map[string]any{"Path": e.Path, "Why": plainError(e.Err)}))
}

func (e *NotStartedError) Unwrap() error { return e.Err }

func notStarted(p state.Paths, path string, err error) error {
	var link *state.LinkError
	if errors.As(err, &link) {
		return err // its own message says what to remove
	}
	return &NotStartedError{Path: p.Rel(path), Err: err}
}

// clearLeftover refuses while the txn holds a running loop, and archives
// an inactive one.
func (t *txn) clearLeftover() error {
	switch {
	case t.file == nil:
		return nil
	case t.active() && !elsewhere(&t.file.Loop, t.paths.Project):
		return &ActiveError{Label: label(t.file), StartedAt: t.file.Loop.StartedAt, Codex: t.file.Loop.Agent == state.AgentCodex}
	case t.active():
		// Another folder's loop, which no hook here runs (a repository
		// carried it): archived like a finished one, not a reason to
		// refuse (review V8).
		_, err := t.archive("elsewhere", t.file.Loop.StartedAt)
		return err
	}
	reason := t.file.Loop.ExitReason
	if reason == "" {
		reason = "inactive"
	}
	_, err := t.archive(reason, t.file.Loop.EndedAt)
	return err
}
