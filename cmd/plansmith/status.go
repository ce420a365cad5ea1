package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/planmode"
	"github.com/plansmith/plansmith/templates"
)

// statusOptions are the inputs of `plansmith status`.
type statusOptions struct{ JSON bool }

func newStatusCmd(env *Env) *cobra.Command {
	o := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the loop's phase, progress, retries, pause and gate state",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return runStatus(env, o) },
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON for scripts")
	return cmd
}

func runStatus(env *Env, o *statusOptions) error {
	p, err := env.LoopPaths()
	if err != nil {
		return err
	}
	v, err := loop.Status(*env, p)
	if err != nil {
		return err
	}
	loopNames(env, v.Agent)
	if o.JSON && !v.Active {
		// No loop, no settings: zero values would read as options.
		return printJSON(env, noLoopJSON{Message: "no planning loop is active", PlanModeGate: v.PlanModeGate})
	}
	if o.JSON {
		return printJSON(env, v)
	}
	fmt.Fprint(env.Stdout, statusText(v))
	return nil
}

// printJSON prints v as indented JSON, for --json.
func printJSON(env *Env, v any) error {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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
