package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/hooks"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
)

func newCancelCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel",
		Short: "End the active planning loop (safe to run when none is active)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := env.paths()
			if err != nil {
				return err
			}
			msg, err := cancelRun(p, env)
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, msg)
			return nil
		},
	}
}

// cancelRun archives the loop under the lock, so a hook running at the same
// moment either finishes first or finds no loop afterwards.
func cancelRun(p state.Paths, env *Env) (string, error) {
	if _, err := os.Lstat(p.State()); errors.Is(err, fs.ErrNotExist) {
		// Nothing to end: say so without creating .claude/plansmith/ here.
		return noLoop, nil
	}
	unlock, err := state.Lock(p)
	if err != nil {
		return "", err
	}
	defer unlock()
	f, err := state.Load(p.State())
	var corrupt *state.CorruptError
	var link *state.LinkError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return noLoop, nil
	case errors.As(err, &corrupt):
		dst, aerr := state.ArchiveRaw(p, state.ExitCorrupt, env.Now())
		if aerr != nil {
			return "", aerr
		}
		return fmt.Sprintf("plansmith: the state file was unreadable (%v); moved it to %s. No loop is active now.", corrupt.Err, p.Rel(dst)), nil
	case errors.As(err, &link) && link.Path == p.State():
		// Moving a link renames the link itself, never its target.
		dst, aerr := state.ArchiveRaw(p, state.ExitCorrupt, env.Now())
		if aerr != nil {
			return "", aerr
		}
		return fmt.Sprintf("plansmith: the state file was a symbolic link, which plansmith does not follow; moved the link to %s (its target is untouched). No loop is active now.", p.Rel(dst)), nil
	case err != nil:
		return "", err
	}
	was := "an inactive loop"
	if f.Loop.Active {
		was = "the planning loop at " + phases.Label(hooks.MachineConfig(f, ""), hooks.MachineProgress(f))
	}
	dst, err := state.Archive(p, f, state.ExitCancelled, env.Now())
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("plansmith: cancelled %s (request: %q). Archived to %s.", was, memory.OneLine(f.Loop.Request, 80), p.Rel(dst)), nil
}

const noLoop = "plansmith: no planning loop is active; nothing to cancel."
