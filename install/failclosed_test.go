package install

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith"
)

// pluginFailClosed is FailClosed for the plugin's hooks/hooks.json commands,
// whose loop already looked for a loop's state file where one matters (or
// needs none), and which exec bin/native/plansmith first, setting q=1 just
// before (and call x at once, in bash, when that exec failed and the
// command went on). When that exec fails, the answer first runs the
// launcher once
// with PLANSMITH_REPLACE=1, which checks this machine's prebuilt binary,
// places it over the one that failed and runs it: a plugin folder shared by
// two machines (a devcontainer that mounts ~/.claude, a home on NFS) holds
// the binary of whichever placed it first, and dash, which ends at a failed
// exec, refused every tool call of a loop, and ExitPlanMode everywhere, on
// the other (review CQ; bash, with execfail, went on to the launcher). The
// launcher runs as a child, not by exec, so that should it not start the
// command still answers.
func pluginFailClosed(event string) string {
	return "x() { trap - EXIT; if [ -n \"${q:-}\" ]; then q=; PLANSMITH_REPLACE=1 GOMAXPROCS=1 \"" + PluginPlaceholder + "\" hook " + event +
		"; e=$?; [ \"$e\" -ge 126 ] || exit \"$e\"; fi; " + BrokenAnswer(event, ":") + "; }; trap x EXIT; " + execFailOn + runsHere
}

// runsHere defines u, which fails when the file $1 is a program for
// another machine, and is asked only under busybox's ash (/bin/sh on
// Alpine, whose devcontainers may mount the host's plugin folder). ash
// runs a file that execve refuses (ENOEXEC) as a shell script, with no
// check that it is text: another machine's binary in bin/native/ ended the
// hook with "syntax error" and status 2, so a Stop and every prompt were
// blocked with that for a reason, and the binary was never replaced
// (review CU). The commands then run x at once, whose launcher places this
// machine's binary. Builtins only: ash's read drops NUL bytes, so the first
// 20 bytes of an ELF file read as its magic, class, byte order and version,
// then its ABI and type, and last its machine; those of the file and of the
// shell's own program (/proc/$$/exe) must agree in the first four and the
// machine. A script (#!) passes, as does
// anything when the shell's own program cannot be read as ELF. ash is told
// by $RANDOM (dash has none) without a bash, zsh or ksh version.
const runsHere = `u() { [ -n "${RANDOM:-}" ] && [ -z "${BASH_VERSION:-}${ZSH_VERSION:-}${KSH_VERSION:-}" ] || return 0; a=; b=; IFS= read -r -n 20 b </proc/$$/exe 2>/dev/null; case $b in ?ELF*) ;; *) return 0 ;; esac; IFS= read -r -n 20 a <"$1" 2>/dev/null; case $a in '#!'*) return 0 ;; esac; [ "${a%"${a#???????}"}${a#"${a%?}"}" = "${b%"${b#???????}"}${b#"${b%?}"}" ]; }; `

// TestPluginHooksFailClosed holds hooks/hooks.json's commands, written out
// in that file, to pluginFailClosed (cmd/plansmith's TestHooksJSONCommands
// and TestHooksJSONFailsClosed run them). Every command is one of two
// shapes: the run (its answer should plansmith not start, then the native
// binary, else the launcher), or the same run behind the look for a loop's
// state file.
func TestPluginHooksFailClosed(t *testing.T) {
	commands, err := plansmith.HookCommands()
	require.NoError(t, err)
	for ev, cmd := range commands {
		assert.Contains(t, cmd, pluginFailClosed(ev), ev)
		assert.True(t, strings.HasSuffix(cmd, "; x"), ev)
	}
	stop := commands["stop"]
	guard, run, ok := strings.Cut(stop, pluginFailClosed("stop"))
	require.True(t, ok, stop)
	var guarded []string
	for ev, cmd := range commands {
		want := pluginFailClosed(ev) + strings.ReplaceAll(run, "hook stop", "hook "+ev)
		if cmd != want {
			assert.Equal(t, guard+want, cmd, ev)
			guarded = append(guarded, ev)
		}
	}
	slices.Sort(guarded)
	assert.Equal(t, []string{"pretooluse-loop", "sessionend", "sessionstart", "stop", "stopfailure", "userpromptsubmit"}, guarded,
		"the events with nothing to do without a loop; ExitPlanMode (pretooluse), posttooluse and subagentstop serve the plan-mode gate, which needs none")
}

