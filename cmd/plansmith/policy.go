package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/planmode"
	"github.com/plansmith/plansmith/state"
)

// newPolicyCmd shows the project's extension of the read-only policy
// (.claude/plansmith-policy.yaml) and approves it: a repository can carry
// one, so its entries count only once the user has read it and trusted it.
func newPolicyCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy [trust]",
		Short: "Show the project's policy extension; trust approves it as it stands",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return inProject(env, runPolicyShow)
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "trust",
		Short: "Approve the project's .claude/plansmith-policy.yaml, and a .claude/plansmith.yaml that turns the plan-mode gate off, as they stand (an edit needs a new approval)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return inProject(env, runPolicyTrust) },
	})
	return cmd
}

func runPolicyShow(env *Env, p state.Paths) error {
	cfg, err := policy.LoadConfig(p.Project, env.Getenv("HOME"))
	var untrusted *policy.UntrustedError
	switch {
	case errors.As(err, &untrusted):
		fmt.Fprintf(env.Stdout, "%s is not trusted: its entries are not used.\nRead it; `plansmith policy trust` approves it as it stands.\n", p.Rel(untrusted.Path))
		return nil
	case err != nil:
		return err
	case cfg.Allow == nil && cfg.Tools == nil:
		fmt.Fprintf(env.Stdout, "No extension: %s does not exist or lists nothing.\n", policy.ConfigFile)
		return nil
	}
	fmt.Fprintf(env.Stdout, "%s is trusted. While planning it allows:\n", policy.ConfigFile)
	printPolicy(env.Stdout, cfg)
	return nil
}

func runPolicyTrust(env *Env, p state.Paths) error {
	// The settings file counts when it turns the plan-mode gate off, which
	// a repository can carry too (planmode.LoadSetting).
	gateOff, err := planmode.TrustSetting(p.Project, env.Getenv("HOME"))
	if err != nil {
		return err
	}
	if gateOff {
		fmt.Fprintf(env.Stdout, "Trusted %s as it stands: it turns the plan-mode gate off in this project.\n", planmode.SettingsFile)
		if _, err := os.Lstat(filepath.Join(p.Project, policy.ConfigFile)); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	cfg, err := policy.Trust(p.Project, env.Getenv("HOME"))
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Trusted %s as it stands. While planning it allows:\n", policy.ConfigFile)
	printPolicy(env.Stdout, cfg)
	return nil
}

func printPolicy(w io.Writer, cfg policy.Config) {
	for _, e := range cfg.Allow {
		fmt.Fprintf(w, "  command: %s (with any further arguments)\n", e)
	}
	for _, t := range cfg.Tools {
		fmt.Fprintf(w, "  tool:    %s\n", t)
	}
	if len(cfg.Allow)+len(cfg.Tools) == 0 {
		fmt.Fprintln(w, "  nothing")
	}
}
