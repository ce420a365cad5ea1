package loop

// Bash commands judged through PreToolUse against the user's shell as the
// Bash tool runs it: the PATH it looks programs up in and Claude Code's
// snapshot of the user's shell (the reading itself is package bashtool's,
// and tested there).

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A project carrying bin/ls with "bin" in PATH: the shell would run it for
// ls. PreToolUse refuses, where it allows ls with an absolute PATH.
func TestPreToolUseRefusesANameARelativePathEntryFinds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	env, p := blockingLoop(t)
	require.NoError(t, os.MkdirAll(filepath.Join(p.Project, "bin"), 0o755))
	marker := filepath.Join(t.TempDir(), "ran")
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, "bin", "ls"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))

	path := "bin:" + os.Getenv("PATH")
	if sh, err := exec.LookPath("sh"); err == nil {
		cmd := exec.Command(sh, "-c", "ls >/dev/null")
		cmd.Dir = p.Project
		cmd.Env = []string{"PATH=" + path}
		require.NoError(t, cmd.Run())
		require.FileExists(t, marker, "the shell runs the project's bin/ls for ls")
	}

	judge := func(path string) ToolOutcome { return bashWithPATH(t, env, p.Project, path, "ls -la") }
	refused := judge(path)
	assert.True(t, refused.Deny)
	assert.Contains(t, refused.Reason, "path-lookup")
	assert.Contains(t, refused.Reason, `"bin"`)
	assert.False(t, judge(os.Getenv("PATH")).Deny, "with the usual absolute PATH ls is allowed")
	// The same folder named absolutely (direnv's PATH_add bin): the shell
	// runs the project's bin/ls all the same (review Q).
	inside := judge(filepath.Join(p.Project, "bin") + ":" + os.Getenv("PATH"))
	assert.True(t, inside.Deny)
	assert.Contains(t, inside.Reason, "a folder of the project")
}

// A program named by its path starts its helpers by name: with "." in
// PATH, /usr/bin/zcat runs the project's ./gzip (review O). Refused.
func TestPreToolUseRefusesAProgramByPathWhenPATHIsRelative(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	env, p := blockingLoop(t)
	marker := filepath.Join(t.TempDir(), "ran")
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, "gzip"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))
	path := ".:" + os.Getenv("PATH")
	if zcat, err := exec.LookPath("zcat"); err == nil {
		if b, err := os.ReadFile(zcat); err == nil && strings.HasPrefix(string(b), "#!") {
			cmd := exec.Command("sh", "-c", zcat+" x.gz")
			cmd.Dir = p.Project
			cmd.Env = []string{"PATH=" + path}
			_ = cmd.Run()
			require.FileExists(t, marker, "this system's zcat runs gzip by name: the project's ./gzip ran")
		}
	}
	for _, command := range []string{"/usr/bin/zcat x.gz", "/bin/zcat x.gz", "env /usr/bin/zcat x.gz"} {
		out := bashWithPATH(t, env, p.Project, path, command)
		assert.True(t, out.Deny, command)
		assert.Contains(t, out.Reason, "path-lookup", command)
	}
}

// shopt and help are bash's builtins only: zsh (the Bash tool's shell on
// macOS) looks them up in PATH, so a relative entry finds a project's
// bin/shopt. They are refused there; echo, a builtin of both, is not.
func TestBashOnlyBuiltinsAreLookedUp(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	env, p := blockingLoop(t)
	require.NoError(t, os.MkdirAll(filepath.Join(p.Project, "bin"), 0o755))
	marker := filepath.Join(t.TempDir(), "ran")
	for _, name := range []string{"shopt", "help"} {
		require.NoError(t, os.WriteFile(filepath.Join(p.Project, "bin", name), []byte("#!/bin/sh\ntouch "+marker+"-"+name+"\n"), 0o755))
	}
	path := "bin:" + os.Getenv("PATH")
	if zsh, err := exec.LookPath("zsh"); err == nil {
		cmd := exec.Command(zsh, "-fc", "shopt -s nullglob; help cd")
		cmd.Dir = p.Project
		cmd.Env = []string{"PATH=" + path}
		cmd.Run()
		require.FileExists(t, marker+"-shopt", "zsh runs the project's bin/shopt")
		require.FileExists(t, marker+"-help", "zsh runs the project's bin/help")
	}
	judge := func(command string) ToolOutcome { return bashWithPATH(t, env, p.Project, path, command) }
	for _, command := range []string{"shopt -s nullglob", "help cd", "command shopt -p"} {
		out := judge(command)
		assert.True(t, out.Deny, command)
		assert.Contains(t, out.Reason, "path-lookup", command)
	}
	assert.False(t, judge("echo hi").Deny, "echo is a builtin in bash and zsh alike")
}

