package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/hooks"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
)

// Status is what `plansmith status --json` prints.
type Status struct {
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
	Converge *hooks.ConvergeStatus `json:"converge,omitempty"`
	// PlanModeGate is the project's plan-mode gate switch; it applies with
	// or without a loop.
	PlanModeGate PlanModeGate `json:"plan_mode_gate"`
}

// PlanModeGate is the plan-mode gate's state in a project.
type PlanModeGate struct {
	State   string `json:"state"`             // on or off
	Source  string `json:"source"`            // the settings file, or "default"
	Problem string `json:"problem,omitempty"` // why the settings file was ignored
}

func planModeGateOf(project string) PlanModeGate {
	s, err := hooks.LoadPlanModeSetting(project)
	g := PlanModeGate{State: "on", Source: "default"}
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

func (g PlanModeGate) text() string {
	switch {
	case g.Problem != "":
		return fmt.Sprintf("Plan-mode gate: %s (%s; ignored, so the gate stays on)\n", g.State, g.Problem)
	case g.Source == "default":
		return fmt.Sprintf("Plan-mode gate: %s (default; plan_mode_gate: off in %s turns it off)\n", g.State, hooks.SettingsFile)
	}
	return fmt.Sprintf("Plan-mode gate: %s (set in %s)\n", g.State, g.Source)
}

func newStatusCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the loop's phase, progress, retries, pause and gate state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := env.paths()
			if err != nil {
				return err
			}
			f, err := state.Load(p.State())
			if errors.Is(err, fs.ErrNotExist) {
				f = nil
			} else if err != nil {
				return fmt.Errorf("%v\nRun 'plansmith cancel' to archive it", err)
			}
			st := statusOf(f)
			st.PlanModeGate = planModeGateOf(p.Project)
			if asJSON {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			fmt.Fprint(env.Stdout, st.text())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON for scripts")
	return cmd
}

func statusOf(f *state.File) Status {
	if f == nil || !f.Loop.Active {
		return Status{}
	}
	l := f.Loop
	cfg := hooks.MachineConfig(f, "")
	prog := hooks.MachineProgress(f)
	st := Status{
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
		Gate:              "off",
		BlockTools:        l.BlockTools,
		Memory:            l.UseMemory,
		CritiqueMode:      l.CritiqueMode,
		StartedAt:         l.StartedAt.Format("2006-01-02T15:04:05Z07:00"),
		LastProblems:      l.LastProblems,
	}
	if st.Phase == "" {
		st.Phase = phases.Label(cfg, prog)
	}
	if l.Gate {
		st.Gate = hooks.GateStatus(f)
	}
	st.Converge = hooks.Converge(f)
	return st
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

func (st Status) text() string {
	if !st.Active {
		return "plansmith: no planning loop is active.\n" + st.PlanModeGate.text()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "plansmith: planning loop active (started %s", st.StartedAt)
	if st.SessionID != "" {
		fmt.Fprintf(&b, ", session %s", st.SessionID)
	}
	b.WriteString(")\n")
	fmt.Fprintf(&b, "Request:  %s\n", memory.OneLine(st.Request, 100))
	pos := fmt.Sprintf("%d/%d", st.Position, st.Total)
	if st.Position > st.Total {
		pos = "past the last phase"
	}
	fmt.Fprintf(&b, "Progress: %s  (%s)\n", st.Progress, pos)
	fmt.Fprintf(&b, "Retries:  %d of %d in this phase, %d in total\n", st.Retries, st.MaxRetries, st.RetriesTotal)
	if st.Paused {
		b.WriteString("Paused:   yes — send any message in the session to resume, or run /plansmith:cancel\n")
	} else {
		fmt.Fprintf(&b, "Paused:   no (%d consecutive stop blocks)\n", st.ConsecutiveBlocks)
	}
	fmt.Fprintf(&b, "Gate:     %s\n", st.Gate)
	onOff := map[bool]string{true: "on", false: "off"}
	fmt.Fprintf(&b, "Options:  critique %s, memory %s, read-only tools %s\n", st.CritiqueMode, onOff[st.Memory], onOff[st.BlockTools])
	if c := st.Converge; c != nil {
		b.WriteString(convergeText(c))
	}
	for _, p := range st.LastProblems {
		fmt.Fprintf(&b, "Last check: %s\n", p)
	}
	b.WriteString(st.PlanModeGate.text())
	return b.String()
}

// convergeText is convergence mode's part of the status text: the team and
// what chose it, the ledger in one line, the last decision, and the active
// challenges.
func convergeText(c *hooks.ConvergeStatus) string {
	var b strings.Builder
	if c.Complexity != nil {
		fmt.Fprintf(&b, "Converge: complexity %d/16, %s team (next critique: %s)\n", *c.Complexity, c.Team, strings.Join(c.Perspectives, ", "))
	} else {
		fmt.Fprintf(&b, "Converge: complexity not assessed yet (after explore), %s team until then\n", c.Team)
	}
	fmt.Fprintf(&b, "Ledger:   %s\n", c.Summary)
	if c.Next != "" {
		fmt.Fprintf(&b, "Decision: %s — %s\n", c.Next, c.Reason)
	}
	for _, e := range c.Ledger {
		if e.Status == "OPEN" || e.Status == "UNRESOLVED" {
			fmt.Fprintf(&b, "  %s [%s, %s] %s\n", e.ID, e.Severity, e.Status, memory.OneLine(e.Claim, 90))
		}
	}
	return b.String()
}
