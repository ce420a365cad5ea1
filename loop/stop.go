package loop

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/principles"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Stop is the phase machine at the end of the agent's turn: it judges the
// agent's last answer for the current phase and either blocks the stop with
// the next instructions, pauses before the agent's block cap, or ends the
// loop and saves the plan. Outside a loop of ev's session, and while the
// loop is paused, it lets the stop happen. An answer that cannot be read
// is not a wrong one: the loop pauses without judging anything.
func Stop(env Env, ev StopEvent) StopOutcome {
	if ev.AgentID != "" {
		return StopOutcome{} // a sub-agent's stop: not an answer
	}
	if ev.InFlight > 0 {
		// The agent waiting for its sub-agents: not an answer. Nothing is
		// judged and no retry is spent; their completion wakes the agent
		// and the loop goes on then.
		return whileRunning(env, ev)
	}
	p, err := env.Paths(ev.Session)
	if err != nil {
		return StopOutcome{}
	}
	if found, err := lookState(p); err == nil && !found {
		return StopOutcome{} // no loop: neither the lock nor the answer is touched
	}
	msg, behind, msgErr := readAnswer(env, p, ev)
	t, err := openSessionWith(env, ev.Session, bindUnbound, state.Load)
	var held *state.LockTimeoutError
	var lock *lockError
	var moved *movedAside
	var foreign *notStartedHere
	var unread *unreadState
	var away *movedAway
	switch {
	case errors.Is(err, errNoSession):
		return NotChecked(err.Error(), false)
	case errors.As(err, &unread):
		return StopOutcome{Kind: Pause, Message: unread.message()}
	case errors.As(err, &away):
		return StopOutcome{Kind: Pause, Message: away.message()}
	case errors.As(err, &foreign):
		return StopOutcome{Kind: Pause, Message: strings.TrimSpace(templates.Show("messages/not-started-here.md",
			map[string]any{"State": p.Rel(p.State())}))}
	case errors.As(err, &moved):
		return StopOutcome{Kind: Finish, ExitReason: state.ExitCorrupt, Message: moved.told().Message}
	case errors.As(err, &held):
		return NotChecked(plainError(err), true)
	case errors.As(err, &lock) && heldWithoutLock(p, ev.Session):
		// The lock cannot be had (a read-only disk, say): the loop stays
		// as it is, and the user hears of it rather than a turn that
		// ends as if planning were done (review P).
		return NotChecked(plainError(err), false)
	}
	// Other failures stay notes: the project could not be found, or the
	// lock's folder is a link leading out of it.
	if t == nil {
		return StopOutcome{}
	}
	if ev.SchedulesKnown && noteScheduled(&t.file.Loop, ev.Session.ID, ev.Scheduled) {
		t.dirty = true
	}
	if t.file.Loop.LastStop.Repeats(ev.Session.ID, msg, ev.Began, env.Now()) {
		// This turn's Stop, run by another of plansmith's hooks beside
		// this one (a plugin and a settings install), has judged this
		// answer already: its answer stands, and a second judgment would
		// judge it again as the next phase's, spend a retry and count a
		// second block (review BT1).
		t.close(env)
		return StopOutcome{}
	}
	if t.file.Loop.Paused {
		// The user decides when to resume; until then no reply is judged.
		t.close(env)
		return StopOutcome{}
	}
	if l := &t.file.Loop; ev.Session.ID != "" && setAside(l, ev.Session.ID, false) {
		// The turn answered one of plansmith's own reading commands
		// (PromptSubmit): it ends unjudged, once. Another session's Stop
		// is judged as ever (review BM3).
		t.dirty = true
		t.file.Loop.MarkStop(ev.Session.ID, msg, env.Now())
		if err := t.commit(); err != nil {
			env.note("%v", err)
		}
		return StopOutcome{}
	}
	if ev.ReportsRuns {
		// The client runs no sub-agent now (a Stop while one runs ended
		// above): a gate run whose output never came is over, and is not
		// waited for (review AD1).
		t.file.Loop.GateRuns, _ = t.file.Loop.GateRuns.Gone(ev.Session.ID, env.Now())
	}
	var steered []byte
	if len(t.file.Loop.GateRuns) > 0 {
		// Messages to runs noted while the lock was held (noteSteer).
		t.file.Loop.GateRuns, steered = appliedSteers(t.paths, t.file.Loop.GateRuns)
	}
	if ev.RunCut != nil && t.file.Loop.Gate && t.file.Loop.GateSession.Status == gate.StatusAwaiting {
		t.file.Loop.GateRuns = checkAgain(t.file.Loop.GateRuns, ev.RunCut)
	}
	before := label(t.file)
	t.dirty = true
	// An assessment begun on observed runs stays observed: one Stop whose
	// payload lacks the field that says the client reports runs must not
	// switch the gate to the outputs the reply pastes (review U4).
	observed := ev.ReportsRuns || t.file.Loop.GateSession.Observed
	r := &stop{env: env, t: t, f: t.file, cap: ev.BlockCap, observed: observed, session: ev.Session.ID, reportsRuns: ev.ReportsRuns, capSet: ev.BlockCapSet}
	var out StopOutcome
	switch {
	case msgErr != nil:
		out = r.noAnswer(msgErr)
	case r.gateAwaiting():
		out = r.gateReply(msg)
	case behind:
		out = r.answerBehind(msg)
	default:
		out = r.advance(msg)
	}
	t.file.Loop.MarkStop(ev.Session.ID, msg, env.Now())
	if err := t.commit(); err != nil {
		// What out announces (an advance, a retry) did not happen: the
		// state file still holds the loop as it was.
		env.note("%v", err)
		return saveFailed(before, err)
	}
	if steered != nil {
		doneSteers(env, t.paths, steered)
	}
	return out
}

