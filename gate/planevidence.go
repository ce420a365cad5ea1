package gate

import (
	"encoding/json"
	"strings"
)

// The plan-mode gate's evidence. /plansmith:gate runs the critic on the
// prompt `gate critic-prompt` prints and the validator on the one `gate
// validator-prompt` prints followed by the critic's output (PromptsOf the
// plan, as in a loop); the hooks record those runs for the session
// (Prompts.Recognise), and a pass verdict signal stands only when the runs
// they saw, bound to the plan and gaps as they are, judge to a pass
// (JudgePlanRuns). Otherwise the signal becomes a fail (RejectSignal)
// saying why.

// PlanSession is the assessment a plan-mode plan stands for: its hashes,
// awaiting its observed runs.
func PlanSession(plan string) Session {
	return Session{Status: StatusAwaiting, PlanHash: PlanHash(plan), GapsHash: GapsHash(plan), Observed: true}
}

// JudgePlanRuns judges the observed runs bound to plan as it stands. ok is
// true only when they give a pass; why says what is missing or wrong.
func JudgePlanRuns(plan string, runs Runs) (ok bool, why string) {
	cfg := Config{MaxAttempts: 1, Observed: true}
	step := AssessObserved(plan, "", runs, PlanSession(plan), cfg)
	switch step.Action {
	case ActionPass:
		return true, ""
	case ActionWait:
		return false, "a critic or validator run on this plan is still going"
	case ActionRerun:
		c, hasCritic, v, hasValidator := runs.Evidence(PlanSession(plan), cfg)
		switch {
		case !hasCritic:
			return false, planMissing(runs, RoleCritic, plan, cfg)
		case !hasValidator:
			return false, planMissing(runs, RoleValidator, plan, cfg)
		case !PromptsOf(plan).GaveCritic(v.Prompt, c):
			return false, "the validator was not given its prompt followed by the critic's output alone"
		}
		if _, err := ParseVerdict(v.Output); err != nil {
			return false, "the observed validator output could not be read"
		}
		return false, "the observed critic output could not be read"
	case ActionFail, ActionRevise:
		if step.Record != nil && len(step.Record.Uncovered) > 0 {
			labels := make([]string, len(step.Record.Uncovered))
			for i, f := range step.Record.Uncovered {
				labels[i] = f.Label()
			}
			return false, "the observed runs do not pass: uncovered " + strings.Join(labels, ", ")
		}
		return false, "the observed runs do not pass"
	}
	return false, "the plan cannot be assessed as it stands"
}

// planMissing says why role has no run on plan to judge.
func planMissing(runs Runs, role Role, plan string, cfg Config) string {
	if why := runs.missing(role, PlanSession(plan), cfg); why != "missing" {
		return problemOf(role, why)
	}
	return "plansmith's hooks saw no " + string(role) + " run on this plan in this session"
}

// RejectSignal turns a pass verdict signal in content into a fail with
// reason; content without a pass signal comes back unchanged.
func RejectSignal(content, reason string) string {
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		key, val := splitMeta(t)
		if key != metaSignal || !strings.HasPrefix(t, "<!--") {
			continue
		}
		var v Validation
		if json.Unmarshal([]byte(val), &v) != nil || v.Status != "pass" {
			continue
		}
		b, err := json.Marshal(Validation{Status: "fail", Reason: reason})
		if err != nil {
			continue
		}
		lines[i] = "<!-- " + metaSignal + string(b) + " -->"
	}
	return strings.Join(lines, "\n")
}
