package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/hooks"
)

func newHookCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook EVENT",
		Short: "Run as a Claude Code hook (stdin: hook JSON, stdout: decision JSON)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("hook: name the event: %s", strings.Join(hooks.Events, ", "))
		},
	}
	agent := cmd.PersistentFlags().String("agent", "claude", "the agent running the hook: claude or codex (Codex CLI, see docs/codex.md)")
	for _, ev := range hooks.Events {
		cmd.AddCommand(&cobra.Command{
			Use:   ev,
			Short: "The " + ev + " hook",
			Args:  cobra.ArbitraryArgs, // Claude Code may grow arguments; never fail a hook on them
			Run: func(cmd *cobra.Command, args []string) {
				if *agent != "claude" {
					runAgentHook(*agent, ev, env)
					return
				}
				runHook(ev, env)
			},
		})
	}
	return cmd
}

// hookEvent recognises `hook EVENT [ARG...]`, the command line Claude Code
// runs, so main can answer it without the command tree. Anything that looks
// like a flag (--help) goes the long way, through cobra.
func hookEvent(args []string) (string, bool) {
	if len(args) < 2 || args[0] != "hook" || !slices.Contains(hooks.Events, args[1]) {
		return "", false
	}
	for _, a := range args[2:] {
		if strings.HasPrefix(a, "-") {
			return "", false
		}
	}
	return args[1], true
}

func runHook(event string, env *Env) { hooks.Run(event, *env) }
