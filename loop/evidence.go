package loop

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/planmode"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Evidence for the gate: while an assessment waits for its sub-agents, the
// hooks report every sub-agent run (RecordSubagent) and the loop keeps the
// critic's and validator's, recognised by their prompts, in the state file
// (Loop.GateRuns); the Stop then judges those recorded outputs.

// RecordSubagent records a sub-agent run of the calling session's loop when
// its gate waits for the critic and validator: a launch whose prompt is the
// assessment's critic prompt, or starts with its validator prompt
// (gate.Prompts.Recognise), or a run's final output. Anything else changes
// nothing. It answers only when such a run could not be recorded (the
// project's lock could not be had): the run does not count, and the user
// and the agent are told so and what to do, rather than hear later that
// the run was never seen or was stopped.
func RecordSubagent(env Env, ev SubagentEvent) PromptOutcome {
	call := sessionPlanCall(env, ev.Session)
	wasCut := once(ev.WasCut)
	var planErr error
	switch {
	case ev.Steered:
		// Whatever the permission mode: the run may have been launched in
		// plan mode and be messaged after, or the other way round.
		planErr = planmode.RecordSteer(call, env.Stderr, ev.Resolved, ev.AgentID)
	case ev.PermissionMode == "plan":
		planErr = planmode.RecordRun(call, ev.Launched, gate.Run{AgentID: ev.AgentID, Name: ev.Name, Model: ev.Model, Requested: ev.Requested, AgentType: ev.AgentType,
			Background: ev.Background, Prompt: ev.Prompt, Done: ev.Done, Output: ev.Output, Cut: ev.Done && cutOf(wasCut), Unchecked: ev.Done && !checkedOf(wasCut)}, env.Stderr)
	}
	o := recordLoopRun(env, ev, wasCut)
	var unrecorded *planmode.UnrecordedError
	if o == (PromptOutcome{}) && errors.As(planErr, &unrecorded) {
		// The plan-mode gate's record could not be written: said as the
		// loop's gate says a run it could not record (review FB3).
		text := unrecorded.Message()
		return PromptOutcome{Context: text, Message: text}
	}
	return o
}

// recordLoopRun is RecordSubagent for the loop's gate.
func recordLoopRun(env Env, ev SubagentEvent, wasCut func() (bool, bool)) (out PromptOutcome) {
	p, err := env.Paths(ev.Session)
	if err != nil || !exists(p.State()) {
		return PromptOutcome{}
	}
	cut, checked, looked := false, true, false
	if ev.Done && ev.WasCut != nil && gateAwaits(p) {
		cut, checked = wasCut()
		looked = true
	}
	// Only the frontmatter changes; a sub-agent never binds the loop, and
	// never ends it: a state file LoadHead cannot read (its frontmatter has
	// grown past the limit with runs' outputs) stays for Stop, which reads
	// it whole, to carry on or end the loop, saying so.
	t, err := openSessionAs(env, ev.Session, leaveUnbound, state.LoadHead, keepCorrupt)
	if t == nil {
		var lock *lockError
		if errors.As(err, &lock) && ev.Steered {
			return noteSteer(env, p, ev, err)
		}
		if errors.As(err, &lock) {
			return unrecorded(p, ev, err)
		}
		return PromptOutcome{}
	}
	defer func() {
		err := t.commit()
		if err == nil {
			return
		}
		env.note("%v", err)
		if out != (PromptOutcome{}) {
			return
		}
		// Not saved (a full disk): what was recorded is lost. A message
		// to a run is noted beside the state, as when the lock could not
		// be had; lost in silence, the messaged critic counted once there
		// was room (review FB6). A run is said not to count.
		if ev.Steered {
			out = noteSteer(env, p, ev, err)
			return
		}
		out = unrecorded(p, ev, err)
	}()
	l := &t.file.Loop
	if !l.Gate || l.GateSession.Status != gate.StatusAwaiting {
		return PromptOutcome{}
	}
	if ev.Steered {
		var changed bool
		if l.GateRuns, changed = l.GateRuns.Steered(ev.Resolved, ev.AgentID); changed {
			t.dirty = true
		}
		return PromptOutcome{}
	}
	if !ev.Launched {
		if ev.Done {
			l.GateRuns = l.GateRuns.Finished(ev.AgentID, ev.Output)
			if looked {
				l.GateRuns = l.GateRuns.Checked(ev.AgentID, cut, checked)
			}
			t.dirty = true
		}
		return PromptOutcome{}
	}
	role := gatePrompts(t.paths, l.GateSession).Recognise(ev.Prompt)
	if role == "" {
		return PromptOutcome{}
	}
	l.GateRuns = l.GateRuns.Launched(gate.Run{
		Role: role, AgentID: ev.AgentID, Name: ev.Name, LaunchedBy: ev.ID, LaunchedAt: env.Now().UTC(), Model: ev.Model, Requested: ev.Requested, AgentType: ev.AgentType,
		Background: ev.Background, Prompt: ev.Prompt, Done: ev.Done, Output: ev.Output, Cut: cut,
	}, l.GateSession)
	if looked {
		// A look that told settles one that could not (its output's
		// SubagentStop, say, which came first).
		l.GateRuns = l.GateRuns.Checked(ev.AgentID, cut, checked)
	}
	t.dirty = true
	return PromptOutcome{}
}

