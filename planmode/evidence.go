package planmode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

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

// UnrecordedError says that a run of the session's plan-mode gate, or a
// message to one, could not be recorded (Err: a full disk under the home,
// say): the run will not count, or a messaged run may count, and the agent
// must be told, not find out at ExitPlanMode (review FB3: only stderr,
// which the client does not show, said so).
type UnrecordedError struct {
	What    string    // "launch", "output" or "message"
	Role    gate.Role // the run's role, when known
	AgentID string
	Err     error
}

func (e *UnrecordedError) Error() string {
	return fmt.Sprintf("plan-mode gate: recording the %s of %s: %v", e.What, e.AgentID, e.Err)
}

func (e *UnrecordedError) Unwrap() error { return e.Err }

// Message tells the agent and the user what could not be recorded and what
// to do.
func (e *UnrecordedError) Message() string {
	return unrecordedMessage(map[string]any{"What": e.What, "Role": string(e.Role), "AgentID": e.AgentID, "Why": errText(e.Err)})
}

func unrecordedMessage(data map[string]any) string {
	data["Command"] = templates.Slash("gate")
	return strings.TrimSpace(templates.Show("gate/plan-unrecorded.md", data))
}

// errText is err's reason without Go's framing of the temporary file a
// write went through: "writing X: write X/.x.tmp-123: no space left on
// device" says "no space left on device" of X.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil {
		return pe.Err.Error()
	}
	return err.Error()
}

// RecordRun records a sub-agent run of a plan-mode session that has a plan
// (the plan index names it): a launch of the plan's critic or validator,
// recognised by its prompt and bound to the plan's hashes, or a run's final
// output (launched false). Anything else is left alone. A record that
// could not be written is an *UnrecordedError.
func RecordRun(c Call, launched bool, r gate.Run, notes io.Writer) error {
	if c.Home == "" || c.SessionID == "" || !On(c.Project, io.Discard) {
		return nil
	}
	folders, err := c.plansFolders()
	if err != nil {
		return nil
	}
	plan, ok := indexedPlan(c.Home, folders, c.SessionID)
	if !ok {
		return nil
	}
	defer lockRuns(c.Home)()
	rs := loadRuns(c.Home, c.SessionID)
	what, role := "output", gate.Role("")
	if launched {
		r.Role = planRole(plan, r.Prompt)
		if r.Role == "" {
			return nil
		}
		rs = rs.Launched(r, gate.PlanSession(plan))
		what, role = "launch", r.Role
		if r.Done {
			what = "output"
		}
	} else {
		for _, known := range rs {
			if known.AgentID == r.AgentID {
				role = known.Role
			}
		}
		rs = rs.Finished(r.AgentID, r.Output)
		if r.Cut || r.Unchecked {
			rs = rs.Checked(r.AgentID, r.Cut, !r.Unchecked)
		}
	}
	data, err := json.Marshal(rs)
	if err != nil {
		return nil
	}
	if err := state.WriteOwned(runsFile(c.Home, c.SessionID), data); err != nil {
		fmt.Fprintf(notes, "plansmith: plan-mode gate: %v\n", err)
		return &UnrecordedError{What: what, Role: role, AgentID: r.AgentID, Err: err}
	}
	return nil
}

// RecordSteer records a message the agent sent to a run of the session's
// plan-mode gate (gate.Runs.Steered): the run is no evidence. A record that
// could not be written is an *UnrecordedError: the run may count.
func RecordSteer(c Call, notes io.Writer, to ...string) error {
	if c.Home == "" || c.SessionID == "" {
		return nil
	}
	defer lockRuns(c.Home)()
	rs, changed := loadRuns(c.Home, c.SessionID).Steered(to...)
	if !changed {
		return nil
	}
	data, err := json.Marshal(rs)
	if err != nil {
		return nil
	}
	if err := state.WriteOwned(runsFile(c.Home, c.SessionID), data); err != nil {
		fmt.Fprintf(notes, "plansmith: plan-mode gate: %v\n", err)
		name := ""
		for _, n := range to {
			if name = strings.TrimSpace(n); name != "" {
				break
			}
		}
		return &UnrecordedError{What: "message", AgentID: name, Err: err}
	}
	return nil
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
