package hooks

import (
	"fmt"
	"path/filepath"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
)

// The gap-coverage gate in the final revise. When the final revise passes
// its checks, gateBegin asks the agent to run the critic and validator
// sub-agents; the agent's next reply (their outputs) goes to gateReply. The
// plan under assessment is kept in .claude/plansmith/gate/plan.md, and the
// session's hashes bind the verdict to it.

func gateConfig(s *session) gate.Config {
	return gate.Config{Dir: s.paths.Gate(), MaxAttempts: s.file.Loop.GateRetries}
}

// gateAwaiting reports whether the loop waits for the sub-agents' outputs.
func gateAwaiting(f *state.File) bool {
	return f.Loop.Gate && f.Loop.GateSession.Status == gate.StatusAwaiting
}

// gateBegin starts an assessment of plan (the final revise, promise removed).
func gateBegin(s *session, plan string, env Env) any {
	return gateApply(s, gate.Begin(plan, s.file.Loop.GateSession, gateConfig(s)), plan, env)
}

// gateReply judges the agent's reply while an assessment is pending. A
// reply with neither output that passes as a final revise is a new plan: it
// is assessed afresh. Anything else is read as the sub-agents' outputs.
func gateReply(s *session, msg string, env Env) any {
	r := gate.SplitReply(msg)
	if !r.HasCritic && !r.HasValidator {
		cfg := MachineConfig(s.file, "")
		if len(phases.Validate(cfg, MachineProgress(s.file), msg)) == 0 {
			s.file.Loop.GateSession.Status = gate.StatusRevising
			return advance(s, msg, env)
		}
	}
	plan, err := state.ReadOwned(filepath.Join(s.paths.Gate(), gate.PlanFile))
	if err != nil {
		// The plan under assessment is gone: assess the latest plan again.
		fmt.Fprintf(env.Stderr, "plansmith: %v; starting a fresh assessment\n", err)
		best := bestPlan(s.file, "")
		s.file.Loop.GateSession.Status = gate.StatusNone
		return gateBegin(s, best, env)
	}
	return gateApply(s, gate.Assess(string(plan), msg, s.file.Loop.GateSession, gateConfig(s)), string(plan), env)
}

// gateApply carries out one gate step.
func gateApply(s *session, step gate.Step, plan string, env Env) any {
	f := s.file
	f.Loop.GateSession = step.Session
	if step.Action == gate.ActionRevise || step.Action == gate.ActionFail {
		for _, u := range step.Session.Uncovered {
			f.Loop.GateMissed = appendNew(f.Loop.GateMissed, fmt.Sprintf("%s (%s) %s: %s", u.Label(), u.Severity, u.Title, memory.OneLine(u.Description, 160)))
		}
	}
	switch step.Action {
	case gate.ActionRun:
		for name, content := range step.Files {
			if err := state.WriteOwned(filepath.Join(s.paths.Gate(), name), []byte(content)); err != nil {
				fmt.Fprintf(env.Stderr, "plansmith: %v\n", err)
			}
		}
		return block(s, step.Reason, env)
	case gate.ActionFix, gate.ActionRerun, gate.ActionRevise:
		return block(s, step.Reason, env)
	case gate.ActionPass:
		return finishGate(s, state.ExitCompleted, plan, step, env)
	case gate.ActionFail:
		return finishGate(s, state.ExitGateFailed, plan, step, env)
	}
	fmt.Fprintf(env.Stderr, "plansmith: unknown gate action %q\n", step.Action)
	return nil
}

func finishGate(s *session, reason, plan string, step gate.Step, env Env) any {
	if step.Record != nil {
		s.file.Loop.GateRecord = step.Record
	}
	if p, err := state.ReadOwned(filepath.Join(s.paths.Gate(), gate.PlanFile)); err == nil && plan == "" {
		plan = string(p)
	}
	return finish(s, reason, plan, nil, env)
}

// gateMeta puts the gate's verdict into the saved plan's metadata and
// returns the uncovered findings, which become memory lessons.
func gateMeta(f *state.File, meta *state.PlanMeta) []string {
	rec := f.Loop.GateRecord
	if rec == nil {
		if f.Loop.Gate {
			meta.Gate = map[string]string{"status": "not_run"}
		}
		return f.Loop.GateMissed
	}
	meta.Gate = rec
	meta.Verified = rec.Verified
	return f.Loop.GateMissed
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// GateStatus describes the gate for `plansmith status`.
func GateStatus(f *state.File) string {
	if !f.Loop.Gate {
		return "off"
	}
	gs := f.Loop.GateSession
	switch gs.Status {
	case gate.StatusAwaiting:
		return fmt.Sprintf("on — awaiting the critic and validator outputs (%d of %d failed assessments used)", gs.Attempts, f.Loop.GateRetries)
	case gate.StatusRevising:
		return fmt.Sprintf("on — assessment failed, waiting for a revised plan (%d of %d used; %d uncovered findings)", gs.Attempts, f.Loop.GateRetries, len(gs.Uncovered))
	}
	return fmt.Sprintf("on — runs after the final revise (%d assessments allowed)", f.Loop.GateRetries)
}
