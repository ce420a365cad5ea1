package planmode

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Evidence for the plan-mode gate: the critic and validator runs a session's
// hooks observed while it planned, kept beside the plan index, one file per
// session. Maintain lets a pass verdict signal stand only when they judge
// to a pass on the plan as it stands (gate.JudgePlanRuns).

// runsFile is where sessionID's observed runs are kept.
func runsFile(home, sessionID string) string {
	return filepath.Join(home, PlanIndexDir, "runs-"+gate.IndexName(sessionID))
}

func loadRuns(home, sessionID string) gate.Runs {
	data, err := state.ReadOwned(runsFile(home, sessionID))
	if err != nil {
		return nil
	}
	var rs gate.Runs
	if json.Unmarshal(data, &rs) != nil {
		return nil
	}
	return rs
}

// RecordRun records a sub-agent run of a plan-mode session that has a plan
// (the plan index names it): a launch of the plan's critic or validator,
// recognised by its prompt and bound to the plan's hashes, or a run's final
// output (launched false). Anything else is left alone.
func RecordRun(c Call, launched bool, r gate.Run, notes io.Writer) {
	if c.Home == "" || c.SessionID == "" || !On(c.Project, io.Discard) {
		return
	}
	folders, err := c.plansFolders()
	if err != nil {
		return
	}
	plan, ok := indexedPlan(c.Home, folders, c.SessionID)
	if !ok {
		return
	}
	defer lockRuns(c.Home)()
	rs := loadRuns(c.Home, c.SessionID)
	if launched {
		r.Role = planRole(plan, r.Prompt)
		if r.Role == "" {
			return
		}
		rs = rs.Launched(r, gate.PlanSession(plan))
	} else {
		rs = rs.Finished(r.AgentID, r.Output)
		if r.Cut || r.Unchecked {
			rs = rs.Checked(r.AgentID, r.Cut, !r.Unchecked)
		}
	}
	data, err := json.Marshal(rs)
	if err != nil {
		return
	}
	if err := state.WriteOwned(runsFile(c.Home, c.SessionID), data); err != nil {
		fmt.Fprintf(notes, "plansmith: plan-mode gate: %v\n", err)
	}
}

// RecordSteer records a message the agent sent to a run of the session's
// plan-mode gate (gate.Runs.Steered): the run is no evidence.
func RecordSteer(c Call, notes io.Writer, to ...string) {
	if c.Home == "" || c.SessionID == "" {
		return
	}
	defer lockRuns(c.Home)()
	rs, changed := loadRuns(c.Home, c.SessionID).Steered(to...)
	if !changed {
		return
	}
	data, err := json.Marshal(rs)
	if err != nil {
		return
	}
	if err := state.WriteOwned(runsFile(c.Home, c.SessionID), data); err != nil {
		fmt.Fprintf(notes, "plansmith: plan-mode gate: %v\n", err)
	}
}

// planRole says which of the plan's sub-agents a prompt starts: the prompts
// `gate critic-prompt` and `gate validator-prompt` print for the plan as it
// stands, given unchanged (gate.Prompts.Recognise).
func planRole(plan, prompt string) gate.Role {
	return gate.PromptsOf(plan).Recognise(prompt)
}

// checkSignal returns content with a pass verdict signal turned into a fail
// when the session's observed runs do not pass the plan as it stands.
func checkSignal(content, home, sessionID string) string {
	m, err := gate.ParseMeta(content)
	if err != nil || m.Signal == nil || m.Signal.Status != "pass" {
		return content
	}
	if ok, why := gate.JudgePlanRuns(content, loadRuns(home, sessionID)); !ok {
		return gate.RejectSignal(content, "the pass signal does not stand: "+why+"; run "+templates.Slash("gate")+" again")
	}
	return content
}