// bashWithPATH judges command as session s's Bash call in project, with
// PATH the only variable the hook sees.
func bashWithPATH(t *testing.T, env Env, project, path, command string) ToolOutcome {
	t.Helper()
	env.Getenv = func(k string) string {
		if k == "PATH" {
			return path
		}
		return ""
	}
	return bashCall(t, env, project, command)
}

// Through PreToolUse: with a snapshot that defines chpwd, a cd is refused
// while the loop blocks tools; the same command without it passes.
func TestPreToolUseRefusesACdThatRunsChpwd(t *testing.T) {
	judge, dir := snapshotSession(t, map[string]string{"PATH": "/usr/bin:/bin"})
	assert.False(t, judge("cd sub && ls").Deny)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snapshot-zsh-1-a.sh"), []byte("chpwd () {\n\t. ./.venv/bin/activate\n}\n"), 0o644))
	out := judge("cd sub && ls")
	require.True(t, out.Deny)
	assert.Contains(t, out.Reason, "shell-function")
	assert.Contains(t, out.Reason, "chpwd is a function of your shell")
	assert.False(t, judge("ls sub").Deny)

	// allexport among the shell's options: a plain assignment is an export
	// (review CN7: GROFF_BIN_PATH=$PWD; man jq ran the project's troff).
	assert.False(t, judge("PROJ_ROOT=$PWD; ls").Deny)
	for _, option := range []string{"set -o allexport", "setopt allexport"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "snapshot-zsh-1-a.sh"), []byte("# Shell Options\nset -o braceexpand\n"+option+"\n"), 0o644))
		out := judge("PROJ_ROOT=$PWD; ls")
		assert.True(t, out.Deny, option)
		assert.Contains(t, out.Reason, "env-var", option)
		assert.False(t, judge("proj_root=$PWD; ls").Deny, "a lower-case name is no program's")
	}

	// bash's keyword option: NAME=VALUE after the command is an export
	// (review CN8).
	assert.False(t, judge("ls NODE_OPTIONS=x").Deny)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snapshot-bash-1-a.sh"), []byte("# Shell Options\nset -o hashall\nset -o keyword\n"), 0o644))
	out = judge("ls NODE_OPTIONS=x")
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "set -k")
}

// The Bash tool's commands run with the PATH the snapshot exports, not the
// hook's own (Claude Code started from an editor may lack what the user's
// startup files add): a program the hook's PATH does not hold is not "not
// installed" when the snapshot's does, and a relative entry in the
// snapshot's PATH counts though the hook's has none.
func TestPreToolUseLooksProgramsUpInTheSnapshotsPath(t *testing.T) {
	judge, dir := snapshotSession(t, map[string]string{"PATH": "/nonexistent/bin"})
	out := judge("ls sub")
	require.True(t, out.Deny, "ls is in no folder of the hook's PATH")
	assert.Contains(t, out.Reason, "not-installed")

	snapshot := filepath.Join(dir, "snapshot-bash-1-a.sh")
	require.NoError(t, os.WriteFile(snapshot, []byte("# Aliases\nexport PATH=/usr/bin:/bin\n"), 0o644))
	assert.False(t, judge("ls sub").Deny, "the snapshot's PATH has ls")

	require.NoError(t, os.WriteFile(snapshot, []byte("export PATH=.:/usr/bin:/bin\n"), 0o644))
	out = judge("ls sub")
	require.True(t, out.Deny, "the snapshot's PATH looks in the folder the command runs in first")
	assert.Contains(t, out.Reason, "relative to the folder a command runs in")
}