// noteSteer keeps, without the lock, a message the agent sent a run that
// RecordSubagent could not record (err): dropped, it let the run count as
// evidence though the agent may have told it what to report (seen: a
// critic told "Report NO ISSUES FOUND" passed the gate). The next Stop
// applies it (appliedSteers). Only when even that fails are the agent and
// the user told.
func noteSteer(env Env, p state.Paths, ev SubagentEvent, err error) PromptOutcome {
	var names []string
	for _, n := range []string{ev.Resolved, ev.AgentID} {
		if n = oneLine(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return PromptOutcome{}
	}
	// Appended, not read and written again: the hooks of messages sent at
	// once wait out the lock together, and lost each other's notes.
	werr := state.AppendOwned(p.Steers(), []byte(strings.Join(names, "\t")+"\n"))
	if werr == nil {
		env.note("%v; the message to %s is noted in %s for the gate", err, names[0], p.Rel(p.Steers()))
		return PromptOutcome{}
	}
	env.note("%v; noting the message to %s: %v", err, names[0], werr)
	text := strings.TrimSpace(templates.Show("gate/unrecorded.md", map[string]any{
		"What": "message", "Role": "", "AgentID": names[0], "Why": plainError(err), "Held": heldLock(err)}))
	return PromptOutcome{Context: text, Message: text}
}

// appliedSteers applies the messages noteSteer kept to runs
// (gate.Runs.Steered), and returns the note as it read it (nil when there
// is none); the caller holds the lock, and removes what it applied
// (doneSteers) once the runs it changed are saved: removed before, a Stop
// whose state could not be saved (a full disk) forgot the message, and the
// messaged critic counted at the next (review FB4).
func appliedSteers(p state.Paths, runs gate.Runs) (gate.Runs, []byte) {
	b, err := state.ReadOwnedLimit(p.Steers(), 64<<10)
	if errors.Is(err, plainfile.ErrTooLarge) {
		// Larger than the notes of any session: which runs it names cannot
		// be read, so none is taken on its word (appended to since FB8, it
		// would otherwise never be applied, and its runs would count).
		for _, r := range runs {
			runs, _ = runs.Steered(r.AgentID)
		}
		return runs, []byte{}
	}
	if err != nil {
		return runs, nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		if names := strings.Split(line, "\t"); strings.TrimSpace(line) != "" {
			// noteSteer writes a name with its spaces run together (a tab
			// or a line break would break the note); a run's name matches
			// so too, or a run named "crit  a" messaged by that name
			// counted (review FH).
			for _, r := range runs {
				if r.Name != "" && r.Name != oneLine(r.Name) && slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, oneLine(r.Name)) }) {
					names = append(names, r.Name)
				}
			}
			runs, _ = runs.Steered(names...)
		}
	}
	return runs, b
}

// oneLine is name as noteSteer notes it: its words joined by one space.
func oneLine(name string) string { return strings.Join(strings.Fields(name), " ") }

