package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

func newCancelCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel",
		Short: "End the active planning loop (safe to run when none is active)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := env.LoopPaths() // the loop the hooks enforce from here
			if err != nil {
				return err
			}
			return runCancel(env, p)
		},
	}
}

func runCancel(env *Env, p state.Paths) error {
	c, err := loop.Cancel(*env, p)
	if err != nil {
		return err
	}
	fmt.Fprint(env.Stdout, cancelText(c))
	return nil
}

func cancelText(c loop.Cancelled) string { return templates.Show("cli/cancelled.md", c) }