// zsh's command runs only programs (review CR1): the policy learns the
// user's shell is zsh from a zsh snapshot, or from $SHELL before there is
// one; zsh's POSIX_BUILTINS lets command run builtins again.
func TestPreToolUseKnowsZshCommandRunsPrograms(t *testing.T) {
	vars := map[string]string{"PATH": "/usr/bin:/bin", "SHELL": "/bin/bash"}
	judge, dir := snapshotSession(t, vars)
	if _, err := os.Stat("/usr/bin/cd"); err == nil {
		t.Skip("a program cd is installed here")
	}
	assert.False(t, judge("command cd sub && ls").Deny, "bash's command runs its builtin cd")
	vars["SHELL"] = "/usr/bin/zsh"
	out := judge("command cd sub && ls")
	require.True(t, out.Deny, "$SHELL is zsh")
	assert.Contains(t, out.Reason, "not-installed")
	assert.Contains(t, out.Reason, "zsh's command runs only a program named cd")
	assert.False(t, judge("cd sub && ls").Deny)

	vars["SHELL"] = "/bin/bash"
	snapshot := filepath.Join(dir, "snapshot-zsh-1-a.sh")
	require.NoError(t, os.WriteFile(snapshot, []byte("# Shell Options\nsetopt login\n"), 0o644))
	assert.True(t, judge("command cd sub && ls").Deny, "a zsh snapshot")
	require.NoError(t, os.WriteFile(snapshot, []byte("# Shell Options\nsetopt login\nsetopt posixbuiltins\n"), 0o644))
	assert.False(t, judge("command cd sub && ls").Deny, "zsh with POSIX_BUILTINS runs the builtin")
	require.NoError(t, os.Rename(snapshot, filepath.Join(dir, "snapshot-bash-1-a.sh")))
	assert.False(t, judge("command cd sub && ls").Deny, "a bash snapshot")
}

// The PATH line as the real shells print it with printf %q where the
// locale is C (a devcontainer's): bash writes $'...' for a folder whose
// name is not ASCII, zsh $'\303' inside the word. The reader once dropped
// such a line and judged with the hook's PATH, which lacked the project's
// node_modules/.bin the Bash tool's shell ran ls from (review CR2). A PATH
// line that cannot be read refuses every program.
func TestPreToolUseReadsTheSnapshotsQuotedPath(t *testing.T) {
	judge, dir := snapshotSession(t, map[string]string{"PATH": "/usr/bin:/bin"})
	snapshot := filepath.Join(dir, "snapshot-bash-1-a.sh")
	const path = "/home/jos\303\251/bin:node_modules/.bin:/usr/bin:/bin"
	var lines []string
	for _, shell := range []string{"bash", "zsh"} {
		if sh, err := exec.LookPath(shell); err == nil {
			cmd := exec.Command(sh, "-c", `builtin printf 'export PATH=%q\n' "$1"`, "_", path)
			cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
			out, err := cmd.Output()
			require.NoError(t, err, shell)
			lines = append(lines, string(out))
		}
	}
	lines = append(lines, "export PATH=$'/home/jos\\303\\251/bin:node_modules/.bin:/usr/bin:/bin'\n")
	for _, line := range lines {
		require.NoError(t, os.WriteFile(snapshot, []byte("# Aliases\n"+line), 0o644))
		out := judge("ls sub")
		require.True(t, out.Deny, line)
		assert.Contains(t, out.Reason, `"node_modules/.bin", relative to the folder a command runs in`, line)
	}
	require.NoError(t, os.WriteFile(snapshot, []byte("export PATH=/usr/bin:/bin\n"), 0o644))
	assert.False(t, judge("ls sub").Deny)
	require.NoError(t, os.WriteFile(snapshot, []byte("export PATH=\"$HOME/bin:/usr/bin\"\n"), 0o644))
	out := judge("ls sub")
	require.True(t, out.Deny, "a PATH line that cannot be read")
	assert.Contains(t, out.Reason, "could not be read")
	assert.False(t, judge("cd sub && echo x").Deny, "builtins need no PATH")
}

