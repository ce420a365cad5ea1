package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/state"
)

// Env is everything a command reads from or writes to the process, so tests
// can run commands in-process with their own streams and clock.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	Now    func() time.Time
}

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
		fmt.Fprintf(env.Stderr, "plansmith: %s\n", err)
		return 2
	case isCobraUsage(err):
		fmt.Fprintf(env.Stderr, "plansmith: %s\n", err)
		return 2
	default:
		fmt.Fprintf(env.Stderr, "plansmith: %s\n", err)
		return 1
	}
}

// exitError ends a command with a status after it has said what it had to.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "invalid argument", "flag needs an argument", "accepts ", "requires "} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// paths locates the project: the user's project lives for commands run by hand or
// by the agent: $CLAUDE_PROJECT_DIR when set, else the working directory.
func (e *Env) paths() (state.Paths, error) {
	if d := e.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return state.Paths{Project: d}, nil
	}
	wd, err := e.Getwd()
	if err != nil {
		return state.Paths{}, fmt.Errorf("finding the project directory: %w", err)
	}
	return state.Paths{Project: wd}, nil
}

func newRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "plansmith",
		Short:         "A planning engine for Claude Code",
		Long:          "plansmith walks a Claude Code session through understand, explore, alternatives,\ndraft and critique/revise phases, checks every phase, keeps the session read-only,\nand gates the final plan on an adversarial critic.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%s: %v (see '%s --help')", c.CommandPath(), err, c.CommandPath())
	})
	root.AddCommand(
		newPlanCmd(env),
		newCancelCmd(env),
		newStatusCmd(env),
		newMemoryCmd(env),
		newGateCmd(env),
		newHookCmd(env),
		newVersionCmd(env),
		newInstallCmd(env), newUninstallCmd(env), newDoctorCmd(env),
	)
	return root
}
