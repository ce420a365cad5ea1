package loop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/plans"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// stillUncovered is what the user is told the saved plan leaves uncovered
// when the gate failed: the findings the last assessment's record says its
// gaps miss (the record is of the plan saved); every earlier miss stays a
// lesson for memory (missed), not a hole in that plan (review AW1: a
// finding the last plan covered was listed as uncovered). Without a record
// (an assessment that failed closed) the misses are all there is to tell.
func stillUncovered(l *state.Loop, missed []string) []string {
	if l.GateRecord == nil {
		return missed
	}
	var out []string
	for _, u := range l.GateSession.Uncovered {
		out = append(out, gateMissLine(u))
	}
	return out
}

// gateNote is why the gate's last assessment failed when no finding says
// so: its outputs could not be read (review AX6: the message gave no
// reason).
func gateNote(l *state.Loop) string {
	if l.GateRecord == nil || l.GateRecord.Verified || len(l.GateSession.Uncovered) > 0 {
		return ""
	}
	return l.GateRecord.Note
}

// relayedVerdict reports whether meta's gate verdict rests on outputs the agent
// relayed (a client that reports no sub-agent runs), not on runs the hooks
// observed.
func relayedVerdict(meta state.PlanMeta) bool {
	rec, ok := meta.Gate.(*gate.Record)
	return ok && rec.Evidence == gate.EvidenceRelayed
}

// finish ends the loop: it saves the plan with its metadata, records the
// run's lessons in memory, archives the state file and tells the user what
// happened. The stop is allowed, so the agent can end its turn.
func (r *stop) finish(reason, plan string, problems []string) StopOutcome {
	f, p := r.f, r.t.paths
	now := r.env.Now()
	meta := state.PlanMeta{
		GeneratedAt:    now.UTC(),
		ExitReason:     reason,
		Request:        f.Loop.Request,
		SessionID:      f.Loop.SessionID,
		Phases:         f.Loop.Phases,
		PhasesRun:      phasesRun(f),
		Retries:        f.Loop.RetriesTotal,
		CritiqueRounds: f.Loop.CritiqueRounds,
		PrincipleFails: principleCounts(&f.Loop),
		Problems:       problems,
	}
	uncovered := gateMeta(&f.Loop, &meta, plan)
	convergeMeta(f, &meta)
	// What plansmith wrote is recorded out of the project, so that a plan a
	// repository carries is never taken for this one (plans.Latest).
	ledger := provenance.Open(r.env.Getenv("HOME"), p.Project)
	_, savedBefore := ledger.Recorded(p.Output()) // what is there now was a plan plansmith saved
	previous, err := state.SaveOutput(p, meta, plan, now)
	if err != nil {
		return r.keepPlan(plan, err)
	}
	var trouble []string
	unrecorded := func(err error) {
		r.env.note("%v", err)
		trouble = append(trouble, "plansmith could not record under your home that it wrote the plan ("+plainError(err)+"), so `plans` will mark it as not kept here")
	}
	if err := ledger.Record(p.Output(), now); err != nil {
		unrecorded(err)
	}
	// The plan is safe; an approved one is also kept in the project under a
	// readable name. Memory comes after the loop has ended, so that a
	// loop left active by a failed archive, finishing again, does not
	// record its lessons twice.
	kept, keepErr := "", ""
	if reason == state.ExitCompleted {
		var err, recordErr error
		if kept, recordErr, err = keepInProject(p, ledger, f.Loop.ID, meta, plan, now); err != nil {
			r.env.note("%v", err)
			keepErr = keepTrouble(p, err)
		} else if recordErr != nil && len(trouble) == 0 {
			unrecorded(recordErr)
		}
	}
	retireID(r.env, p, &f.Loop) // ended: its ID served (the archive keeps it in plain text)
	archived, err := r.t.archive(reason, now)
	ended := err == nil || !stillActive(p)
	switch {
	case err != nil && ended:
		r.env.note("%v", err)
		trouble = append(trouble, "the loop could not be archived: "+plainError(err))
	case err != nil:
		// Not even marked ended in place: the loop runs on, and the user
		// must hear it, or the next answer is judged as this plan again
		// with no word why (review DD11).
		r.env.note("%v", err)
		trouble = append(trouble, stillActiveTrouble(err))
	}
	if ended && f.Loop.UseMemory && reason != state.ExitCancelled {
		run := memory.Run{When: now.UTC(), Task: f.Loop.Request, Lessons: append(memory.Lessons(f, uncovered), convergeLessons(&f.Loop)...)}
		trouble = append(trouble, r.keepLessons(ledger, run, now)...)
	}
	archive, earlier := "", ""
	if archived != "" {
		archive = p.Rel(archived)
	}
	if previous != "" {
		earlier = p.Rel(previous)
	}
	msg := templates.Show("messages/finished.md", map[string]any{
		"Reason":    reason,
		"Output":    p.Rel(p.Output()),
		"Archive":   archive,
		"Phases":    len(meta.PhasesRun),
		"Retries":   meta.Retries,
		"Problems":  problems,
		"Uncovered": stillUncovered(&f.Loop, uncovered),
		"GateNote":  gateNote(&f.Loop),
		"Verified":  meta.Verified,
		// A pass on relayed outputs is not announced as a check plansmith
		// saw (review BU5).
		"Relayed":   relayedVerdict(meta),
		"Converge":  convergeLine(f),
		"Trouble":   trouble,
		"Kept":      kept,
		"KeepError": keepErr,
		"Previous":  earlier,
		// Only a plan plansmith saved is called one (review AN5: a
		// repository's file at that name was).
		"PreviousPlan": savedBefore || !ledger.Known(),
	})
	return StopOutcome{Kind: Finish, ExitReason: reason, Message: strings.TrimSpace(msg)}
}