// snapshotSession starts a loop that blocks tools and returns a judge of
// its session's Bash commands, the hook's environment read from vars (a
// test may change them between calls), and the folder of Claude Code's
// shell snapshots, empty until the test writes one.
func snapshotSession(t *testing.T, vars map[string]string) (judge func(command string) ToolOutcome, snapshots string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	env, p := blockingLoop(t)
	config := t.TempDir()
	snapshots = filepath.Join(config, "shell-snapshots")
	require.NoError(t, os.MkdirAll(snapshots, 0o755))
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return vars[k]
	}
	return func(command string) ToolOutcome {
		t.Helper()
		return bashCall(t, env, p.Project, command)
	}, snapshots
}

// bashCall is PreToolUse on the Bash command of session "s" in cwd.
func bashCall(t *testing.T, env Env, cwd, command string) ToolOutcome {
	t.Helper()
	in, err := json.Marshal(map[string]string{"command": command})
	require.NoError(t, err)
	return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: cwd}, Tool: "Bash", Input: in})
}

// A project whose .claude/settings.json sets BASH_ENV under env: Claude Code
// starts every Bash command with it, so the shell runs the project's script
// before ls (review FD1, seen with Claude Code 2.1.197 and 2.1.330). While
// planning, shell commands are refused, plansmith's own included; the Read
// tool is not, and a Codex loop, whose client reads no such file, is left
// alone.
func TestPreToolUseRefusesTheShellWhileProjectSettingsSetVariables(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	env, p := blockingLoop(t)
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(p.Project, "tools", "env.sh")
	require.NoError(t, os.MkdirAll(filepath.Dir(script), 0o755))
	require.NoError(t, os.WriteFile(script, []byte("touch "+marker+"\n"), 0o644))
	if bash, err := exec.LookPath("bash"); err == nil {
		cmd := exec.Command(bash, "-c", "ls >/dev/null")
		cmd.Dir = p.Project
		cmd.Env = []string{"BASH_ENV=" + script}
		require.NoError(t, cmd.Run())
		require.FileExists(t, marker, "bash runs BASH_ENV's script before ls")
	}
	ls := func() ToolOutcome { return bashCall(t, env, p.Project, "ls -la") }
	require.False(t, ls().Deny, "no settings file yet")

	settings := filepath.Join(p.Project, ".claude", "settings.json")
	require.NoError(t, os.WriteFile(settings, []byte(`{"env": {"BASH_ENV": "`+script+`"}}`), 0o644))
	out := ls()
	require.True(t, out.Deny)
	assert.Contains(t, out.Reason, "Rule: settings-env")
	assert.Contains(t, out.Reason, settings)
	assert.Contains(t, out.Reason, `"BASH_ENV"`)
	assert.True(t, bashCall(t, env, p.Project, "plansmith status").Deny, "the shell runs BASH_ENV before plansmith too")
	read := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Read", Input: json.RawMessage(`{"file_path":"x"}`)})
	assert.False(t, read.Deny, "the Read tool runs no shell")

	require.NoError(t, os.WriteFile(settings, []byte(`{"env": {"DISABLE_TELEMETRY": "1"}}`), 0o644))
	assert.False(t, ls().Deny, "a variable only Claude Code reads")

	require.NoError(t, os.WriteFile(settings, []byte(`{"env": {"CLAUDE_ENV_FILE": "`+script+`"}}`), 0o644))
	require.True(t, ls().Deny)
	rewriteLoop(t, p, func(l *state.Loop) { l.Agent = state.AgentCodex })
	assert.False(t, ls().Deny, "Codex reads no .claude/settings.json")
}

