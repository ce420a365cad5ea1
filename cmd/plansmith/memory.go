package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

func newMemoryCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory show|clear|path",
		Short: "Show, clear or locate the Reflexion memory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("memory: say show, clear or path (see 'plansmith memory --help')")
		},
	}
	for _, sub := range []struct {
		use, short string
		run        func(*Env, state.Paths) error
	}{
		{"show", "Print the lessons kept from earlier runs", runMemoryShow},
		{"clear", "Erase the memory", runMemoryClear},
		{"path", "Print the memory file's path", runMemoryPath},
	} {
		cmd.AddCommand(&cobra.Command{
			Use:   sub.use,
			Short: sub.short,
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, args []string) error { return inProject(env, sub.run) },
		})
	}
	return cmd
}

// inProject runs a command on the project's paths.
func inProject(env *Env, run func(*Env, state.Paths) error) error {
	p, err := paths(env)
	if err != nil {
		return err
	}
	return run(env, p)
}

func runMemoryShow(env *Env, p state.Paths) error {
	runs, err := memory.Load(p.Memory())
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		fmt.Fprint(env.Stdout, templates.Show("cli/memory-empty.md", nil))
		return nil
	}
	if ledger := provenance.Open(env.Getenv("HOME"), p.Project); ledger.Known() {
		if _, ok := ledger.Written(p.Memory()); !ok {
			_, edited := ledger.Recorded(p.Memory())
			fmt.Fprint(env.Stdout, templates.Show("cli/memory-not-kept-here.md", map[string]any{"Path": p.Rel(p.Memory()), "Edited": edited}))
		}
	}
	fmt.Fprint(env.Stdout, memory.Format(runs))
	return nil
}

func runMemoryClear(env *Env, p state.Paths) error {
	if err := memory.Clear(p.Memory()); err != nil {
		return err
	}
	fmt.Fprint(env.Stdout, templates.Show("cli/memory-cleared.md", map[string]string{"Path": p.Rel(p.Memory())}))
	return nil
}

func runMemoryPath(env *Env, p state.Paths) error {
	fmt.Fprintln(env.Stdout, p.Memory())
	return nil
}
