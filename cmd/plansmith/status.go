package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/planmode"
	"github.com/plansmith/plansmith/templates"
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
				if !v.Active {
					// No loop, no settings: zero values would read as options.
					return enc.Encode(noLoopJSON{Message: "no planning loop is active", PlanModeGate: v.PlanModeGate})
				}
				return enc.Encode(v)
			}
			fmt.Fprint(env.Stdout, statusText(v))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON for scripts")
	return cmd
}

// statusText renders the status view for people (templates/cli/status.md).
func statusText(v loop.View) string {
	return templates.Show("cli/status.md", struct {
		loop.View
		SettingsFile string
	}{v, planmode.SettingsFile})
}

// noLoopJSON is `status --json` without an active loop.
type noLoopJSON struct {
	Active       bool                  `json:"active"`
	Message      string                `json:"message"`
	PlanModeGate loop.PlanModeGateView `json:"plan_mode_gate"`
}