// readAnswer reads the answer of ev's turn in p, before Stop takes the
// lock: a transcript can be large, and cancel and PreToolUse wait on the
// lock meanwhile. It is the last message, or, when that fails its phase,
// the whole of an answer the client cut, or the message brief mode sent.
// behind reports a failing answer read while the transcript was still
// behind (answerBehind); err is LastMessage's (noAnswer).
func readAnswer(env Env, p state.Paths, ev StopEvent) (msg string, behind bool, err error) {
	if ev.LastMessage != nil {
		msg, err = ev.LastMessage()
	}
	// An answer that fails its phase may be more than the final text
	// shows; the transcript is read, and each candidate judged, only then
	// (a 1 MiB answer takes tens of milliseconds to judge). Not for an
	// answer this Stop's other hook has judged already: against the phase
	// it moved on to it fails, and the transcript, which by then ends with
	// that hook's feedback, held it up for the whole of both waits (seen:
	// 4 s on every answer, plansmith registered as a plugin and in
	// settings).
	if err == nil && (ev.WholeMessage != nil || ev.SentMessage != nil) && !judgedAlready(p, ev, msg, env.Now()) && failsItsPhase(p, ev.Session, msg) {
		fails := true
		if ev.WholeMessage != nil {
			// Judged by its resumed part alone, a cut answer misses what
			// came before the cut (review CO6).
			if whole, ok := ev.WholeMessage(); ok {
				msg, fails = whole, failsItsPhase(p, ev.Session, whole)
			}
		}
		if fails && ev.SentMessage != nil {
			// In brief mode the answer is what the agent sent the user;
			// its final text ("Sent.", or the client's prompt for visible
			// output answered) is not (review CT). Taken only when it
			// passes: a progress note sent before a failing answer is not
			// the answer.
			if sent, ok := ev.SentMessage(); ok && !failsItsPhase(p, ev.Session, sent) {
				msg, fails = sent, false
			}
		}
		// A failing final text read while the transcript was still behind
		// may be only the end of the answer: not judged (answerBehind).
		behind = fails && ev.TranscriptBehind != nil && ev.TranscriptBehind()
	}
	return msg, behind, err
}

// checkAgain looks once more at the transcript of each run whose output
// its hooks could not check (gate.Run.Unchecked): by the Stop it has most
// likely caught up, and an honest run counts without being run again. One
// it still cannot tell stays no evidence.
func checkAgain(rs gate.Runs, look func(agentID, output string) (bool, bool)) gate.Runs {
	for _, r := range rs {
		if r.Unchecked && r.Done && !r.Cut && r.Output != "" {
			cut, checked := look(r.AgentID, r.Output)
			rs = rs.Checked(r.AgentID, cut, checked)
		}
	}
	return rs
}

