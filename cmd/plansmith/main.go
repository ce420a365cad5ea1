// Command plansmith is the planning engine for Claude Code: the slash
// commands run its subcommands, and Claude Code runs its hook subcommands.
// This package only parses arguments and calls the domain packages.
package main

import (
	"os"
	"time"

	"github.com/plansmith/plansmith/templates"
)

func main() {
	relaunchIfStale(os.Getenv, os.Args[0])
	relaunchIfSuperseded(os.Getenv, os.Args[0])
	os.Exit(dispatch(os.Args[1:], processEnv()))
}

// dispatch runs one command line. Hooks run on every tool call, so they skip
// building the command tree.
func dispatch(args []string, env *Env) int {
	templates.SetNames(func() templates.Names { return installNames(env.Getenv, env.Getwd) })
	if event, agent, ok := hookEvent(args); ok {
		runEventHook(event, agent, env)
		return 0
	}
	return run(args, env)
}

func processEnv() *Env {
	return &Env{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Getwd:   os.Getwd,
		Now:     time.Now,
		Parent:  parentProcess,
		Started: processStarted,
	}
}
