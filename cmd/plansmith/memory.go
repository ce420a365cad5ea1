package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/memory"
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
	cmd.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the lessons kept from earlier runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := paths(env)
			if err != nil {
				return err
			}
			runs, err := memory.Load(p.Memory())
			if err != nil {
				return err
			}
			if len(runs) == 0 {
				fmt.Fprintln(env.Stdout, "plansmith: memory is empty (lessons are kept after each finished run).")
				return nil
			}
			fmt.Fprint(env.Stdout, memory.Format(runs))
			return nil
		},
	}, &cobra.Command{
		Use:   "clear",
		Short: "Erase the memory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := paths(env)
			if err != nil {
				return err
			}
			if err := memory.Clear(p.Memory()); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "plansmith: memory cleared (%s).\n", p.Rel(p.Memory()))
			return nil
		},
	}, &cobra.Command{
		Use:   "path",
		Short: "Print the memory file's path",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := paths(env)
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, p.Memory())
			return nil
		},
	})
	return cmd
}
