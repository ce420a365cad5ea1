// Command plansmith is the planning engine for Claude Code: the slash
// commands run its subcommands, and Claude Code runs its hook subcommands.
// This package only parses arguments and calls the domain packages.
package main

import (
	"os"
	"time"
)

func main() {
	relaunchIfStale(os.Getenv, os.Args[0])
	os.Exit(run(os.Args[1:], processEnv()))
}

func processEnv() *Env {
	return &Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Getwd:  os.Getwd,
		Now:    time.Now,
	}
}