// stillActiveTrouble tells the user that a finish could neither archive
// its loop nor mark it ended (err), so the loop runs on, and what to do:
// the agent's next answer is judged as the final plan again (review DD11).
// Codex has no slash command: there the command line is named once.
func stillActiveTrouble(err error) string {
	cancel := templates.Slash("cancel") + " (or `" + templates.CLI("cancel") + "` in a terminal)"
	if templates.Codex() {
		cancel = "`" + templates.CLI("cancel") + "` in a terminal"
	}
	return "the loop could not be archived, nor marked ended (" + plainError(err) + "), so it is still active and judges the agent's next answer as the final plan again. " +
		"Fix what is in the way, then ask the agent to send the plan again; or end the loop with " + cancel
}

// keepInProject keeps an approved plan in the project's plans folder under
// a readable name, beside the output file that holds "the latest", and
// records in the ledger that plansmith wrote it, for loop id. A loop whose
// archive failed stays active and finishes again: the file the ledger says
// it kept is taken for its plan, not kept twice (review CF2; without a
// home there is no ledger, and the plan is kept again, losing nothing). It
// returns the kept file relative to the project ("" when keeping is turned
// off), and an error recording it, apart from one keeping it.
func keepInProject(p state.Paths, ledger provenance.Ledger, id string, meta state.PlanMeta, plan string, now time.Time) (kept string, recordErr, err error) {
	cfg, err := plans.LoadConfig(p.Project)
	if err != nil {
		return "", nil, err
	}
	if cfg.Off {
		return "", nil, nil
	}
	doc, err := state.EncodePlan(meta, plan)
	if err != nil {
		return "", nil, err
	}
	keptBy := func(path string) string { return id + " " + p.Rel(path) }
	// Kept by this loop, and this very plan: a loop finishing again may
	// finish on a revised plan, which is kept beside the first (review
	// DD10: it was said to be kept at the first one's name).
	already := func(path string) bool {
		return id != "" && ledger.HasID(keptIDKind, keptBy(path)) && keepsPlan(path, doc)
	}
	path, err := plans.Keep(p.Project, cfg, doc, meta.Request, now, already)
	if err != nil {
		return "", nil, err
	}
	recordErr = ledger.Record(path, now)
	if id != "" {
		if err := ledger.RecordID(keptIDKind, keptBy(path), now); err != nil && recordErr == nil {
			recordErr = err
		}
	}
	return p.Rel(path), recordErr, nil
}