// A settings install whose binary is gone still answers: ExitPlanMode is
// refused everywhere (the plan-mode gate fails closed: review Z2), other
// tool calls wherever a loop's state file is in the working folder or a
// folder above it (review Z3: a session in a subfolder), with dash and
// bash alike; elsewhere the hook fails without a refusal.
func TestSettingsCommandFailsClosed(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "plansmith")
	project := t.TempDir()
	sub := filepath.Join(project, "internal", "api")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	elsewhere := t.TempDir()
	for _, shell := range []string{"dash", "bash"} {
		if _, err := exec.LookPath(shell); err != nil {
			continue
		}
		run := func(event, dir string) (int, string) {
			cmd := exec.Command(shell, "-c", SettingsCommand(gone, event))
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), string(out)
			}
			require.NoError(t, err)
			return 0, string(out)
		}
		code, out := run("pretooluse", elsewhere)
		assert.Equal(t, 2, code, "%s: ExitPlanMode: %s", shell, out)
		code, out = run("pretooluse-loop", sub)
		assert.Equal(t, 2, code, "%s: a loop above: %s", shell, out)
		assert.True(t, strings.Contains(out, "so this tool call is refused"), out)
		code, _ = run("pretooluse-loop", elsewhere)
		assert.Equal(t, 1, code, "%s: no loop: no refusal", shell)
		code, out = run("stop", sub)
		assert.Equal(t, 0, code, shell)
		assert.Contains(t, out, `{"systemMessage":`)
	}
}

// Codex runs a hook as the user's login shell does, zsh -c COMMAND for a
// zsh user (the default on macOS; seen with Codex 0.169.0, review FA5). A
// Codex hook command that started plansmith answers with plansmith's answer
// and status alone: the trap armed for a binary that cannot start is
// disarmed (zsh, as zsh, kept the function's "trap - EXIT" for the
// function, and every answered call of a loop was then refused as if
// plansmith could not start). A binary that cannot start is still answered
// for, and so is one that dies of a signal.
func TestCodexHookCommandsUnderZsh(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh is not installed")
	}
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	dir := t.TempDir()
	program := func(name, body string) string {
		p := filepath.Join(dir, name, "plansmith")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755))
		return p
	}
	zdotdir := "" // a ~/.zshenv's folder, read by zsh -c before the command
	run := func(bin string, as string) map[string][3]string {
		h, err := CodexHooks(bin)
		require.NoError(t, err)
		out := map[string][3]string{}
		for _, command := range h.Commands() {
			_, event, ok := ParseCommand(command, bin)
			require.True(t, ok, command)
			cmd := exec.Command(as, "-c", command)
			cmd.Dir = project
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			if zdotdir != "" {
				cmd.Env = append(cmd.Env, "ZDOTDIR="+zdotdir)
			}
			cmd.Stdin = strings.NewReader("{}")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := 0
			if err := cmd.Run(); err != nil {
				ee, ok := err.(*exec.ExitError)
				require.True(t, ok, "%v", err)
				code = ee.ExitCode()
			}
			out[event] = [3]string{fmt.Sprint(code), stdout.String(), stderr.String()}
		}
		return out
	}
	answers := program("answers", "cat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"r\"}'\n")
	for event, got := range run(answers, zsh) {
		assert.Equal(t, [3]string{"0", "{\"decision\":\"block\",\"reason\":\"r\"}\n", ""}, got, event)
	}
	fails := program("fails", "echo oops >&2; exit 3\n")
	for event, got := range run(fails, zsh) {
		assert.Equal(t, [3]string{"3", "", "oops\n"}, got, "%s: plansmith's own status", event)
	}
	gone := filepath.Join(dir, "gone", "plansmith")
	for event, got := range run(gone, zsh) {
		if event == "pretooluse" {
			assert.Equal(t, "2", got[0], "a tool call in a loop, with no plansmith: %v", got)
			assert.Contains(t, got[2], "so this tool call is refused")
		} else {
			assert.Equal(t, "0", got[0], event)
			assert.Contains(t, got[1], "could not be started", event)
		}
	}
	killed := program("killed", "kill -9 $$\n")
	for event, got := range run(killed, zsh) {
		assert.Contains(t, got[1]+got[2], "could not be started", "%s: died of a signal", event)
	}

	// A user's ~/.zshenv with ERR_RETURN (review FH1): the exec function
	// returned at the failed start, the shell ended there with status 127
	// and said nothing, and Codex ran the tool call.
	zdotdir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(zdotdir, ".zshenv"), []byte("setopt err_return\n"), 0o644))
	for event, got := range run(gone, zsh) {
		if event == "pretooluse" {
			assert.Equal(t, "2", got[0], "ERR_RETURN: a tool call in a loop, with no plansmith: %v", got)
			assert.Contains(t, got[2], "so this tool call is refused")
		} else {
			assert.Equal(t, "0", got[0], "ERR_RETURN: %s", event)
			assert.Contains(t, got[1], "could not be started", "ERR_RETURN: %s", event)
		}
	}
	for event, got := range run(killed, zsh) {
		assert.Contains(t, got[1]+got[2], "could not be started", "ERR_RETURN: %s: died of a signal", event)
	}
	for event, got := range run(answers, zsh) {
		assert.Equal(t, [3]string{"0", "{\"decision\":\"block\",\"reason\":\"r\"}\n", ""}, got, "ERR_RETURN: %s", event)
	}
	for event, got := range run(fails, zsh) {
		assert.Equal(t, [3]string{"3", "", "oops\n"}, got, "ERR_RETURN: %s: plansmith's own status", event)
	}
}

