package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/memory"
)

func newCancelCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel",
		Short: "End the active planning loop (safe to run when none is active)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := paths(env)
			if err != nil {
				return err
			}
			c, err := loop.Cancel(*env, p)
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, cancelText(c))
			return nil
		},
	}
}

func cancelText(c loop.Cancelled) string {
	switch {
	case !c.Found:
		return "plansmith: no planning loop is active; nothing to cancel."
	case c.Link:
		return fmt.Sprintf("plansmith: the state file was a symbolic link, which plansmith does not follow; moved the link to %s (its target is untouched). No loop is active now.", c.Archive)
	case c.Unreadable != nil:
		return fmt.Sprintf("plansmith: the state file was unreadable (%v); moved it to %s. No loop is active now.", c.Unreadable, c.Archive)
	}
	was := "an inactive loop"
	if c.Active {
		was = "the planning loop at " + c.Label
	}
	return fmt.Sprintf("plansmith: cancelled %s (request: %q). Archived to %s.", was, memory.OneLine(c.Request, 80), c.Archive)
}