// doneSteers removes from the note what appliedSteers applied. A hook that
// could not have the lock this Stop holds may have noted another message
// meanwhile: removed with the note, it was lost (review FB9). The note is
// taken whole, and what it holds beyond what was applied goes back.
func doneSteers(env Env, p state.Paths, applied []byte) {
	b, err := state.TakeOwned(p.Steers(), p.Steers()+".applied", 64<<10)
	if err != nil {
		env.note("%v", err)
	}
	rest := b
	if bytes.HasPrefix(b, applied) {
		rest = b[len(applied):]
	}
	if len(bytes.TrimSpace(rest)) == 0 {
		return
	}
	if err := state.AppendOwned(p.Steers(), rest); err != nil {
		env.note("%v", err)
	}
}

// unrecorded is what RecordSubagent says when it could not take the lock,
// or save what it recorded (err), to record ev: the state, read without
// the lock, decides whether ev was a run the loop's gate awaits (a launch
// it recognises, or an output of a run it knows as its critic or
// validator, or does not know yet: a foreground run's output comes before
// its launch). Anything else, as when recorded, is nothing to say.
func unrecorded(p state.Paths, ev SubagentEvent, err error) PromptOutcome {
	f, lerr := state.LoadHead(p.State())
	if lerr != nil || ev.Steered {
		return PromptOutcome{}
	}
	l := &f.Loop
	if !l.Active || elsewhere(l, p.Project) || l.SessionID != "" && !l.HeldBy(ev.Session.ID) || !l.Gate || l.GateSession.Status != gate.StatusAwaiting {
		return PromptOutcome{}
	}
	what, role := "output", gate.Role("")
	if ev.Launched {
		what, role = "launch", gatePrompts(p, l.GateSession).Recognise(ev.Prompt)
		if role == "" {
			return PromptOutcome{}
		}
		if ev.Done {
			what = "output"
		}
	} else {
		for _, r := range l.GateRuns {
			if r.AgentID == ev.AgentID {
				if r.Role == "" {
					return PromptOutcome{}
				}
				role = r.Role
			}
		}
	}
	text := strings.TrimSpace(templates.Show("gate/unrecorded.md", map[string]any{
		"What": what, "Role": string(role), "AgentID": ev.AgentID, "Why": plainError(err), "Held": heldLock(err)}))
	return PromptOutcome{Context: text, Message: text}
}

// heldLock reports whether err is the project's lock that another process
// held: what to wait for before running again, rather than a fault (a full
// disk) to fix.
func heldLock(err error) bool {
	var lock *lockError
	return errors.As(err, &lock)
}

// once is f called at most once, its answer kept; not cut, and checked,
// when f is nil.
func once(f func() (cut, checked bool)) func() (cut, checked bool) {
	called, c, ok := false, false, true
	return func() (bool, bool) {
		if !called && f != nil {
			c, ok = f()
		}
		called = true
		return c, ok
	}
}

func cutOf(f func() (bool, bool)) bool     { c, _ := f(); return c }
func checkedOf(f func() (bool, bool)) bool { _, ok := f(); return ok }

// gateAwaits reports, from the state's frontmatter read without the lock,
// whether the loop's gate awaits its runs.
func gateAwaits(p state.Paths) bool {
	f, err := state.LoadHead(p.State())
	return err == nil && f.Loop.Active && f.Loop.Gate && f.Loop.GateSession.Status == gate.StatusAwaiting
}

// gatePrompts gives the prompts of the assessment s awaits, to recognise
// its runs: made again from the plan under assessment, as Begin made them,
// while that file is still the plan s is bound to (its hashes). The prompt
// files beside it are the agent's to read, and, where tools are not
// blocked, to rewrite (review BU3: a critic prompt rewritten to ask for
// nothing made a muzzled critic count).
func gatePrompts(p state.Paths, s gate.Session) gate.Prompts {
	plan, err := state.ReadOwned(filepath.Join(p.Gate(), gate.PlanFile))
	if err != nil || gate.Stale(string(plan), s) {
		return gate.Prompts{}
	}
	return gate.PromptsOf(string(plan))
}

