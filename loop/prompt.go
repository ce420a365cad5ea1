package loop

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// PromptSubmit resumes a paused loop: the instructions the Stop held back
// go to the agent as context with the user's prompt. For a running loop it
// only resets the block count and reminds the agent which phase it is in.
// The cancel command's own prompt gets nothing: resuming the loop it ends
// would tell the agent to carry on with a phase in the same breath. It is
// recorded instead (Loop.CancelAsked), as the one thing that lets the agent
// run plansmith cancel while the loop keeps the session read-only; when it
// cannot be recorded, or the loop is one plansmith did not start here, the
// prompt's hook ends the loop itself (cancelHere, cancelForeign).
func PromptSubmit(env Env, ev PromptEvent) PromptOutcome {
	t, err := openSessionWith(env, ev.Session, bindUnbound, state.Load)
	var foreign *notStartedHere
	var unread *unreadState
	var away *movedAway
	if (errors.As(err, &foreign) || errors.As(err, &unread) || errors.As(err, &away)) && isCancelPrompt(ev.Prompt) {
		// A loop plansmith did not start here, or a state file it cannot
		// read, keeps tool calls read-only and records no permission for
		// the agent's plansmith cancel: the user's own /plansmith:cancel
		// ends it here (review AA4, BI2).
		what, why := "the loop plansmith did not start on this machine", "the loop was not started by plansmith on this machine"
		switch {
		case unread != nil: // review CI1: it was called foreign
			what, why = "the loop whose state file could not be read", "its state file cannot be read"
		case away != nil:
			what, why = "the loop started in a folder that is no longer there", "the loop records a folder that is no longer there"
		}
		return cancelForeign(env, ev.Session, what, why)
	}
	if errors.As(err, &unread) {
		return PromptOutcome{Message: unread.message()}
	}
	if away != nil {
		return PromptOutcome{Message: away.message()}
	}
	var moved *movedAside
	if errors.As(err, &moved) {
		return moved.told()
	}
	var lock *lockError
	if errors.As(err, &lock) {
		// The loop could not be read (another plansmith process holds the
		// lock): this prompt neither resumed it nor recorded a cancel, and
		// the user, told that a message resumes it, hears so (review BI3).
		if p, perr := env.Paths(ev.Session); perr == nil && heldWithoutLock(p, ev.Session) {
			text := strings.TrimSpace(templates.Show("messages/prompt-unread.md", map[string]any{
				"Why": plainError(err), "Cancel": isCancelPrompt(ev.Prompt)}))
			return PromptOutcome{Message: text, Context: text}
		}
	}
	if t == nil {
		return PromptOutcome{}
	}
	defer t.close(env)
	l := &t.file.Loop
	if isNotification(ev.Prompt) || !fromUser(ev.Source) || scheduled(l, ev.ID, ev.Prompt) {
		// The client's own turn for finished background work, a scheduled
		// task or any other prompt it injects, not the user's prompt: a
		// paused loop stays paused (the user decides when to resume), and
		// a cancel the user asked for stands (review AE1: each notification
		// resumed the loop and spent its retries; review CO3: a cron's
		// prompt did, and took back the user's /plansmith:cancel; the
		// client names no source for it, so the prompts the session's
		// Stop listed as scheduled are recognised by their text). It is
		// a new turn all the same, whose blocks the client counts from
		// zero (review AF4: the loop paused early, blaming the cap).
		if setAside(l, ev.ID, false) {
			// A new turn: the aside turn is over, even if its Stop came
			// while background work ran and judged nothing (review BM2).
			t.dirty = true
		}
		if l.Paused {
			return PromptOutcome{}
		}
		if endBlocks(l, ev.ID) {
			t.dirty = true
		}
		return PromptOutcome{Context: reminder(t)}
	}
	// Only the user's own prompt lets the agent end the loop (the policy's
	// plansmith-cancel rule); any other prompt takes that back.
	cancel := isCancelPrompt(ev.Prompt)
	// An aside is this session's turn; another session's prompt, or its
	// own aside, leaves it (reviews BP4, BR6).
	if l.CancelAsked != cancel {
		l.CancelAsked = cancel
		t.dirty = true
	}
	if setAside(l, ev.ID, isAsidePrompt(ev.Prompt) && !l.Paused) {
		t.dirty = true
	}
	if cancel {
		if err := t.save(); err != nil {
			return cancelHere(env, t, err)
		}
		return PromptOutcome{}
	}
	if isAsidePrompt(ev.Prompt) {
		// The user asks where the loop stands (or for help, or the
		// memory): the reply shows that, and is no phase answer (review
		// BI7: two status checks spent the retries and saved the status
		// text as the plan). A paused loop stays paused; a running one
		// lets this turn's Stop end it unjudged (Loop.AsideOf).
		if l.Paused {
			return PromptOutcome{}
		}
		if endBlocks(l, ev.ID) {
			t.dirty = true
		}
		return PromptOutcome{Context: templates.Show("messages/aside.md", map[string]any{"Label": label(t.file)})}
	}
	text := reminder(t)
	if l.Paused {
		text = templates.Show("messages/resume.md", map[string]any{"Label": label(t.file), "Reason": l.PausedReason})
	}
	// A new prompt starts a new turn: the agent's block count starts over.
	if endBlocks(l, ev.ID) {
		t.dirty = true
	}
	if l.Paused {
		// Each session's run ends at its own next turn (endBlocks above
		// for this one): another session's, mid-turn, goes on (review BR4:
		// clearing every count let a fork pass the client's cap).
		l.Paused, l.PausedReason = false, ""
		t.dirty = true
	}
	return PromptOutcome{Context: text}
}

