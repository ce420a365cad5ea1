package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/plansmith/plansmith/e2e/codexserver"
)

// TestCodexCallsItDidNotOfferRunNothing: while planning, the tool calls and
// shapes Codex 0.169.0 did not offer gpt-5.5 run nothing (review CL): a
// local_shell_call item (with an env naming a project script as BASH_ENV),
// a "shell" function with an argv, apply_patch in its JSON form, an argv
// as exec_command's cmd, exec_command's env, and a shell path to a file the
// project carries. None wrote a file in the project or ran its script.
func TestCodexCallsItDidNotOfferRunNothing(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	local := func(argv []string, env map[string]string) cs.Reply {
		action := map[string]any{"type": "exec", "command": argv}
		if env != nil {
			action["env"] = env
		}
		return cs.Reply{Call: &cs.Call{Name: "local_shell", Item: map[string]any{"type": "local_shell_call", "action": action}}}
	}
	e := codexPlansmithEnv(t, bin,
		startPlan(bin, "--no-memory"),
		local([]string{"touch", "local.txt"}, nil),
		local([]string{"bash", "-c", "ls"}, map[string]string{"BASH_ENV": "./tools/mark"}),
		cs.Reply{Call: &cs.Call{Name: "shell", Input: map[string]any{"command": []string{"touch", "shell.txt"}}}},
		cs.Reply{Call: &cs.Call{Name: "apply_patch", Input: map[string]any{"input": "*** Begin Patch\n*** Add File: json.txt\n+x\n*** End Patch\n"}}},
		cs.Reply{Call: &cs.Call{Name: "exec_command", Input: map[string]any{"cmd": []string{"touch", "argv.txt"}}}},
		cs.Reply{Call: &cs.Call{Name: "exec_command", Input: map[string]any{"cmd": "ls", "env": map[string]string{"BASH_ENV": "./tools/mark"}}}},
		cs.Reply{Call: &cs.Call{Name: "exec_command", Input: map[string]any{"cmd": "ls", "shell": "./tools/bash"}}},
		cs.Exec("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: heredoc.txt\n+x\n*** End Patch\nEOF\n"),
		cs.Exec(quoteBin(bin)+" cancel"),
		cs.Text("done"),
	)
	for _, f := range []string{"tools/mark", "tools/bash"} {
		e.WriteProjectFile(f, "#!/bin/sh\ntouch \"$(dirname \"$0\")/../ran-"+filepath.Base(f)+"\"\n")
		require.NoError(t, os.Chmod(filepath.Join(e.Project, f), 0o755))
	}
	res := runCodex(e, "plan")
	require.Equal(t, 0, res.ExitCode)
	for _, f := range []string{"local.txt", "shell.txt", "json.txt", "argv.txt", "heredoc.txt", "ran-mark", "ran-bash"} {
		assert.NoFileExists(t, filepath.Join(e.Project, f))
	}
	reqs := e.Model.Requests()
	require.GreaterOrEqual(t, len(reqs), 10)
	assert.Contains(t, reqs[9].Outputs[0].Output, "Command blocked by PreToolUse hook:", "apply_patch through the shell")
}

// TestCodexRunsPowerShellTheHookCannotSee: Codex runs exec_command's text
// with pwsh from PATH when the model names pwsh as its shell, and tells the
// hook the text alone (review CL2). A line PowerShell reads otherwise than
// bash is refused and never reaches the pwsh, while a plain one does.
func TestCodexRunsPowerShellTheHookCannotSee(t *testing.T) {
	t.Parallel()
	got := codexThroughFakeShell(t, "pwsh", `echo "\$(New-Item escaped.txt)"`, "blind-pwsh")
	assert.Contains(t, got, "-Command")
	assert.Contains(t, got, "echo plain")
	assert.NotContains(t, got, "New-Item", strings.TrimSpace(got))
}

// TestCodexRunsCmdTheHookCannotSee: for the shell "cmd" Codex runs a
// program named cmd from PATH with /c and the text (cmd.exe on Windows),
// and tells the hook the text alone. A line in which cmd.exe reads an
// operator where bash reads text is refused and never reaches the cmd,
// while a plain one does (review DA6).
func TestCodexRunsCmdTheHookCannotSee(t *testing.T) {
	t.Parallel()
	got := codexThroughFakeShell(t, "cmd", `echo 'a & del escaped.txt'`, "blind-cmd")
	assert.Contains(t, got, "/c\necho plain")
	assert.NotContains(t, got, "del", strings.TrimSpace(got))
}