// SessionStart gives a session that comes back from compaction or a resume
// (Source "compact" or "resume") the loop's current instructions, so it
// still knows it is planning and what the phase asks. A session that
// continues a planning session under a new id (Source "fork": the same
// conversation; "clear": the same terminal, its conversation dropped) is
// held to the loop too (continueLoop) and gets the same instructions: the
// loop is neither left unguarded there nor left active unseen. Claude Code
// 2.1.197 reports a fork as "resume" under the parent's id, and its later
// hooks under the new one, so there a fork cannot be told apart and is not
// held. Other sources, other sessions' loops and no loop get nothing.
func SessionStart(env Env, ev SessionEvent) PromptOutcome {
	switch ev.Source {
	case "fork", "clear":
		if left := continueLoop(env, ev.Session, ev.Source); left == unjoined {
			return PromptOutcome{Message: strings.TrimSpace(templates.Show("messages/not-joined.md", nil))}
		} else if left != "" {
			// Said to the user: had this been the planning session (its
			// clear could not be told), its loop is no longer followed.
			return PromptOutcome{Message: strings.TrimSpace(templates.Show("messages/clear-not-held.md", map[string]any{"Label": left}))}
		}
	case "compact", "resume":
	default:
		return heldElsewhere(env, ev.Session)
	}
	if p, err := env.Paths(ev.Session); err != nil {
		return PromptOutcome{}
	} else if found, err := lookState(p); err == nil && !found {
		return PromptOutcome{}
	}
	t, err := openSessionWith(env, ev.Session, leaveUnbound, state.Load)
	var moved *movedAside
	if errors.As(err, &moved) {
		return moved.told()
	}
	var unread *unreadState
	if errors.As(err, &unread) {
		return PromptOutcome{Message: unread.message()}
	}
	var away *movedAway
	if errors.As(err, &away) {
		return PromptOutcome{Message: away.message()}
	}
	if t == nil {
		if ev.Source == "resume" {
			return heldElsewhere(env, ev.Session)
		}
		return PromptOutcome{}
	}
	defer t.close(env)
	l := &t.file.Loop
	var instructions string
	switch {
	case l.Paused:
		instructions = l.PausedReason
	case l.Gate && l.GateSession.Status == gate.StatusAwaiting && l.GateSession.Observed:
		// What the assessment has and still waits for, not its opening
		// instructions: a compacted agent told to run the critic launched
		// a second one beside the first (review BI8).
		instructions = reminder(t)
	case l.Gate && l.GateSession.Status == gate.StatusAwaiting:
		instructions = gate.Instructions(l.GateSession, gate.Config{
			Dir: t.paths.Gate(), MaxAttempts: l.GateRetries, Observed: l.GateSession.Observed})
	default:
		r := &stop{env: env, t: t, f: t.file}
		instructions = phases.Prompt(config(l, r.loadMemory()), progress(t.file), "")
	}
	text, err := templates.Render("messages/session-start.md", map[string]any{
		"Label":        label(t.file),
		"Source":       ev.Source,
		"Paused":       l.Paused,
		"Instructions": strings.TrimSpace(instructions),
	})
	if err != nil {
		env.note("%v", err)
		return PromptOutcome{}
	}
	return PromptOutcome{Context: strings.TrimSpace(text)}
}

// heldElsewhere tells a session starting in a project whose loop another
// session holds which loop runs there: that session may have ended (the
// user quit mid-plan), and nothing else would say so (review BI6: a loop
// left silently active, told only after a /clear). The state is only read.
func heldElsewhere(env Env, s Session) PromptOutcome {
	p, err := env.Paths(s)
	if err != nil || !exists(p.State()) {
		return PromptOutcome{}
	}
	f, err := state.LoadHead(p.State())
	if err != nil {
		return PromptOutcome{}
	}
	l := &f.Loop
	if !l.Active || l.SessionID == "" || l.HeldBy(s.ID) || s.ID == "" || l.Project == "" || elsewhere(l, p.Project) {
		return PromptOutcome{}
	}
	if s.continues(l) {
		// A Codex thread forked from the planning thread is held to its
		// loop (Session.ForkedFrom), not outside it.
		return PromptOutcome{}
	}
	// Only for a loop plansmith started here: a repository can carry a
	// state file, whose words must not reach the user as plansmith's
	// (review BR2).
	if ledger := provenance.Open(env.Getenv("HOME"), p.Project); !ledger.Known() || !ledger.HasID(loopIDKind, l.ID) && !ledger.HasID(heldIDKind, l.ID) {
		return PromptOutcome{}
	}
	holder := l.SessionID
	if !safeSessionID(holder) {
		holder = ""
	}
	return PromptOutcome{Message: strings.TrimSpace(templates.Show("messages/held-elsewhere.md",
		map[string]any{"Label": templates.OneLine(label(f), 120), "Holder": holder, "Agent": l.Agent}))}
}

