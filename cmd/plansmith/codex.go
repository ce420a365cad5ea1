package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/hooks/codex"
	"github.com/plansmith/plansmith/install"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// runAgentHook runs a hook for an agent named otherwise than plain
// "claude". The name is read in any case. An unknown agent's tool call is
// judged as Codex's, whose refusal Claude Code reads too, so that a
// registration plansmith did not write never lets a write through while a
// loop runs (review BK8); its other events are reported on stderr and do
// nothing, as every hook failure does.
func runAgentHook(agent, event string, env *Env) {
	switch strings.ToLower(agent) {
	case "codex":
		codexNames(env)
		codex.Run(event, *env)
	case "claude":
		runHook(event, env)
	default:
		if strings.HasPrefix(event, "pretooluse") {
			// Judged by the stricter of the two readings (Codex's: the
			// hook is told neither the folder nor the shell), whose
			// refusal both clients honour (review BO9).
			fmt.Fprintf(env.Stderr, "plansmith: hook --agent %q: unknown agent (claude or codex); this tool call is judged as Codex's, the stricter\n", agent)
			codexNames(env)
			codex.Run("pretooluse", *env)
			return
		}
		fmt.Fprintf(env.Stderr, "plansmith: hook --agent %q: unknown agent (claude or codex); ignoring this call\n", agent)
	}
}

// codexNames has the texts of a Codex hook name plansmith's commands as
// Codex users reach them: the plansmith-plan skill and the command line,
// never a slash command Codex does not have (review CK).
func codexNames(env *Env) {
	templates.SetNames(func() templates.Names {
		n := installNames(env.Getenv, env.Getwd)
		n.Kind = templates.KindCodex
		return n
	})
}

// loopNames has the texts of a terminal command name plansmith's commands
// as the loop's agent has them: a Codex loop's user is told the
// plansmith-plan skill and the command line, not /plansmith:cancel, which
// Codex does not have (review FA2). A Claude Code loop keeps the install's
// names.
func loopNames(env *Env, agent string) {
	if agent == state.AgentCodex {
		codexNames(env)
	}
}

// runAgentInstall is `plansmith install|uninstall --agent AGENT`.
func runAgentInstall(env *Env, o *InstallOptions, add bool) error {
	if o.Agent != "codex" {
		return usagef("--agent: %q is not an agent plansmith installs for (claude or codex)", o.Agent)
	}
	bin, err := binaryPath(o.Binary)
	if err != nil {
		return err
	}
	opts := install.CodexOptions{Binary: bin, Now: env.Now()}
	if o.User {
		home := loop.CodexHome(env.Getenv)
		if home == "" {
			return usagef("--user: neither $CODEX_HOME nor $HOME is set")
		}
		opts.Dir, opts.Skills = home, filepath.Join(home, "skills")
	} else {
		p, err := paths(env)
		if err != nil {
			return err
		}
		opts.Dir, opts.Skills = filepath.Join(p.Project, ".codex"), filepath.Join(p.Project, ".agents", "skills")
	}
	if !add {
		res, err := install.UninstallCodex(opts)
		if err != nil {
			return err
		}
		if res.Changed() {
			fmt.Fprintf(env.Stdout, "plansmith: uninstalled for Codex from %s\n", opts.Dir)
		} else {
			fmt.Fprintf(env.Stdout, "plansmith: nothing of plansmith's to remove for Codex in %s\n", opts.Dir)
		}
		fmt.Fprint(env.Stdout, res.Lines())
		if home := loop.CodexHome(env.Getenv); res.Changed() && home != "" {
			// The trust --trust recorded is Codex's to keep; say it stays
			// (review FA: uninstall seemed to remove all it had added).
			if left := install.CodexTrustLeft(home, opts.HooksFile()); len(left) > 0 {
				fmt.Fprintf(env.Stdout, "  %s still records Codex's trust for plansmith's %d removed hooks ([hooks.state.\"%s:…\"]): they name hooks that no longer exist and do nothing; delete those tables if you like.\n",
					filepath.Join(home, "config.toml"), len(left), opts.HooksFile())
			}
		}
		if res.Changed() {
			warnLoopLeft(env)
		}
		return nil
	}
	res, err := install.InstallCodex(opts)
	if err != nil {
		return err
	}
	if res.Changed() {
		fmt.Fprintf(env.Stdout, "plansmith: installed for Codex in %s for %s\n", opts.Dir, opts.Binary)
	} else {
		fmt.Fprintf(env.Stdout, "plansmith: already installed for Codex in %s for %s; nothing changed\n", opts.Dir, opts.Binary)
	}
	fmt.Fprint(env.Stdout, res.Lines())
	if o.Trust {
		p, err := paths(env)
		if err != nil {
			return err
		}
		events, err := install.TrustCodexHooks(context.Background(), o.Codex, p.Project, opts.HooksFile(), bin, os.Environ())
		if err != nil {
			// The hooks are in place; only the trust is missing, which the
			// user can still give (review CQ: "--trust: starting codex
			// app-server: exec: "codex": executable file not found" said
			// neither).
			if errors.Is(err, install.ErrNoneListed) {
				// The advice is in the error: /hooks lists none of them
				// either until Codex reads the file (review FA).
				return fmt.Errorf("--trust: %w. The hooks are installed, but Codex runs them only once they are trusted", err)
			}
			return fmt.Errorf("--trust: %w. The hooks are installed, but Codex runs them only once they are trusted: open /hooks in codex and trust plansmith's, or run this again with --codex naming the Codex CLI", err)
		}
		fmt.Fprintf(env.Stdout, "  trusted in Codex: plansmith's %s hooks in %s\n", strings.Join(events, ", "), opts.HooksFile())
	} else {
		fmt.Fprintln(env.Stdout, "Codex runs new hooks only after you trust them: open /hooks in codex and trust plansmith's (or install again with --trust).")
	}
	if !o.User {
		// Say how, not only that (review FA).
		fmt.Fprintln(env.Stdout, "Codex reads a project's .codex/hooks.json only in a project it trusts: open codex here and trust the folder when it asks.")
	}
	fmt.Fprintln(env.Stdout, "Start a loop in codex with $"+install.CodexSkill+" <request>.")
	return nil
}

// lookCodex finds the codex binary on PATH, to ask it whether it runs
// plansmith's hooks; "" when there is none.
func lookCodex() string {
	path, err := exec.LookPath("codex")
	if err != nil {
		return ""
	}
	return path
}
