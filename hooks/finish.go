package hooks

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
// happened. The stop is allowed (no decision), so the agent can end its turn.
func finish(s *session, reason, plan string, problems []string, env Env) any {
	f := s.file
	now := env.Now()
	meta := state.PlanMeta{
		GeneratedAt:    now.UTC(),
		ExitReason:     reason,
		Request:        f.Loop.Request,
		SessionID:      f.Loop.SessionID,
		Phases:         f.Loop.Phases,
		PhasesRun:      phasesRun(f),
		Retries:        f.Loop.RetriesTotal,
		CritiqueRounds: f.Loop.CritiqueRounds,
		PrincipleFails: principleCounts(f),
		Problems:       problems,
	}
	uncovered := gateMeta(f, &meta)
	convergeMeta(f, &meta)
	var errs []string
	if err := state.SaveOutput(s.paths, meta, plan, now); err != nil {
		errs = append(errs, err.Error())
	}
	if f.Loop.UseMemory && reason != state.ExitCancelled {
		run := memory.Run{When: now.UTC(), Task: f.Loop.Request, Lessons: append(memory.Lessons(f, uncovered), convergeLessons(f)...)}
		if err := memory.Append(s.paths.Memory(), run); err != nil {
			errs = append(errs, err.Error())
		}
	}
	archived, err := state.Archive(s.paths, f, reason, now)
	if err != nil {
		errs = append(errs, err.Error())
	}
	s.dirty = false // archived: the state file must not be written back
	for _, e := range errs {
		fmt.Fprintf(env.Stderr, "plansmith: %s\n", e)
	}
	msg, err := templates.Render("messages/finished.md", map[string]any{
		"Reason":    reason,
		"Output":    s.paths.Rel(s.paths.Output()),
		"Archive":   s.paths.Rel(archived),
		"Phases":    len(meta.PhasesRun),
		"Retries":   meta.Retries,
		"Problems":  problems,
		"Uncovered": uncovered,
		"Verified":  meta.Verified,
		"Converge":  convergeLine(f),
	})
	if err != nil {
		msg = fmt.Sprintf("plansmith: loop ended (%s); plan saved to %s.", reason, s.paths.Rel(s.paths.Output()))
	}
	return &StopOutput{SystemMessage: strings.TrimSpace(msg)}
}

func phasesRun(f *state.File) []string {
	var run []string
	for _, o := range f.Outputs() {
		run = append(run, o.Phase)
	}
	return run
}

func principleCounts(f *state.File) map[string]int {
	counts := map[string]int{}
	for _, pf := range f.Loop.PrincipleFails {
		counts[pf.Principle]++
	}
	return counts
}

var promiseTag = lazyre.New(`(?s)<promise>.*?</promise>`)

// stripPromise removes completion-promise tags from a plan.
func stripPromise(s string) string {
	return strings.TrimSpace(promiseTag.ReplaceAllString(s, ""))
}
