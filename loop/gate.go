package loop

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// The gap-coverage gate in the final revise. When the final revise passes
// its checks, gateBegin asks the agent to run the critic and validator
// sub-agents; the agent's next stop goes to gateReply, which judges the
// runs the hooks recorded (RecordSubagent) or, from a client that cannot
// report runs, the outputs relayed in the reply. The
// plan under assessment is kept in .claude/plansmith/gate/plan.md, and the
// session's hashes bind the verdict to it.

func (r *stop) gateConfig() gate.Config {
	return gate.Config{Dir: r.t.paths.Gate(), MaxAttempts: r.f.Loop.GateRetries, Observed: r.observed}
}

// gateAwaiting reports whether the loop waits for the sub-agents' outputs.
func (r *stop) gateAwaiting() bool {
	l := &r.f.Loop
	return l.Gate && l.GateSession.Status == gate.StatusAwaiting
}

// gateBegin starts an assessment of plan (the final revise, promise removed).
// An earlier assessment's verdict no longer speaks for the plan.
func (r *stop) gateBegin(plan string) StopOutcome {
	r.f.Loop.GateRecord = nil
	return r.gateApply(gate.Begin(plan, r.f.Loop.GateSession, r.gateConfig()), plan)
}

// gateReply judges the agent's reply while an assessment is pending. A
// reply with neither output that passes as a final revise is a new plan: it
// is assessed afresh. Anything else is read as the sub-agents' outputs.
func (r *stop) gateReply(msg string) StopOutcome {
	l := &r.f.Loop
	rep := gate.SplitReply(msg)
	if !rep.HasCritic && !rep.HasValidator {
		if len(phases.Validate(config(l, ""), progress(r.f), msg)) == 0 && !r.samePlan(msg) {
			l.GateSession.Status = gate.StatusRevising
			return r.advance(msg)
		}
	}
	plan, err := state.ReadOwned(filepath.Join(r.t.paths.Gate(), gate.PlanFile))
	if err != nil {
		// The plan under assessment is gone: assess the latest plan again.
		r.env.note("%v; starting a fresh assessment", err)
		l.GateSession.Status = gate.StatusNone
		return r.gateBegin(bestPlan(r.f, ""))
	}
	if r.observed {
		// Judge the runs the hooks recorded, never the reply's copy of them.
		return r.gateApply(gate.AssessObserved(string(plan), msg, l.GateRuns, l.GateSession, r.gateConfig()), string(plan))
	}
	return r.gateApply(gate.Assess(string(plan), msg, l.GateSession, r.gateConfig()), string(plan))
}

// samePlan reports whether msg gives again the plan an observed assessment
// awaits runs for (its plan and gaps hash alike): not a new plan, so the
// runs recorded stand and the assessment goes on (review AW3: it began
// again, and a second critic run was needed).
func (r *stop) samePlan(msg string) bool {
	s := r.f.Loop.GateSession
	return r.observed && s.Observed && gate.Assessed(phases.PlanText(msg), s)
}

// gateApply carries out one gate step.
func (r *stop) gateApply(step gate.Step, plan string) StopOutcome {
	l := &r.f.Loop
	l.GateSession = step.Session
	if step.Action == gate.ActionRevise || step.Action == gate.ActionFail {
		for _, u := range step.Session.Uncovered {
			l.GateMissed = appendNew(l.GateMissed, gateMissLine(u))
		}
	}
	switch step.Action {
	case gate.ActionRun:
		// The plan under assessment last: while it is missing, the next
		// Stop begins the assessment afresh, writing every file again.
		names := slices.DeleteFunc(slices.Sorted(maps.Keys(step.Files)), func(n string) bool { return n == gate.PlanFile })
		if _, ok := step.Files[gate.PlanFile]; ok {
			names = append(names, gate.PlanFile)
		}
		for _, name := range names {
			path := filepath.Join(r.t.paths.Gate(), name)
			if err := state.WriteOwned(path, []byte(step.Files[name])); err != nil {
				return r.gateUnwritable(path, err)
			}
		}
		return r.block(step.Reason)
	case gate.ActionFix, gate.ActionRerun, gate.ActionRevise:
		return r.block(step.Reason)
	case gate.ActionWait:
		if run, ok := l.GateRuns.Elsewhere(step.Session, r.session); ok && r.reportsRuns {
			// Another session's run: the wait may last RunGrace, and must
			// not be silent (review AR1).
			return StopOutcome{Kind: Pause, Message: gate.WaitingElsewhere(step.Session, r.gateConfig(), run)}
		}
		return StopOutcome{} // a run is still going: the agent is waiting, not answering
	case gate.ActionPass:
		return r.finishGate(state.ExitCompleted, plan, step)
	case gate.ActionFail:
		return r.finishGate(state.ExitGateFailed, plan, step)
	}
	r.env.note("unknown gate action %q", step.Action)
	return StopOutcome{}
}