// reminder is what a new turn of a running loop tells the model: the phase
// its next answer is checked as, or, while an observed assessment awaits
// its runs, what the gate has and still needs (gate.Pending).
func reminder(t *txn) string {
	l := &t.file.Loop
	if l.Gate && l.GateSession.Status == gate.StatusAwaiting && l.GateSession.Observed {
		// A plan that cannot be read is assessed afresh at the next Stop;
		// meanwhile no validator counts as given the critic's output.
		plan, _ := state.ReadOwned(filepath.Join(t.paths.Gate(), gate.PlanFile))
		return gate.Pending(l.GateSession, l.GateRuns, gate.Config{Dir: t.paths.Gate(), MaxAttempts: l.GateRetries, Observed: true}, label(t.file), string(plan))
	}
	return templates.Show("messages/reminder.md", map[string]any{"Label": label(t.file)})
}

// isNotification recognises the prompt Claude Code (2.1.330) submits on
// its own when background work it runs finishes: a sub-agent, a
// backgrounded shell, a monitor's event. The client tells the model it is
// no message from the user; the hooks see it as a prompt like any other.
func isNotification(prompt string) bool {
	return strings.HasPrefix(strings.TrimSpace(prompt), "<task-notification>")
}

// noteScheduled records session's scheduled prompts (StopEvent.Scheduled)
// as hashes, and reports whether that changed the loop.
func noteScheduled(l *state.Loop, session string, prompts []string) bool {
	if session == "" {
		return false
	}
	var hashes []string
	for _, p := range prompts {
		if h := promptHash(p); !slices.Contains(hashes, h) && len(hashes) < maxScheduled {
			hashes = append(hashes, h)
		}
	}
	if slices.Equal(hashes, l.Scheduled[session]) {
		return false
	}
	if len(hashes) == 0 {
		delete(l.Scheduled, session)
		if len(l.Scheduled) == 0 {
			l.Scheduled = nil
		}
		return true
	}
	if l.Scheduled == nil {
		l.Scheduled = map[string][]string{}
	}
	l.Scheduled[session] = hashes
	return true
}

// maxScheduled bounds how many scheduled prompts a session's record keeps.
const maxScheduled = 32

// scheduled reports whether prompt is one session's scheduled tasks submit.
func scheduled(l *state.Loop, session, prompt string) bool {
	return len(l.Scheduled[session]) > 0 && slices.Contains(l.Scheduled[session], promptHash(prompt))
}

// promptHash is a prompt's SHA-256, white space at its ends aside,
// shortened: the record needs to tell prompts apart, not keep them.
func promptHash(prompt string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(prompt)))
	return hex.EncodeToString(sum[:12])
}

// fromUser reports whether a prompt's source (PromptEvent.Source) may be
// a person's. Only the sources Claude Code documents for the turns it
// starts on its own are not: a source it adds later, or none said (older
// clients, Codex), is taken as the user's, so that no prompt a person
// types leaves a paused loop unresumable or a /plansmith:cancel unheard.
func fromUser(source string) bool {
	switch source {
	case "system", "loop_wakeup", "schedule_wakeup", "poll_event":
		return false
	}
	return true
}

// isCancelPrompt recognises the cancel slash command, as a plugin command
// (/plansmith:cancel) or as installed into settings (/plansmith-cancel).
func isCancelPrompt(prompt string) bool {
	_, ok := slashCommand(prompt, "cancel")
	return ok
}