// failsItsPhase reports whether msg, judged now as s's loop would judge
// it, fails its phase's checks. The state is only read, without the lock;
// a loop that would not judge msg as a phase answer (none, another
// session's, paused, an assessment awaiting its runs) says no.
func failsItsPhase(p state.Paths, s Session, msg string) bool {
	f, err := state.LoadHead(p.State())
	if err != nil {
		return false
	}
	l := &f.Loop
	if !l.Active || l.Paused || l.SessionID != "" && !l.HeldBy(s.ID) || l.Gate && l.GateSession.Status == gate.StatusAwaiting {
		return false
	}
	return len(phases.Validate(config(l, ""), progress(f), msg)) > 0
}

// judgedAlready reports, from the state read without the lock, whether
// ev's answer msg is one another of plansmith's hooks on the same Stop has
// judged (state.StopMark.Repeats); the lock decides again.
func judgedAlready(p state.Paths, ev StopEvent, msg string, now time.Time) bool {
	f, err := state.LoadHead(p.State())
	return err == nil && f.Loop.LastStop.Repeats(ev.Session.ID, msg, ev.Began, now)
}

// whileRunning answers a Stop while sub-agents run: nothing, unless
// the reply is an answer that would have passed the phase's checks, which
// would be lost in silence: the agent, not told, takes it as given, and
// the reply it makes when the work reports is judged in its place (review
// CO1: a final plan given while an explorer ran was dropped, the next
// reply spent the last retry, and that reply was saved as the plan). The
// agent is told that it was not taken. While the gate's runs go on, only
// a new version of the plan under assessment is such an answer (review
// AW2): the earlier version would be assessed and saved. The state is read
// without the lock, and locked only to count a block given; the block is
// left out where it could reach the client's block cap.
func whileRunning(env Env, ev StopEvent) StopOutcome {
	if ev.LastMessage == nil {
		return StopOutcome{}
	}
	msg, err := ev.LastMessage()
	if err != nil || strings.TrimSpace(msg) == "" {
		return StopOutcome{}
	}
	p, err := env.Paths(ev.Session)
	if err != nil || !exists(p.State()) {
		return StopOutcome{}
	}
	f, err := state.LoadHead(p.State())
	if err != nil {
		return StopOutcome{}
	}
	l := f.Loop
	s := l.GateSession
	awaiting := l.Gate && s.Status == gate.StatusAwaiting
	if !l.Active || l.Paused || !l.HeldBy(ev.Session.ID) || elsewhere(&l, p.Project) || slices.Contains(l.AsideOf, ev.Session.ID) ||
		awaiting && (!phases.MentionsPromise(msg) || gate.Assessed(phases.PlanText(msg), s)) ||
		ev.BlockCap > 0 && blocksOf(&l, ev.Session.ID)+1 >= ev.BlockCap {
		return StopOutcome{}
	}
	// An answer, as the phase's checks read one: a waiting message is not
	// (review AX4: nor one that mentions the promise). A cut answer is
	// read whole, as Stop reads it (review CS: judged by its resumed part,
	// a whole plan given while an explorer ran was dropped in silence,
	// the CO1 loss again).
	if len(phases.Validate(config(&l, ""), progress(f), msg)) > 0 {
		if ev.WholeMessage == nil {
			return StopOutcome{}
		}
		whole, ok := ev.WholeMessage()
		if !ok || awaiting && gate.Assessed(phases.PlanText(whole), s) || len(phases.Validate(config(&l, ""), progress(f), whole)) > 0 {
			return StopOutcome{}
		}
		msg = whole
	}
	// The block counts in the session's run, as the client counts it
	// (review BR5: uncounted, thirteen came in a row where the client
	// cuts the turn at nine); a block that cannot be counted is not given.
	t, err := beginWith(p, false, state.LoadHead)
	if err != nil {
		if t != nil {
			t.commit()
		}
		return StopOutcome{}
	}
	if t.file == nil || !t.file.Loop.HeldBy(ev.Session.ID) || t.file.Loop.LastStop.Repeats(ev.Session.ID, msg, ev.Began, env.Now()) {
		// A Stop of the same turn run again by another of plansmith's
		// hooks: the first one's block stands, counted once (review CB9).
		t.commit()
		return StopOutcome{}
	}
	setBlocks(&t.file.Loop, ev.Session.ID, blocksOf(&t.file.Loop, ev.Session.ID)+1)
	t.file.Loop.MarkStop(ev.Session.ID, msg, env.Now())
	t.dirty = true
	if err := t.commit(); err != nil {
		env.note("%v", err)
		return StopOutcome{}
	}
	if awaiting {
		return StopOutcome{Kind: Block, Reason: strings.TrimSpace(templates.Show("gate/while-running.md", nil))}
	}
	return StopOutcome{Kind: Block, Reason: strings.TrimSpace(templates.Show("messages/answer-while-running.md",
		map[string]any{"Label": label(f)}))}
}

