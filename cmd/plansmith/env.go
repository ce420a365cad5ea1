package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
)

// Env is everything a command reads from or writes to the process, so tests
// can run commands in-process with their own streams and clock. It is the
// loop's Env: one set of streams for the CLI and the hooks.
type Env = loop.Env

// usageError is a wrong flag or argument: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// run executes one command line and returns the exit status.
func run(args []string, env *Env) int {
	root := newRoot(env)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ue *usageError
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "plansmith: %s\n", plainfile.Message(err))
		return 2
	default:
		fmt.Fprintf(env.Stderr, "plansmith: %s\n", plainfile.Message(err))
		return 1
	}
}

// exitError ends a command with a status after it has said what it had to.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageArgs makes a failed positional-argument check a usage error. Words
// given to a command that takes none are named as such ("cancel now" is
// not an unknown command), and an unknown subcommand gets a hint.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		switch {
		case err == nil:
			return nil
		case strings.HasPrefix(err.Error(), "unknown command") && cmd.HasSubCommands():
			return usagef("unknown command %q for '%s' (run '%s --help' to see its commands)", args[0], cmd.CommandPath(), cmd.CommandPath())
		case strings.HasPrefix(err.Error(), "unknown command"):
			name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
			return usagef("%s takes no arguments (got %q; see '%s --help')", name, strings.Join(args, " "), cmd.CommandPath())
		}
		// cobra's own words ("accepts at most 1 arg(s), received 2") name
		// no command (review AN10).
		name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
		return usagef("%s: %v (got %q; see '%s --help')", name, err, strings.Join(args, " "), cmd.CommandPath())
	}
}

// typedUsage gives every command of the tree typed usage errors: wrong
// flags through the flag error function, wrong arguments through
// usageArgs. A command without an argument check gets cobra's default: a
// command with subcommands takes no arguments (an unknown subcommand is a
// usage error too), any other takes any.
func typedUsage(c *cobra.Command) {
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%s: %v (see '%s --help')", c.CommandPath(), err, c.CommandPath())
	})
	switch {
	case c.Args != nil:
	case c.HasSubCommands():
		c.Args = cobra.NoArgs
	default:
		c.Args = cobra.ArbitraryArgs
	}
	c.Args = usageArgs(c.Args)
	for _, sub := range c.Commands() {
		typedUsage(sub)
	}
}

// paths locates the project for commands run by hand or by the agent:
// $CLAUDE_PROJECT_DIR when set, else the folder the Claude Code session
// runs in (found from its transcript), else the working directory. plan,
// status and cancel refine it (planPaths, loop.Env.LoopPaths).
func paths(env *Env) (state.Paths, error) { return env.Paths(loop.Session{}) }

func newRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "plansmith",
		Short:         "A planning engine for Claude Code",
		Long:          "plansmith walks a Claude Code session through understand, explore, alternatives,\ndraft and critique/revise phases, checks every phase, keeps the session read-only,\nand gates the final plan on an adversarial critic.",
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE:          func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newPlanCmd(env),
		newCancelCmd(env),
		newStatusCmd(env),
		newMemoryCmd(env),
		newPolicyCmd(env),
		newPlansCmd(env),
		newGateCmd(env),
		newHookCmd(env),
		newVersionCmd(env),
		newInstallCmd(env), newUninstallCmd(env), newDoctorCmd(env),
	)
	typedUsage(root)
	return root
}
