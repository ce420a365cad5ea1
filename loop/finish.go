package loop

import (
	"fmt"
	"strings"

	"github.com/plansmith/plansmith/internal/lazyre"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

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
	uncovered := gateMeta(&f.Loop, &meta)
	convergeMeta(f, &meta)
	var errs []error
	if err := state.SaveOutput(p, meta, plan, now); err != nil {
		errs = append(errs, err)
	}
	if f.Loop.UseMemory && reason != state.ExitCancelled {
		run := memory.Run{When: now.UTC(), Task: f.Loop.Request, Lessons: append(memory.Lessons(f, uncovered), convergeLessons(&f.Loop)...)}
		if err := memory.Append(p.Memory(), run); err != nil {
			errs = append(errs, err)
		}
	}
	archived, err := r.t.archive(reason, now)
	if err != nil {
		errs = append(errs, err)
	}
	for _, e := range errs {
		r.env.note("%v", e)
	}
	msg, err := templates.Render("messages/finished.md", map[string]any{
		"Reason":    reason,
		"Output":    p.Rel(p.Output()),
		"Archive":   p.Rel(archived),
		"Phases":    len(meta.PhasesRun),
		"Retries":   meta.Retries,
		"Problems":  problems,
		"Uncovered": uncovered,
		"Verified":  meta.Verified,
		"Converge":  convergeLine(f),
	})
	if err != nil {
		msg = fmt.Sprintf("plansmith: loop ended (%s); plan saved to %s.", reason, p.Rel(p.Output()))
	}
	return StopOutcome{Kind: Finish, ExitReason: reason, Message: strings.TrimSpace(msg)}
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

var promiseTag = lazyre.New(`(?s)<promise>.*?</promise>`)

// stripPromise removes completion-promise tags from a plan.
func stripPromise(s string) string {
	return strings.TrimSpace(promiseTag.ReplaceAllString(s, ""))
}