// codexThroughFakeShell runs a planning loop in the real Codex whose model
// has exec_command run two lines with the given shell, a program of that
// name put first on PATH that records its arguments: escaped, which the
// hook must refuse by rule, then "echo plain". It returns what the program
// recorded.
func codexThroughFakeShell(t *testing.T, shell, escaped, rule string) string {
	t.Helper()
	bin := BuildPlansmith(t)
	fake := t.TempDir()
	logFile := filepath.Join(t.TempDir(), shell+".log")
	require.NoError(t, os.WriteFile(filepath.Join(fake, shell), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> '"+logFile+"'\n"), 0o755))
	run := func(line string) cs.Reply {
		return cs.Reply{Call: &cs.Call{Name: "exec_command", Input: map[string]any{"cmd": line, "shell": shell}}}
	}
	e := codexPlansmithEnv(t, bin,
		startPlan(bin, "--no-memory"),
		run(escaped),
		run("echo plain"),
		cs.Exec(quoteBin(bin)+" cancel"),
		cs.Text("done"),
	)
	e.ExtraEnv = append(e.ExtraEnv, "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	res := runCodex(e, "plan")
	require.Equal(t, 0, res.ExitCode)
	reqs := e.Model.Requests()
	require.GreaterOrEqual(t, len(reqs), 3)
	assert.Contains(t, reqs[2].Outputs[0].Output, "Rule: "+rule)
	b, err := os.ReadFile(logFile)
	require.NoError(t, err, "Codex ran the %s on PATH", shell)
	return string(b)
}

// TestCodexProjectShellVariablesRefuseTheShell: a trusted repository's
// .codex/config.toml sets the variables every command starts with; its
// BASH_ENV ran a project script with every `ls` the policy let through while
// planning (review CL3). Now shell commands are refused while it does, with
// the key spelled plainly or with the escapes Codex reads in a quoted key
// (review DA3: ["shell_environment_polic\x79"] was read by Codex and not by
// the hook).
func TestCodexProjectShellVariablesRefuseTheShell(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	for name, table := range map[string]string{
		"plain":    "[shell_environment_policy]",
		"x escape": `["shell_environment_polic\x79"]`,
		// Upper-case hex digits are read alike (review EB).
		"x escape, upper-case hex": `["shell_environment\x5Fpolicy"]`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ran := filepath.Join(t.TempDir(), "ran.log")
			e := codexPlansmithEnv(t, bin,
				startPlan(bin, "--no-memory"),
				cs.Exec("ls # CL3-PROBE"),
				cs.Text("done"),
			)
			// The script notes only the command the model ran while
			// planning: Codex also starts a shell with these variables as
			// the session begins (its shell snapshot), which no hook sees.
			e.WriteProjectFile("tools/mark", "case \"$BASH_EXECUTION_STRING\" in *CL3-PROBE*) echo ran >> '"+ran+"';; esac\n")
			e.WriteProjectFile(".codex/config.toml", table+"\nset = { BASH_ENV = \""+filepath.Join(e.Project, "tools", "mark")+"\" }\n")
			res := e.Run("plan", "-s", "workspace-write", "--trust")
			require.Equal(t, 0, res.ExitCode)
			reqs := e.Model.Requests()
			require.GreaterOrEqual(t, len(reqs), 3)
			require.Contains(t, reqs[1].Outputs[0].Output, "planning loop started")
			assert.Contains(t, reqs[2].Outputs[0].Output, "Rule: shell-env")
			assert.NoFileExists(t, ran, "the project's script ran with a command while planning")
		})
	}
}

// TestCodexCommandsRunWithCodexsShellSnapshot: Codex runs a command with the
// PATH its own snapshot of the user's shell exports (the startup files'),
// not the one its hooks get, and never reads Claude Code's snapshots. A
// relative folder that ~/.bashrc (or ~/.zshrc, or $ENV for sh: whichever
// the login shell here is) puts first on PATH ran the project's tools/cat
// for a `cat` the policy had judged by the hook's PATH and let through
// (review FA1). Now it is refused while planning; once the loop is
// cancelled the same command runs the project's file, which shows that
// this PATH is the commands' own.
func TestCodexCommandsRunWithCodexsShellSnapshot(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	e := codexPlansmithEnv(t, bin,
		startPlan(bin, "--no-memory"),
		cs.Exec("cat README.md"),
		cs.Exec(quoteBin(bin)+" cancel"),
		cs.Exec("cat README.md"),
		cs.Text("done"),
	)
	for _, rc := range []string{".bashrc", ".zshrc", ".shrc"} {
		e.WriteHomeFile(rc, "export PATH=tools:$PATH\n")
	}
	e.ExtraEnv = append(e.ExtraEnv, "ENV="+filepath.Join(e.Home, ".shrc"))
	e.WriteProjectFile("README.md", "hello\n")
	e.WriteProjectFile("tools/cat", "#!/bin/sh\necho ran >> \"$(dirname \"$0\")/../ran-cat\"\n")
	require.NoError(t, os.Chmod(filepath.Join(e.Project, "tools", "cat"), 0o755))
	res := runCodex(e, "plan")
	require.Equal(t, 0, res.ExitCode)
	reqs := e.Model.Requests()
	require.Len(t, reqs, 5)
	refused := reqs[2].Outputs[0].Output
	assert.Contains(t, refused, "Command blocked by PreToolUse hook:")
	assert.Contains(t, refused, `PATH holds "tools", relative to the folder a command runs in`)
	assert.Contains(t, reqs[3].Outputs[0].Output, "cancelled the planning loop")
	assert.Equal(t, "ran\n", e.ProjectFile("ran-cat"), "the project's cat ran once: after the loop, not while planning")
}