// gateUnwritable pauses the loop when the gate's files cannot be written:
// the agent would be sent to run sub-agents on prompts that are not there,
// and each Stop would begin the assessment again, without end and with no
// word to the user (review AD2). The user hears why; their next message
// resumes the loop, and its next Stop finds the plan under assessment gone
// and writes the files again (gateReply).
func (r *stop) gateUnwritable(path string, err error) StopOutcome {
	l := &r.f.Loop
	r.env.note("%v", err)
	// An earlier assessment's plan file would be taken for this one's, and
	// the prompt files not written again (review AF3).
	if err := state.RemoveOwned(filepath.Join(r.t.paths.Gate(), gate.PlanFile)); err != nil {
		r.env.note("%v", err)
	}
	l.Paused = true
	l.PausedReason = strings.TrimSpace(templates.Show("messages/gate-files-retry.md", nil))
	return StopOutcome{Kind: Pause, Message: strings.TrimSpace(templates.Show("messages/gate-files-unwritable.md", map[string]any{
		"Why": r.t.paths.Rel(path) + ": " + plainError(err), "Label": label(r.f)}))}
}

func (r *stop) finishGate(reason, plan string, step gate.Step) StopOutcome {
	if step.Record != nil {
		r.f.Loop.GateRecord = step.Record
	}
	if p, err := state.ReadOwned(filepath.Join(r.t.paths.Gate(), gate.PlanFile)); err == nil && plan == "" {
		plan = string(p)
	}
	return r.finish(reason, plan, nil)
}

// gateMeta puts the gate's verdict on plan, the plan being saved, into its
// metadata and returns the uncovered findings, which become memory lessons.
// A verdict counts only for the plan it was given on: a record whose hashes
// name another plan (an earlier one passed, then the loop went on and ended
// otherwise), or one a loop without the gate holds, makes no claim (review
// V4: it was copied as it stood, verified: true included).
func gateMeta(l *state.Loop, meta *state.PlanMeta, plan string) []string {
	rec := l.GateRecord
	if rec != nil && (!l.Gate || rec.PlanHash != gate.PlanHash(plan) || rec.GapsHash != gate.GapsHash(plan)) {
		if l.Gate {
			meta.Gate = map[string]string{"status": "not_run", "reason": "the gate's last verdict was on another version of the plan"}
		}
		return l.GateMissed
	}
	if rec == nil {
		switch {
		case l.Gate && l.GateSession.Attempts > 0:
			// Assessments ran and failed (a failure that fails closed
			// leaves no record), and the loop ended before another: not
			// "not_run" (review AR3).
			meta.Gate = map[string]string{"status": "not_passed",
				"reason": fmt.Sprintf("%d assessment(s) failed, and the loop ended before another passed", l.GateSession.Attempts)}
		case l.Gate:
			meta.Gate = map[string]string{"status": "not_run"}
		case l.Agent == state.AgentCodex:
			meta.Gate = map[string]string{"status": GateUnavailableOnCodex, "reason": codexGateReason}
		}
		return l.GateMissed
	}
	meta.Gate = rec
	meta.Verified = rec.Verified
	return l.GateMissed
}

// gateMissLine is one finding a plan's gaps miss, as memory and the
// finishing message give it.
func gateMissLine(u gate.Finding) string {
	return fmt.Sprintf("%s (%s) %s: %s", u.Label(), u.Severity, u.Title, memory.OneLine(u.Description, 160))
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// gateLine describes the gate for the status view.
func gateLine(l *state.Loop) string {
	gs := l.GateSession
	_, critic, _, validator := l.GateRuns.Evidence(gs, gate.Config{MaxAttempts: l.GateRetries})
	return strings.TrimSpace(templates.Show("cli/gate-status.md", map[string]any{
		"Gate": l.Gate, "Status": string(gs.Status), "Attempts": gs.Attempts, "Max": l.GateRetries, "Uncovered": len(gs.Uncovered),
		"HasCritic": critic, "HasValidator": validator,
		"Codex": l.Agent == state.AgentCodex, "CodexStatus": GateUnavailableOnCodex, "CodexReason": codexGateReason,
	}))
}

// GateUnavailableOnCodex is the gate status a loop started for Codex CLI
// records: the gate is not run there, and the plan stays unverified.
const GateUnavailableOnCodex = "unavailable-on-codex"

// codexGateReason says why, in the saved plan and the status view.
const codexGateReason = "the gate runs its critic and validator as Claude Code sub-agents (the Agent tool); Codex offers no such tool to plansmith, so the plan was not assessed"
