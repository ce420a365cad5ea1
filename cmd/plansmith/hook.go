package main

import (
	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/hooks"
)

func newHookCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook EVENT",
		Short: "Run as a Claude Code hook (stdin: hook JSON, stdout: decision JSON)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("hook: name the event: stop, pretooluse, posttooluse or userpromptsubmit")
		},
	}
	for _, ev := range hooks.Events {
		cmd.AddCommand(&cobra.Command{
			Use:   ev,
			Short: "The " + ev + " hook",
			Args:  cobra.ArbitraryArgs, // Claude Code may grow arguments; never fail a hook on them
			Run:   func(cmd *cobra.Command, args []string) { hooks.Run(ev, *env) },
		})
	}
	return cmd
}
