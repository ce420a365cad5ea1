package main

import (
	"fmt"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/templates"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/install"
)

// InstallOptions holds the inputs of `plansmith install` and `uninstall`.
type InstallOptions struct {
	User   bool
	Binary string
	Agent  string // "claude" (default) or "codex": see codex.go
	Trust  bool   // codex: also record Codex's trust for plansmith's hooks
	Codex  string // codex: the Codex CLI that --trust asks
}

func newInstallCmd(env *Env) *cobra.Command {
	o := &InstallOptions{}
	cmd := &cobra.Command{
		Use:   "install [--user] [--binary PATH]",
		Short: "Register plansmith's hooks and slash commands in .claude/ (or ~/.claude/ with --user)",
		Long: "Register plansmith's hooks in .claude/settings.json and write its slash commands\n" +
			"(/plansmith-plan, /plansmith-cancel, ...) to .claude/commands/, all running this\n" +
			"binary by its absolute path. Other hooks and settings are kept as they are; the\n" +
			"settings file is backed up before it changes. Running it again changes nothing.\n" +
			"Use this instead of the plugin, not as well: both would run every hook twice.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Agent != "claude" {
				return runAgentInstall(env, o, true)
			}
			if o.Trust {
				return usagef("--trust: only with --agent codex (Codex asks to trust hooks; Claude Code does not)")
			}
			opts, err := installTarget(env, o)
			if err != nil {
				return err
			}
			res, err := install.Install(opts)
			if err != nil {
				return err
			}
			if res.Changed() {
				fmt.Fprintf(env.Stdout, "plansmith: installed in %s for %s\n", opts.Dir, opts.Binary)
			} else {
				fmt.Fprintf(env.Stdout, "plansmith: already installed in %s for %s; nothing changed\n", opts.Dir, opts.Binary)
			}
			fmt.Fprint(env.Stdout, res.Lines())
			return nil
		},
	}
	installFlags(cmd, o)
	cmd.Flags().BoolVar(&o.Trust, "trust", false, "with --agent codex: also trust plansmith's hooks in Codex, through codex app-server, as its /hooks review would")
	cmd.Flags().StringVar(&o.Codex, "codex", "codex", "with --trust: the Codex CLI to ask")
	return cmd
}

func newUninstallCmd(env *Env) *cobra.Command {
	o := &InstallOptions{}
	cmd := &cobra.Command{
		Use:   "uninstall [--user]",
		Short: "Remove what 'plansmith install' added (other hooks and edited command files stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Agent != "claude" {
				return runAgentInstall(env, o, false)
			}
			opts, err := installTarget(env, o)
			if err != nil {
				return err
			}
			res, err := install.Uninstall(opts)
			if err != nil {
				return err
			}
			if res.Changed() {
				fmt.Fprintf(env.Stdout, "plansmith: uninstalled from %s\n", opts.Dir)
			} else {
				fmt.Fprintf(env.Stdout, "plansmith: nothing of plansmith's to remove in %s\n", opts.Dir)
			}
			fmt.Fprint(env.Stdout, res.Lines())
			if res.Changed() {
				warnLoopLeft(env)
			}
			return nil
		},
	}
	installFlags(cmd, o)
	return cmd
}

func installFlags(cmd *cobra.Command, o *InstallOptions) {
	cmd.Flags().BoolVar(&o.User, "user", false, "use ~/.claude/ (every project) instead of this project's .claude/ (with --agent codex: $CODEX_HOME, else ~/.codex)")
	cmd.Flags().StringVar(&o.Binary, "binary", "", "the plansmith binary the hooks run (default: this one)")
	cmd.Flags().StringVar(&o.Agent, "agent", "claude", "claude (.claude/) or codex (Codex CLI: .codex/hooks.json and a skill, or $CODEX_HOME with --user)")
}

// installTarget picks the .claude folder and the binary's absolute path.
func installTarget(env *Env, o *InstallOptions) (install.Options, error) {
	bin, err := binaryPath(o.Binary)
	if err != nil {
		return install.Options{}, err
	}
	opts := install.Options{Binary: bin, Now: env.Now()}
	if o.User {
		home := env.Getenv("HOME")
		if home == "" {
			return opts, usagef("--user: $HOME is not set")
		}
		opts.Dir = filepath.Join(home, ".claude")
		return opts, nil
	}
	p, err := paths(env)
	if err != nil {
		return opts, err
	}
	opts.Dir = filepath.Join(p.Project, ".claude")
	return opts, nil
}

// binaryPath resolves --binary, or this process's own executable.
func binaryPath(flag string) (string, error) {
	if flag != "" {
		bin, err := install.ResolveBinary(flag)
		if err != nil {
			return "", usagef("--binary: %v", err)
		}
		return bin, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this binary's path: %w", err)
	}
	return selfBinary(self)
}

// selfBinary is the binary that hooks registered by this one should run:
// this executable, or, when it is a plugin tree's placed binary
// (<root>/bin/native/plansmith, put there by the launcher from
// bin/prebuilt/), the tree's launcher <root>/bin/plansmith. Every message
// about a binary that cannot start says to delete bin/native/, and a newer
// tree replaces what is in it; hooks that ran the placed file by its path
// would then fail for good, refusing every tool call of a loop, while the
// launcher checks and places the binary again.
func selfBinary(self string) (string, error) {
	bin, err := install.ResolveBinary(self)
	if err != nil {
		return "", err
	}
	root := placedTree(bin)
	if root == "" {
		return bin, nil
	}
	if _, err := os.Stat(treeSums(root)); err != nil {
		return bin, nil // not a plugin tree (a source checkout links build/ instead)
	}
	launcher, err := install.ResolveBinary(treeLauncher(root))
	if err != nil {
		return bin, nil
	}
	return launcher, nil
}

// warnLoopLeft says, after an uninstall, that the project's planning loop
// is still active and that hooks removed may no longer check it (review
// BK11: it was left active, unenforced, without a word).
func warnLoopLeft(env *Env) {
	p, err := paths(env)
	if err != nil {
		return
	}
	v, err := loop.Status(*env, p)
	if err != nil || !v.Active {
		return
	}
	fmt.Fprintf(env.Stdout, "plansmith: a planning loop is still active in this project (at %s [%d/%d]), and the hooks removed may have been what checked it: `%s` ends it.\n", v.Phase, v.Position, v.Total, templates.CLI("cancel"))
}
