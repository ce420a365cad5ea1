package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith/install"
)

// doctorOptions are the inputs of `plansmith doctor`.
type doctorOptions struct {
	JSON   bool
	Binary string // check as if this were the plansmith binary
}

func newDoctorCmd(env *Env) *cobra.Command {
	o := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Check the binary, hook registration, stale loops and settings, and print fixes",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return runDoctor(env, o) },
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON for scripts")
	cmd.Flags().StringVar(&o.Binary, "binary", "", "check as if PATH were the plansmith binary (default: this one)")
	return cmd
}

func runDoctor(env *Env, o *doctorOptions) error {
	bin, err := binaryPath(o.Binary)
	if err != nil {
		return err
	}
	p, err := paths(env)
	if err != nil {
		return err
	}
	checks := install.Doctor(install.DoctorEnv{
		Project: p.Project,
		Home:    env.Getenv("HOME"),
		Binary:  bin,
		Version: versionLine(),
		Getenv:  env.Getenv,
		Now:     env.Now(),
		LookGo:  lookGo(env),
		Probe:   probeVersion,
		Codex:   lookCodex(),
		Environ: os.Environ(),
	})
	if o.JSON {
		if err := printJSON(env, map[string]any{"ok": !install.Failed(checks), "checks": checks}); err != nil {
			return err
		}
	} else {
		fmt.Fprint(env.Stdout, install.FormatChecks(checks))
	}
	if install.Failed(checks) {
		return &exitError{1}
	}
	return nil
}

// lookGo finds Go where the launcher looks: on $PATH, else /usr/local/go.
func lookGo(env *Env) func() (string, error) {
	return func() (string, error) {
		path := ""
		for _, dir := range strings.Split(env.Getenv("PATH"), string(os.PathListSeparator)) {
			if dir == "" {
				continue
			}
			if p, err := exec.LookPath(dir + "/go"); err == nil {
				path = p
				break
			}
		}
		if path == "" {
			if _, err := os.Stat("/usr/local/go/bin/go"); err != nil {
				return "", fmt.Errorf("no go on $PATH or in /usr/local/go/bin")
			}
			path = "/usr/local/go/bin/go"
		}
		out, err := runShort(path, "version")
		if err != nil {
			return "", fmt.Errorf("%s version: %w", path, err)
		}
		return strings.TrimSpace(out) + " at " + path, nil
	}
}

func probeVersion(binary string) (string, error) { return runShort(binary, "version") }

// runShort runs a command that should answer at once; a hung one is cut off.
func runShort(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	return string(out), err
}
