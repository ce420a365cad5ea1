package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/hooks"
)

func newHookCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook EVENT",
		Short: "Run as a Claude Code hook (stdin: hook JSON, stdout: decision JSON)",
		Args:  cobra.ArbitraryArgs,
	}
	agent := cmd.PersistentFlags().String("agent", "claude", "the agent running the hook: claude or codex (Codex CLI, see docs/codex.md)")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usagef("hook: name the event: %s", strings.Join(hooks.Events, ", "))
		}
		// An event this binary does not know, from a registration newer
		// than it: a usage error's exit status 2 would block every Stop
		// (review AS). A tool call is judged in full all the same; any
		// other event does nothing, and says so.
		if strings.HasPrefix(strings.ToLower(args[0]), "pretooluse") {
			runEventHook("pretooluse", *agent, env)
			return nil
		}
		fmt.Fprintf(env.Stderr, "plansmith: this plansmith has no %q hook (it knows %s); this call does nothing. Reinstall plansmith so that its hooks and binary match.\n",
			args[0], strings.Join(hooks.Events, ", "))
		return nil
	}
	for _, ev := range hooks.Events {
		cmd.AddCommand(&cobra.Command{
			Use:   ev,
			Short: "The " + ev + " hook",
			Args:  cobra.ArbitraryArgs, // Claude Code may grow arguments; never fail a hook on them
			Run: func(cmd *cobra.Command, args []string) {
				runEventHook(ev, *agent, env)
			},
		})
	}
	return cmd
}

// hookEvent recognises `hook EVENT [ARG...] [--agent AGENT]`, the command
// lines Claude Code and Codex run (install registers `--agent codex` for
// Codex), so main can answer them without the command tree. It returns the
// event and the agent ("claude" unless named). Anything else that looks like
// a flag (--help, --agent with no value) goes the long way, through cobra.
func hookEvent(args []string) (event, agent string, ok bool) {
	// An event as Claude Code spells it ("PreToolUse", in a registration
	// written by hand) is that event (review CI).
	if len(args) < 2 || args[0] != "hook" || !slices.Contains(hooks.Events, strings.ToLower(args[1])) {
		return "", "", false
	}
	rest, agent := args[2:], "claude"
	switch n := len(rest); {
	case n >= 2 && rest[n-2] == "--agent" && rest[n-1] != "" && !strings.HasPrefix(rest[n-1], "-"):
		rest, agent = rest[:n-2], rest[n-1]
	case n >= 1 && strings.HasPrefix(rest[n-1], "--agent=") && len(rest[n-1]) > len("--agent="):
		rest, agent = rest[:n-1], strings.TrimPrefix(rest[n-1], "--agent=")
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "-") {
			return "", "", false
		}
	}
	return strings.ToLower(args[1]), agent, true
}

// runEventHook answers one hook call for agent, as the hook command's Run
// does.
func runEventHook(event, agent string, env *Env) {
	if agent != "claude" {
		runAgentHook(agent, event, env)
		return
	}
	runHook(event, env)
}

func runHook(event string, env *Env) { hooks.Run(event, *env) }
