package hooks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/principles"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Stop is the phase machine's hook: it judges the agent's last answer for
// the current phase and either blocks the stop with the next instructions,
// pauses before Claude Code's block cap, or ends the loop and saves the plan.
// It returns the JSON answer, or nil to let the stop happen silently.
func Stop(in Input, env Env) any {
	if !stateExists(in, env) {
		return nil
	}
	// Read the answer before taking the lock: a transcript can be large,
	// and cancel and PreToolUse wait on the lock meanwhile.
	msg, msgErr := lastMessage(in)
	s := openLoop(in, env)
	if s == nil {
		return nil
	}
	defer s.close(env)
	f := s.file
	if f.Loop.Paused {
		// The user decides when to resume; until then no reply is judged.
		return nil
	}
	if msgErr != nil {
		return noAnswer(s, msgErr, env)
	}
	s.dirty = true
	if gateAwaiting(f) {
		return gateReply(s, msg, env)
	}
	return advance(s, msg, env)
}

// noAnswer handles a Stop whose answer could not be read: an unreadable
// answer is not a wrong one, so nothing is judged and no retry is spent. The
// loop pauses with the phase's instructions held back, and the user is
// told why; their next message resumes it (see UserPromptSubmit).
func noAnswer(s *session, cause error, env Env) any {
	f := s.file
	cfg, prog := MachineConfig(f, loadMemory(s, env)), MachineProgress(f)
	f.Loop.Paused = true
	f.Loop.PausedReason = phases.Prompt(cfg, prog, "")
	s.dirty = true
	why := cause.Error()
	var na *NoAnswerError
	if errors.As(cause, &na) {
		why = na.Why
	}
	msg, err := templates.Render("messages/no-answer.md", map[string]any{
		"Label": phases.Label(cfg, prog),
		"Why":   why,
	})
	if err != nil {
		msg = "plansmith could not read the agent's last answer (" + why + "); the loop is paused: send any message to resume, or run /plansmith:cancel."
	}
	return &StopOutput{SystemMessage: strings.TrimSpace(msg)}
}

// advance runs one phase-machine step on msg and applies its outcome.
func advance(s *session, msg string, env Env) any {
	f := s.file
	cfg := MachineConfig(f, loadMemory(s, env))
	oc := phases.Step(cfg, MachineProgress(f), msg)
	problems := problemLines(oc.Problems)
	f.Loop.LastProblems = problems
	if oc.Passed {
		record(f, oc.Output)
	} else {
		f.Loop.RetriesTotal++
	}
	if oc.Decision != nil {
		setConverge(f, oc.Progress, oc.Decision)
	}
	switch oc.Kind {
	case phases.Block:
		setProgress(f, oc.Progress)
		return block(s, oc.Reason, env)
	case phases.Finalize:
		setProgress(f, oc.Progress)
		if f.Loop.Gate {
			return gateBegin(s, oc.Plan, env)
		}
		return finish(s, state.ExitCompleted, oc.Plan, nil, env)
	case phases.Exhausted:
		return finish(s, state.ExitRetriesExhausted, bestPlan(f, msg), problems, env)
	case phases.MaxPhases:
		setProgress(f, oc.Progress)
		return finish(s, state.ExitMaxPhases, bestPlan(f, msg), nil, env)
	case phases.Rethink:
		setProgress(f, oc.Progress)
		return finish(s, state.ExitRethink, bestPlan(f, msg), rethinkProblems(f, oc.Decision), env)
	}
	fmt.Fprintf(env.Stderr, "plansmith: unknown phase outcome %d\n", oc.Kind)
	return nil
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

// block continues the turn with reason, unless that would exceed Claude
// Code's consecutive-block cap: then the loop pauses and tells the user, and
// the next prompt resumes it (see UserPromptSubmit).
func block(s *session, reason string, env Env) any {
	f := s.file
	limit := blockCap(env)
	if limit > 0 && f.Loop.ConsecutiveBlocks >= limit {
		f.Loop.Paused = true
		f.Loop.PausedReason = reason
		msg, err := templates.Render("messages/paused.md", map[string]any{
			"Label": phases.Label(MachineConfig(f, ""), MachineProgress(f)),
			"Cap":   limit,
		})
		if err != nil {
			msg = "plansmith paused; send any message to resume, or run /plansmith:cancel."
		}
		return &StopOutput{SystemMessage: msg}
	}
	f.Loop.ConsecutiveBlocks++
	return &StopOutput{Decision: "block", Reason: reason}
}

func loadMemory(s *session, env Env) string {
	if !s.file.Loop.UseMemory {
		return ""
	}
	runs, err := memory.Load(s.paths.Memory())
	if err != nil {
		fmt.Fprintf(env.Stderr, "plansmith: %v (continuing without memory)\n", err)
		return ""
	}
	return memory.Render(runs)
}

func bestPlan(f *state.File, msg string) string {
	if p := f.BestPlan(); p != "" {
		return stripPromise(p)
	}
	return stripPromise(msg)
}