// A Codex hook command written by a plansmith from before review FA5 (or
// FH1) is still plansmith's: install replaces it with the corrected one
// (which Codex must then trust again), and doctor says why until it does.
func TestCodexHooksOfAnOlderPlansmithAreReplaced(t *testing.T) {
	for i, before := range execFailOnBefore {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			o := codexOpts(t)
			_, err := InstallCodex(o)
			require.NoError(t, err)
			data, err := os.ReadFile(o.HooksFile())
			require.NoError(t, err)
			quoted := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
			old := strings.ReplaceAll(string(data), quoted(execFailOn), quoted(before.start))
			require.NotEqual(t, string(data), old)
			require.NoError(t, os.WriteFile(o.HooksFile(), []byte(old), 0o644))

			regs, err := Find([]byte(old), o.Binary)
			require.NoError(t, err)
			require.Len(t, regs, 4, "the older commands are plansmith's")
			for _, r := range regs {
				assert.Equal(t, before.why, r.Stale, r.Event)
			}
			project := filepath.Dir(o.Dir)
			env := DoctorEnv{Project: project, Home: t.TempDir(), Binary: o.Binary, Getenv: func(string) string { return "" }}
			var stale *Check
			for _, c := range CodexChecks(env) {
				if c.Name == "codex hooks" {
					stale = &c
				}
			}
			require.NotNil(t, stale, "doctor names the older commands")
			assert.Equal(t, Warn, stale.Level)
			assert.Contains(t, stale.Detail, "zsh")
			assert.Contains(t, stale.Detail, before.why, "what these commands do wrong")
			assert.Contains(t, stale.Fix, "install --agent codex --trust")

			res, err := InstallCodex(o)
			require.NoError(t, err)
			assert.True(t, res.Changed(), res.Lines())
			now, err := os.ReadFile(o.HooksFile())
			require.NoError(t, err)
			assert.Equal(t, string(data), string(now), "replaced by this plansmith's commands, nothing doubled")
			for _, c := range CodexChecks(env) {
				assert.NotEqual(t, "codex hooks", c.Name, c.Detail)
			}
		})
	}
	regs, err := Find([]byte(`{"hooks":{}}`), "/x/plansmith")
	require.NoError(t, err)
	assert.Empty(t, regs)
}