// keepsPlan reports whether the kept plan at path holds the plan doc
// holds (the saved plan's text, after its frontmatter: the frontmatter of
// a second finish differs in its time).
func keepsPlan(path string, doc []byte) bool {
	_, body, ok := bytes.Cut(doc, []byte("\n---\n"))
	if !ok {
		return false
	}
	data, err := plainfile.Read(path, int64(len(doc))+1<<20)
	return err == nil && bytes.HasSuffix(data, append([]byte("\n---\n"), body...))
}

// keepTrouble says why the plan could not be kept in the project, naming
// the plans folder when the reason alone does not (review CO8: "no space
// left on device" and "permission denied" came without the folder, so the
// user could not tell what to free or make writable).
func keepTrouble(p state.Paths, err error) string {
	why := plainError(err)
	cfg, cerr := plans.LoadConfig(p.Project)
	if cerr != nil || cfg.Off || cfg.Dir == "" || strings.Contains(why, cfg.Dir) {
		return why
	}
	return cfg.Dir + ": " + why
}

// stillActive reports whether the state file still holds a running loop
// (after an archive that failed even to mark it inactive).
func stillActive(p state.Paths) bool {
	f, err := state.Load(p.State())
	return err == nil && f.Loop.Active
}

// keepPlan is the end of a loop whose plan could not be saved: nothing is
// archived and no memory is written. The plan's text goes to a recovery
// file when one can be written, and the loop stays active, paused where it
// was, so the user's next message has the agent answer again and plansmith
// saves it then. The user is told where the text is.
func (r *stop) keepPlan(plan string, cause error) StopOutcome {
	p, l := r.t.paths, &r.f.Loop
	r.env.note("%v", cause)
	stamp := r.env.Now().UTC().Format("20060102-150405")
	recovery := filepath.Join(p.Work(), "recovered-plan-"+stamp+".md")
	shown := p.Rel(recovery)
	if err := state.WriteOwned(recovery, []byte(plan+"\n")); err != nil {
		r.env.note("%v", err)
		// The project's .claude may be what cannot be written (read-only,
		// a link, a full disk there): the user's home may still take it
		// (review AH7: the plan was said to be nowhere else).
		recovery, shown = recoverAtHome(r.env, p, stamp, plan)
	}
	l.Paused = true
	l.PausedReason = phases.Prompt(config(l, ""), progress(r.f), "")
	r.t.dirty = true
	stateErr := r.t.save()
	if stateErr != nil {
		r.env.note("%v", stateErr)
	}
	r.t.ended = true // saved (or not) here: Stop's commit has nothing left to write
	data := map[string]any{
		"Output":   p.Rel(p.Output()),
		"Why":      plainError(cause),
		"Label":    label(r.f),
		"Recovery": "",
		"Paused":   stateErr == nil,
	}
	if recovery != "" {
		data["Recovery"] = shown
	}
	return StopOutcome{Kind: Pause, Message: strings.TrimSpace(templates.Show("messages/plan-not-saved.md", data))}
}

// recoverAtHome writes plan under the user's home, private to them
// (~/.claude/plansmith/recovered/STAMP-PROJECT-HASH.md, the hash of the
// project's path telling two folders of the same name apart: review AJ8),
// and returns its path twice (as written and as shown), or "" when there
// is no home or it cannot be written either.
func recoverAtHome(env Env, p state.Paths, stamp, plan string) (string, string) {
	home := env.Getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return "", ""
	}
	sum := sha256.Sum256([]byte(p.Project))
	name := stamp + "-" + filepath.Base(p.Project) + "-" + hex.EncodeToString(sum[:4]) + ".md"
	path := filepath.Join(home, ".claude", "plansmith", "recovered", name)
	err := os.MkdirAll(filepath.Dir(path), 0o700)
	if err == nil {
		err = state.WriteFileMode(path, []byte(plan+"\n"), 0o600)
	}
	if err != nil {
		env.note("%v", err)
		return "", ""
	}
	return path, path
}

func phasesRun(f *state.File) []string {
	var run []string
	for _, o := range f.Outputs() {
		run = append(run, o.Phase)
	}
	return run
}

func principleCounts(l *state.Loop) map[string]int {
	counts := map[string]int{}
	for _, pf := range l.PrincipleFails {
		counts[pf.Principle]++
	}
	return counts
}