// clearWindow is how long after a planning session's clear the session
// the clear starts may take the loop on: Claude Code runs the two hooks
// one after the other, tens of milliseconds apart.
const clearWindow = 2 * time.Minute

// A clear note (state.Paths.Cleared) says which session holding the loop
// was cleared, by which client process, and when: "SESSION PROCESS
// UNIXNANO". The process binds the clear to the session it starts: both
// hooks come from the same running Claude Code (the hook command execs the
// binary, so the client is its parent), and a /clear in another terminal
// of the project, however close in time, comes from another process
// (review P1, Q5); its start time tells apart processes of one pid in two
// containers sharing a checkout (review R). It is a file of its own,
// written without the project's lock: Claude Code gives SessionEnd hooks
// little time.
type clearNote struct {
	session string
	parent  string
	at      time.Time
}

func readClearNote(p state.Paths) (clearNote, bool) {
	b, err := state.ReadOwnedLimit(p.Cleared(), 512)
	if err != nil {
		return clearNote{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return clearNote{}, false
	}
	nanos, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return clearNote{}, false
	}
	return clearNote{session: f[0], parent: f[1], at: time.Unix(0, nanos)}, true
}

// SessionEnd notes, when the user clears a session that holds the loop
// (reason "clear"), that the session the same client starts next
// continues it (clearNote). Other ends change nothing: the loop waits for
// the session to be resumed.
func SessionEnd(env Env, ev SessionEvent) {
	if ev.Reason != "clear" || ev.ID == "" || env.parent() == "" {
		return
	}
	p, err := env.Paths(ev.Session)
	if err != nil || !exists(p.State()) {
		return
	}
	f, err := state.LoadHead(p.State())
	if err != nil {
		return
	}
	l := &f.Loop
	if !l.Active || !l.HeldBy(ev.ID) || elsewhere(l, p.Project) {
		return
	}
	note := []byte(fmt.Sprintf("%s %s %d\n", ev.ID, env.parent(), env.Now().UnixNano()))
	err = state.WriteOwned(p.Cleared(), note)
	if err != nil && state.ReclaimFile(p.Cleared()) {
		// A folder or link a repository carries at the note's name would
		// otherwise keep every clear from being handed on (review R3).
		err = state.WriteOwned(p.Cleared(), note)
	}
	if err != nil {
		env.note("noting the clear of session %s: %v", ev.ID, err)
	}
}

// unjoined is continueLoop's answer when the loop could not be read (the
// lock held): the session could not be joined to it.
const unjoined = "\x00unjoined"

// continueLoop holds session to the project's running loop when it belongs
// to another session (Loop.Continued): a fork (Claude Code names no
// parent, so any fork of a session in the project is taken to continue
// it), or a clear of a session that holds it, noted by SessionEnd just
// before in the same client (clearNote). A clear anywhere else in the
// project is left alone (that session is not planning), and continueLoop
// returns the running loop's label for SessionStart to say so.
func continueLoop(env Env, s Session, source string) (left string) {
	p, err := env.Paths(s)
	if err != nil || !exists(p.State()) {
		return ""
	}
	t, err := beginWith(p, false, state.Load)
	if err != nil {
		env.note("%v", err)
		if t != nil {
			t.commit()
		}
		var lock *lockError
		if errors.As(err, &lock) && activeWithoutLock(p) {
			// Not joined, and not held read-only: said, not left silent
			// (review BI3).
			return unjoined
		}
		return ""
	}
	defer t.close(env)
	if !t.active() {
		return ""
	}
	l := &t.file.Loop
	if l.SessionID == "" || l.HeldBy(s.ID) || s.ID == "" || elsewhere(l, p.Project) {
		return ""
	}
	if source == "clear" {
		n, ok := readClearNote(p)
		since := env.Now().Sub(n.at)
		if !ok || !l.HeldBy(n.session) || n.parent != env.parent() || since < 0 || since > clearWindow {
			return label(t.file)
		}
		if err := state.RemoveOwned(p.Cleared()); err != nil {
			env.note("%v", err)
			return label(t.file) // taken on once only
		}
	}
	l.Continued = append(l.Continued, s.ID)
	t.dirty = true
	return ""
}
