package loop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/planmode"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// View is the project's loop as `plansmith status` shows it (and prints
// with --json): zero but for PlanModeGate when no loop is active.
type View struct {
	Active            bool     `json:"active"`
	SessionID         string   `json:"session_id,omitempty"`
	Request           string   `json:"request,omitempty"`
	Phase             string   `json:"phase,omitempty"`
	Position          int      `json:"position,omitempty"` // 1-based
	Total             int      `json:"total,omitempty"`
	Phases            []string `json:"phases,omitempty"`
	Progress          string   `json:"progress,omitempty"`
	Retries           int      `json:"retries"`
	MaxRetries        int      `json:"max_retries"`
	RetriesTotal      int      `json:"retries_total"`
	Paused            bool     `json:"paused"`
	ConsecutiveBlocks int      `json:"consecutive_blocks"`
	Gate              string   `json:"gate,omitempty"`
	BlockTools        bool     `json:"block_tools"`
	Memory            bool     `json:"memory"`
	CritiqueMode      string   `json:"critique_mode,omitempty"`
	StartedAt         string   `json:"started_at,omitempty"`
	LastProblems      []string `json:"last_problems,omitempty"`
	// Converge is convergence mode's state: complexity, team, ledger.
	Converge *ConvergeView `json:"converge,omitempty"`
	// PlanModeGate is the project's plan-mode gate switch; it applies with
	// or without a loop.
	PlanModeGate PlanModeGateView `json:"plan_mode_gate"`
	// Elsewhere names the folder an active state file here was started in,
	// when that is another folder: the hooks leave such a loop alone (a
	// repository can carry one), so it is no loop of this project's.
	Elsewhere string `json:"elsewhere,omitempty"`
	// NotStartedHere marks an active loop bound to no session that
	// plansmith plan did not start on this machine (a repository can carry
	// one): no session takes it on, and while it is there tool calls stay
	// read-only (when BlockTools).
	NotStartedHere bool `json:"not_started_here,omitempty"`
	// Moved marks an Elsewhere folder that is no longer there: the project
	// was moved or renamed, and the session that started the loop is still
	// held read-only by it (movedFrom), not left alone.
	Moved bool `json:"moved,omitempty"`
	// Agent is the agent the loop runs in: "" for Claude Code,
	// state.AgentCodex for Codex CLI, whose users are named commands as
	// Codex has them. Not read from a loop plansmith did not start here.
	Agent string `json:"agent,omitempty"`
}

// PlanModeGateView is the plan-mode gate's switch in a project.
type PlanModeGateView struct {
	State   string `json:"state"`             // on or off
	Source  string `json:"source"`            // the settings file, or "default"
	Problem string `json:"problem,omitempty"` // why the settings file was ignored
}

// Status reads the project's loop under the lock. An unreadable state file
// is an error that says how to clear it.
func Status(env Env, p state.Paths) (View, error) {
	t, err := begin(p, false)
	if t != nil {
		t.commit() // a view needs no lock past the load
	}
	var link *state.LinkError
	var unseen *unreadState
	var lock *lockError
	switch {
	case errors.As(err, &link) && link.Path != p.State():
		return View{}, linkedAway(p, link)
	case errors.As(err, &unseen) && unseen.unseen:
		return View{}, err // cancel cannot reach it either: its message says what to do
	case errors.As(err, &lock):
		return View{}, lock.advised(p)
	case err != nil:
		return View{}, fmt.Errorf("%v\nRun '%s' to archive it", err, templates.CLI("cancel"))
	}
	v := View{}
	switch {
	case t.active() && elsewhere(&t.file.Loop, t.paths.Project):
		v.Elsewhere = t.file.Loop.Project // review V8: it was shown as this project's loop
		v.Agent = t.file.Loop.Agent
		if _, err := os.Lstat(v.Elsewhere); errors.Is(err, fs.ErrNotExist) {
			v.Moved = true
		}
	case t.active() && plantedHere(env, t.paths, &t.file.Loop):
		// Nothing the file says is shown, in text or JSON: a repository
		// may have written it for the agent to read (review AF7).
		v = View{Active: true, NotStartedHere: true, BlockTools: t.file.Loop.BlockTools}
	case t.active():
		v = viewOf(t.file)
	}
	v.PlanModeGate = planModeGateView(p.Project)
	return v, nil
}

func viewOf(f *state.File) View {
	l := &f.Loop
	v := View{
		Active:            true,
		SessionID:         l.SessionID,
		Request:           l.Request,
		Phase:             l.Phase,
		Position:          l.PhaseIndex + 1,
		Total:             len(l.Phases),
		Phases:            l.Phases,
		Progress:          progressLine(l.Phases, l.PhaseIndex),
		Retries:           l.Retries,
		MaxRetries:        l.MaxRetries,
		RetriesTotal:      l.RetriesTotal,
		Paused:            l.Paused,
		ConsecutiveBlocks: l.ConsecutiveBlocks,
		Gate:              gateLine(l),
		BlockTools:        l.BlockTools,
		Memory:            l.UseMemory,
		CritiqueMode:      l.CritiqueMode,
		StartedAt:         l.StartedAt.Format("2006-01-02T15:04:05Z07:00"),
		LastProblems:      l.LastProblems,
		Converge:          convergeView(f),
		Agent:             l.Agent,
	}
	if v.Phase == "" {
		v.Phase = label(f)
	}
	return v
}

func planModeGateView(project string) PlanModeGateView {
	s, err := planmode.LoadSetting(project)
	g := PlanModeGateView{State: "on", Source: "default"}
	if !s.On {
		g.State = "off"
	}
	if s.Source != "" {
		g.Source = s.Source
	}
	if err != nil {
		g.Problem = err.Error()
	}
	return g
}

// progressLine shows the sequence with passed phases ticked and the current
// one bracketed.
func progressLine(seq []string, index int) string {
	parts := make([]string, 0, len(seq)+1)
	for i, name := range seq {
		switch {
		case i < index:
			parts = append(parts, name+" ✓")
		case i == index:
			parts = append(parts, "["+name+"]")
		default:
			parts = append(parts, name)
		}
	}
	if index >= len(seq) {
		parts = append(parts, "["+phases.Iterate+"]")
	}
	return strings.Join(parts, " → ")
}