// slashCommand reports whether prompt is plansmith's command name, as a
// plugin command (/plansmith:name) or as installed into settings
// (/plansmith-name), and gives its arguments.
func slashCommand(prompt, name string) (args string, ok bool) {
	p := strings.TrimSpace(prompt)
	for _, c := range []string{"/plansmith:" + name, "/plansmith-" + name} {
		rest, found := strings.CutPrefix(p, c)
		if found && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n') {
			return rest, true
		}
	}
	return "", false
}

// setAside records whether session's turn is an aside, and reports
// whether that changed anything.
func setAside(l *state.Loop, session string, aside bool) bool {
	i := slices.Index(l.AsideOf, session)
	switch {
	case aside && i < 0:
		l.AsideOf = append(l.AsideOf, session)
	case !aside && i >= 0:
		l.AsideOf = slices.Delete(l.AsideOf, i, i+1)
		if len(l.AsideOf) == 0 {
			l.AsideOf = nil
		}
	default:
		return false
	}
	return true
}

// isAsidePrompt recognises plansmith's own commands that only read, as
// plugin commands (/plansmith:status) or installed into settings
// (/plansmith-status): a turn that runs one is not a phase answer.
func isAsidePrompt(prompt string) bool {
	for _, name := range []string{"status", "help", "memory"} {
		if args, ok := slashCommand(prompt, name); ok {
			return !(name == "memory" && asksToClear(args))
		}
	}
	return false
}

// asksToClear is the memory command's one writing form: its argument
// names clear (commands/memory.md). Refused while a loop runs, it is no
// aside either; the turn goes on as any other.
func asksToClear(args string) bool {
	return strings.Contains(strings.ToLower(args), "clear")
}

// cancelHere ends the loop from the user's own /plansmith:cancel prompt
// when the permission it gives the agent cannot be recorded (why: a full
// disk, say): the agent's plansmith cancel would then be refused, and the
// user told to type the very command they typed (review X, F4). Archiving
// renames the state file, which needs no room on the disk.
func cancelHere(env Env, t *txn, why error) PromptOutcome {
	env.note("%v", why)
	l := &t.file.Loop
	req, at, blocks := l.Request, label(t.file), l.BlockTools
	dst, err := t.archive(state.ExitCancelled, env.Now())
	if err != nil && stillActive(t.paths) {
		env.note("%v", err)
		return PromptOutcome{Message: notCancelled(plainError(why), &NotEndedError{Label: at, ReadOnly: blocks,
			State: t.paths.Rel(t.paths.State()), Err: err})}
	}
	archive, notArchived := "", ""
	if err != nil {
		// Ended all the same, marked ended in place (review BT3: the user
		// was told the loop could not be ended).
		env.note("%v", err)
		notArchived = plainError(err)
	} else {
		archive = t.paths.Rel(dst)
	}
	text := templates.Show("messages/cancelled-here.md", map[string]any{
		"Why": plainError(why), "Archive": archive, "NotArchived": notArchived, "Request": templates.OneLine(req, 120)})
	return PromptOutcome{Context: text, Message: text}
}

// notCancelled tells the user their /plansmith:cancel ended nothing: why
// it could not be recorded, why the loop could not be ended either, and,
// when the state file could not be written (a *NotEndedError), that the
// loop runs on and what makes a cancel work (review BT3: the user was sent
// to plansmith cancel in a terminal, which failed the same way).
func notCancelled(why string, err error) string {
	var stuck *NotEndedError
	data := map[string]any{"Why": why, "Err": plainError(err), "Stuck": errors.As(err, &stuck), "Label": "", "ReadOnly": false}
	if stuck != nil {
		data["Label"], data["ReadOnly"] = stuck.Label, stuck.ReadOnly
	}
	return templates.Show("messages/cancel-not-recorded.md", data)
}

// cancelForeign archives a loop plansmith did not start on this machine,
// or a state file it cannot read, or one that records a folder no longer
// there, at the user's own /plansmith:cancel; what names the loop, and why
// says why the cancel could not be recorded, for when it cannot be ended.
func cancelForeign(env Env, s Session, what, why string) PromptOutcome {
	p, err := env.Paths(s)
	if err == nil {
		var c Cancelled
		if c, err = Cancel(env, p); err == nil {
			text := templates.Show("messages/cancelled-foreign.md", map[string]any{"What": what, "Archive": c.Archive, "NotArchived": c.NotArchived})
			return PromptOutcome{Context: text, Message: text}
		}
	}
	env.note("%v", err)
	return PromptOutcome{Message: notCancelled(why, err)}
}