// saveFailed is the answer when the loop's state could not be saved: the
// turn ends with the user told why, nothing is announced to the agent, and
// the loop stays where it was on disk (no retry spent). Blocking instead
// would only have the agent answer again into the same failing disk.
func saveFailed(at string, cause error) StopOutcome {
	msg := templates.Show("messages/save-failed.md", map[string]any{
		"Label": at,
		"Why":   plainError(cause),
	})
	return StopOutcome{Kind: Pause, Message: strings.TrimSpace(msg)}
}

// UnreadableStop answers a Stop whose input could not be read (err): where
// a loop's state file is, the user hears that this turn went unchecked
// (review X, F6: only stderr said so); elsewhere nothing.
func UnreadableStop(env Env, s Session, err error) StopOutcome {
	p, perr := env.Paths(s)
	if perr != nil {
		return StopOutcome{}
	}
	if found, lerr := lookState(p); lerr == nil && !found {
		return StopOutcome{}
	}
	return NotChecked("plansmith could not read this Stop's input ("+plainError(err)+")", false)
}

// NotChecked is the answer when the agent's last answer could not be
// checked (why says so): the turn ends with the user told (a loop they
// cannot see moving must not look finished), and the loop is as it was on
// disk. lockHeld adds what to do about another process holding the lock.
func NotChecked(why string, lockHeld bool) StopOutcome {
	msg := templates.Show("messages/state-unread.md", map[string]any{"Why": why, "Held": lockHeld})
	return StopOutcome{Kind: Pause, Message: strings.TrimSpace(msg)}
}

// stop is one Stop call on an open loop.
type stop struct {
	env Env
	t   *txn
	f   *state.File
	cap int
	// observed: the agent reports sub-agent runs, so the gate judges the
	// runs the hooks recorded (StopEvent.ReportsRuns).
	observed bool
	// session is the session whose Stop this is, and reportsRuns whether
	// its Stop says which sub-agents it runs (none, once here).
	session     string
	reportsRuns bool
	// capSet is StopEvent.BlockCapSet.
	capSet string
}

// noAnswer pauses the loop when the answer could not be read, holding the
// phase's instructions back and telling the user why; their next message
// resumes it (see PromptSubmit). Nothing is judged and no retry is spent.
func (r *stop) noAnswer(cause error) StopOutcome {
	l := &r.f.Loop
	cfg, prog := config(l, r.loadMemory()), progress(r.f)
	l.Paused = true
	l.PausedReason = phases.Prompt(cfg, prog, "")
	why := cause.Error()
	var na *NoAnswerError
	if errors.As(cause, &na) {
		why = na.Why
	}
	msg := templates.Show("messages/no-answer.md", map[string]any{
		"Label": phases.Label(cfg, prog),
		"Why":   why,
	})
	return StopOutcome{Kind: Pause, Message: strings.TrimSpace(msg)}
}

// answerBehind answers a final message that fails its phase's checks
// while the transcript that may hold the rest of the answer had not caught
// up when the wait for it ran out (StopEvent.TranscriptBehind): the
// resumed part of an answer cut at the output limit, or brief mode's
// "Sent.". Judged as it came, it spent a retry on what the agent may not
// have answered (a plan was told that the Goal and Steps it wrote were
// missing), and the last retry would have saved its tail as the plan. The
// agent is asked for the whole answer again and the user is told; nothing
// is recorded and no retry is spent. The block counts toward the client's
// cap, which bounds a transcript that never catches up (a pause).
func (r *stop) answerBehind(msg string) StopOutcome {
	l := &r.f.Loop
	cfg, prog := config(l, r.loadMemory()), progress(r.f)
	data := map[string]any{
		"Label":    phases.Label(cfg, prog),
		"Phase":    l.Phase,
		"Problems": problemLines(phases.Validate(cfg, prog, msg)),
		"Wait":     TranscriptWait.String(),
	}
	out := r.block(strings.TrimSpace(templates.Show("messages/answer-behind.md", data)))
	if out.Kind == Block {
		out.Message = strings.TrimSpace(templates.Show("messages/answer-behind-user.md", data))
	}
	return out
}