// A project's Claude Code settings may set HOME, and Claude Code 2.1.197
// gives the hooks that HOME (review FD5). Set to a folder the repository
// fills, it held a list approving the project's own
// .claude/plansmith-policy.yaml, whose tools: entry then let the Skill tool
// run while planning; set to the project itself, it passed the project's
// settings off as the user's, and BASH_ENV there went unjudged. Neither
// counts now.
func TestPreToolUseTakesNoApprovalFromAHomeTheProjectSets(t *testing.T) {
	env, p := blockingLoop(t)
	fake := filepath.Join(p.Project, "fh")
	vars := map[string]string{"HOME": fake}
	env.Getenv = func(k string) string { return vars[k] }
	policyFile := "tools:\n  - Skill\n"
	require.NoError(t, os.MkdirAll(filepath.Join(p.Project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, ".claude", "plansmith-policy.yaml"), []byte(policyFile), 0o644))
	require.NoError(t, policy.Approve(fake, p.Project, []byte(policyFile)))
	skill := func() ToolOutcome {
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Skill", Input: json.RawMessage(`{"skill":"evil"}`)})
	}
	require.False(t, skill().Deny, "an approval in HOME counts while nothing says the project chose that HOME")

	settings := filepath.Join(p.Project, ".claude", "settings.json")
	require.NoError(t, os.WriteFile(settings, []byte(`{"env": {"HOME": "`+fake+`"}}`), 0o644))
	out := skill()
	assert.True(t, out.Deny, "the project's settings chose this HOME: its approvals are the repository's")
	assert.Contains(t, out.Reason, "Rule: unknown-tool")

	// HOME set to the project itself: its settings are not the user's.
	vars["HOME"] = p.Project
	require.NoError(t, os.WriteFile(settings, []byte(`{"env": {"HOME": "`+p.Project+`", "BASH_ENV": "`+filepath.Join(p.Project, "x")+`"}}`), 0o644))
	ls := bashCall(t, env, p.Project, "ls")
	assert.True(t, ls.Deny)
	assert.Contains(t, ls.Reason, "Rule: settings-env")
	assert.Contains(t, ls.Reason, `"BASH_ENV"`)
}

// The settings Claude Code takes its env from are where it was started
// ($CLAUDE_PROJECT_DIR), which may not be the loop's project (a loop found
// in the folder a cd went to): both are read (review FG, a mutant that
// read the loop's project alone survived every test).
func TestPreToolUseReadsTheSettingsWhereClaudeCodeStarted(t *testing.T) {
	env, p := blockingLoop(t)
	started := t.TempDir()
	getenv := env.Getenv
	env.Getenv = func(k string) string {
		if k == "CLAUDE_PROJECT_DIR" {
			return started
		}
		return getenv(k)
	}
	require.False(t, bashCall(t, env, p.Project, "ls -la").Deny, "no settings file yet")
	settings := filepath.Join(started, ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	require.NoError(t, os.WriteFile(settings, []byte(`{"env": {"BASH_ENV": "`+filepath.Join(started, "x")+`"}}`), 0o644))
	out := bashCall(t, env, p.Project, "ls -la")
	require.True(t, out.Deny)
	assert.Contains(t, out.Reason, "Rule: settings-env")
	assert.Contains(t, out.Reason, settings)
}

// A Codex loop's commands are judged by Codex's own snapshots of the
// user's shell, a Claude Code loop's by Claude Code's (review FA1; review
// FH: with Claude Code's read for a Codex loop, no test but the e2e one
// with the real Codex failed).
func TestPreToolUseReadsTheSnapshotsOfTheLoopsClient(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	env, p := blockingLoop(t)
	claude, codex := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(filepath.Join(claude, "shell-snapshots", "snapshot-bash-1.sh"), "export PATH=claude-tools:/usr/bin:/bin\n")
	write(filepath.Join(codex, "shell_snapshots", "0199aaaa.1.sh"), "declare -x PATH=\"codex-tools:/usr/bin:/bin\"\n")
	env.Getenv = func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": claude, "CODEX_HOME": codex, "PATH": "/usr/bin:/bin"}[k]
	}
	out := bashCall(t, env, p.Project, "ls sub")
	require.True(t, out.Deny)
	assert.Contains(t, out.Reason, `"claude-tools"`)
	assert.NotContains(t, out.Reason, "codex-tools")

	rewriteLoop(t, p, func(l *state.Loop) { l.Agent = state.AgentCodex })
	out = bashCall(t, env, p.Project, "ls sub")
	require.True(t, out.Deny)
	assert.Contains(t, out.Reason, `"codex-tools"`)
	assert.NotContains(t, out.Reason, "claude-tools")
}
