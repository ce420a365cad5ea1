package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/planmode"
)

func newStatusCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the loop's phase, progress, retries, pause and gate state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := paths(env)
			if err != nil {
				return err
			}
			v, err := loop.Status(*env, p)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			fmt.Fprint(env.Stdout, statusText(v))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON for scripts")
	return cmd
}

func planModeGateText(g loop.PlanModeGateView) string {
	switch {
	case g.Problem != "":
		return fmt.Sprintf("Plan-mode gate: %s (%s; ignored, so the gate stays on)\n", g.State, g.Problem)
	case g.Source == "default":
		return fmt.Sprintf("Plan-mode gate: %s (default; plan_mode_gate: off in %s turns it off)\n", g.State, planmode.SettingsFile)
	}
	return fmt.Sprintf("Plan-mode gate: %s (set in %s)\n", g.State, g.Source)
}

func statusText(st loop.View) string {
	if !st.Active {
		return "plansmith: no planning loop is active.\n" + planModeGateText(st.PlanModeGate)
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
	b.WriteString(planModeGateText(st.PlanModeGate))
	return b.String()
}

// convergeText is convergence mode's part of the status text: the team and
// what chose it, the ledger in one line, the last decision, and the active
// challenges.
func convergeText(c *loop.ConvergeView) string {
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