// TranscriptWait is how long an adapter waits for a transcript to catch
// up with the Stop it reads it for.
const TranscriptWait = 2 * time.Second

// advance runs one phase-machine step on msg and applies its outcome.
func (r *stop) advance(msg string) StopOutcome {
	l := &r.f.Loop
	oc := phases.Step(config(l, r.loadMemory()), progress(r.f), msg)
	problems := problemLines(oc.Problems)
	l.LastProblems = problems
	if oc.Passed {
		record(r.f, oc.Output)
		r.f.DropAttempt()
	} else {
		l.RetriesTotal++
		// The best text so far is the failed answer that came closest,
		// not the last one.
		r.f.KeepAttempt(oc.Output.Phase, oc.Missing(), msg)
	}
	if oc.Kind != phases.Exhausted {
		store(l, oc.Progress, oc.Decision)
	}
	switch oc.Kind {
	case phases.Block:
		return r.block(oc.Reason)
	case phases.Finalize:
		if l.Gate {
			return r.gateBegin(oc.Plan)
		}
		return r.finish(state.ExitCompleted, oc.Plan, nil)
	case phases.Exhausted:
		plan := bestPlan(r.f, msg)
		return r.finish(state.ExitRetriesExhausted, plan, problemsOf(plan, msg, problems))
	case phases.MaxPhases:
		return r.finish(state.ExitMaxPhases, bestPlan(r.f, msg), nil)
	case phases.Rethink:
		return r.finish(state.ExitRethink, bestPlan(r.f, msg), rethinkProblems(r.f, oc.Decision))
	}
	r.env.note("unknown phase outcome %d", oc.Kind)
	return StopOutcome{}
}

// record keeps a phase answer in the state body, and a critique's principle
// FAILs in the frontmatter for memory.
func record(f *state.File, o phases.Output) {
	f.AppendOutput(state.Output{Phase: o.Phase, Round: o.Round, Text: o.Text})
	if o.Phase == phases.Critique {
		f.Loop.CritiqueRounds++
		for _, v := range o.Verdicts {
			if v.Result == principles.Fail {
				f.Loop.PrincipleFails = append(f.Loop.PrincipleFails, state.PrincipleFail{Round: o.Round, Principle: principleName(v.ID), Note: v.Note})
			}
		}
	}
}

func principleName(id int) string {
	if p, ok := principles.ByID(id); ok {
		return p.Label() + " (" + p.Name + ")"
	}
	return fmt.Sprintf("P%d", id)
}

func problemLines(ps []phases.Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// block continues the turn with reason, unless that would reach the
// agent's block cap: then the loop pauses and tells the user, and the next
// prompt resumes it (see PromptSubmit).
func (r *stop) block(reason string) StopOutcome {
	l := &r.f.Loop
	n := blocksOf(l, r.session)
	if r.cap > 0 && n >= r.cap {
		l.Paused = true
		l.PausedReason = reason
		return StopOutcome{Kind: Pause, Message: templates.Show("messages/paused.md", map[string]any{
			"Label": label(r.f),
			"Cap":   r.cap,
			"Set":   r.capSet,
			// What the user sees last is the answer being held back on:
			// say what plansmith had to say about it (review AW5).
			"Held": templates.OneLine(strings.SplitN(strings.TrimSpace(reason), "\n", 2)[0], 200),
		})}
	}
	setBlocks(l, r.session, n+1)
	return StopOutcome{Kind: Block, Reason: reason}
}

// loadMemory is the memory the explore prompt shows (shownMemory).
func (r *stop) loadMemory() string { return shownMemory(r.env, r.t.paths, &r.f.Loop) }

// problemsOf says which text the last answer's problems are about when
// the plan saved is an earlier one (bestPlan): the saved plan's frontmatter
// listed them as its own (review AR3: "found 0 of 7 section headings" over
// a plan holding all seven).
func problemsOf(plan, msg string, problems []string) []string {
	if plan == phases.PlanText(msg) {
		return problems
	}
	out := make([]string, len(problems))
	for i, p := range problems {
		out[i] = "the last answer, not the plan saved: " + p
	}
	return out
}

// bestPlan is the text a loop ending early saves: the last plan that
// passed its checks, else the failed answer that missed the fewest checks
// (see state.File.KeepAttempt), else msg.
func bestPlan(f *state.File, msg string) string {
	if p := f.BestPlan(); p != "" {
		return phases.PlanText(p)
	}
	return phases.PlanText(msg)
}
