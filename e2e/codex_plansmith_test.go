package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/plansmith/plansmith/e2e/codexserver"
	"github.com/plansmith/plansmith/state"
)

// These scenarios run plansmith inside the real Codex CLI: the binary is
// installed for Codex with `plansmith install --agent codex --user --trust`
// (hooks in CODEX_HOME/hooks.json, the plansmith-plan skill in
// CODEX_HOME/skills, and the hooks' trust recorded through Codex's app
// server), so Codex runs them without --dangerously-bypass-hook-trust.

// codexPlansmithEnv is a CodexEnv with bin, plansmith, installed for Codex.
// Replies that need bin get it from BuildPlansmith before the env exists:
// the model server's goroutines must not read a variable set afterwards.
func codexPlansmithEnv(t *testing.T, bin string, script ...cs.Reply) *CodexEnv {
	t.Helper()
	e := NewCodexEnv(t, script...)
	cmd := exec.Command(bin, "install", "--agent", "codex", "--user", "--trust", "--codex", e.Codex)
	cmd.Dir = e.Project
	cmd.Env = append(e.environ(), "PLANSMITH_BIN="+bin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "plansmith: installed for Codex in "+e.Home)
	// The hooks by their events, not by Codex's keys for them
	// ("<file>:pre_tool_use:0:0", review FA3).
	require.Contains(t, string(out), "trusted in Codex: plansmith's Stop, PreToolUse, UserPromptSubmit, SessionStart hooks in "+filepath.Join(e.Home, "hooks.json")+"\n")
	require.NotContains(t, string(out), ":pre_tool_use:")
	// doctor reads the trust Codex itself wrote into config.toml (review
	// BK4: a loop in Codex whose hooks are not trusted is checked by
	// nothing, and plan and doctor say so).
	doctor := exec.Command(bin, "doctor")
	doctor.Dir, doctor.Env = e.Project, cmd.Env
	out, _ = doctor.CombinedOutput() // Claude Code's hooks are not installed here: exit 1
	require.Regexp(t, `ok +codex hook trust: `, string(out))
	seedCodexProject(e)
	return e
}

func seedCodexProject(e *CodexEnv) {
	e.WriteProjectFile("cmd/api/main.go", "package main\n\n// TODO: register the rate limiter after auth.\nfunc main() {}\n")
	e.WriteProjectFile("internal/auth/middleware.go", "package auth\n\n// TODO: expose the client in the context.\n")
}

// runCodex runs codex exec with the project writable by plansmith plan (the
// workspace-write sandbox, which Codex's bundled bubblewrap provides). The
// hooks run because install trusted them.
func runCodex(e *CodexEnv, prompt string) *CodexResult {
	e.T.Helper()
	return e.Run(prompt, "-s", "workspace-write")
}

// startPlan is the model starting a loop with the plansmith-plan skill's
// command line, as written in the skill file.
func startPlan(bin, flags string) cs.Reply {
	return cs.Exec(quoteBin(bin) + " plan --agent codex " + flags + " -- '" + request + "'")
}

func quoteBin(bin string) string { return `"` + bin + `"` }

// skillPath finds a skill's SKILL.md the way Codex tells the model to: the
// entry "- NAME: … (file: rN/NAME/SKILL.md)" and the root "- `rN` = `DIR`"
// from the skills instructions. "" when the skill is not listed.
func skillPath(developer, name string) string {
	roots := map[string]string{}
	file := ""
	for _, line := range strings.Split(developer, "\n") {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, "` = `"); ok && strings.HasPrefix(k, "- `") {
			roots[strings.TrimPrefix(k, "- `")] = strings.TrimSuffix(v, "`")
		}
		if strings.HasPrefix(line, "- "+name+": ") {
			if i := strings.LastIndex(line, "(file: "); i >= 0 {
				file = strings.TrimSuffix(line[i+len("(file: "):], ")")
			}
		}
	}
	root, rest, ok := strings.Cut(file, "/")
	if !ok || roots[root] == "" {
		return ""
	}
	return filepath.Join(roots[root], rest)
}

func codexLoop(t *testing.T, e *CodexEnv) *state.Loop {
	t.Helper()
	f, err := state.Load(state.Paths{Project: e.Project}.State())
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return &f.Loop
}

// TestCodexPlanFullLoopToSavedPlan: the agent reads the installed skill,
// starts a loop with the command it names, answers every phase while
// plansmith's Stop hook blocks with the next one, and the approved plan is
// saved with the gate recorded as unavailable on Codex.
func TestCodexPlanFullLoopToSavedPlan(t *testing.T) {
	t.Parallel()
	e := codexPlansmithEnv(t, BuildPlansmith(t),
		// Read the skill Codex lists, at the path its skill roots give.
		cs.Func(func(r cs.Request) cs.Reply {
			if p := skillPath(strings.Join(r.Developer, "\n"), "plansmith-plan"); p != "" {
				return cs.Exec("cat '" + p + "'")
			}
			return cs.Text("no plansmith-plan skill listed")
		}),
		// Follow the skill: run its plan command with the request filled in.
		cs.Func(func(r cs.Request) cs.Reply {
			if len(r.Outputs) == 1 {
				for _, line := range strings.Split(r.Outputs[0].Output, "\n") {
					if cmd, ok := strings.CutSuffix(strings.TrimSpace(line), "'<the request>'"); ok && strings.Contains(cmd, " plan --agent codex -- ") {
						return cs.Exec(cmd + "'" + request + "'")
					}
				}
			}
			return cs.Text("the skill names no plan command")
		}),
		cs.Text(sessionText(t, "01-understand.md")),
		cs.Exec("grep -rn TODO cmd internal | head -20"),
		cs.Text(sessionText(t, "02-explore.md")),
		cs.Text(sessionText(t, "03-alternatives.md")),
		cs.Text(sessionText(t, "04-draft.md")),
		cs.Text(sessionText(t, "05-critique.md")),
		cs.Text(sessionText(t, "06-revise.md")),
		cs.Text(sessionText(t, "07-critique.md")),
		cs.Text(sessionText(t, "08-final.md")),
	)

	res := runCodex(e, "Use $plansmith-plan to plan: "+request)
	require.Equal(t, 0, res.ExitCode)
	assert.Equal(t, sessionText(t, "08-final.md"), res.LastMessage, "the final revise ends the turn")
	assert.Zero(t, e.Model.Overruns())
	assert.Zero(t, e.Model.Remaining())

	reqs := e.Model.Requests()
	require.Len(t, reqs, 11)
	assert.Contains(t, strings.Join(reqs[0].Developer, "\n"), "- plansmith-plan: Plan a change with plansmith", "Codex lists the installed skill")
	require.Len(t, reqs[2].Outputs, 1)
	started := reqs[2].Outputs[0].Output
	assert.Contains(t, started, "plansmith: planning loop started")
	assert.Contains(t, started, "=== understand [1/8] ===")
	require.Len(t, reqs[4].Outputs, 1)
	assert.Contains(t, reqs[4].Outputs[0].Output, "register the rate limiter", "reading is allowed while planning")

	var got []string
	for _, r := range reqs {
		got = append(got, r.HookPrompts...)
	}
	want := []string{"explore [2/8]", "alternatives [3/8]", "draft [4/8]", "critique [5/8]", "revise [6/8]", "critique [7/8]", "revise [8/8]"}
	require.Len(t, got, len(want), "one Stop block per phase, each reaching the model as a hook prompt")
	for i, label := range want {
		assert.Contains(t, got[i], "Now: "+label, "block %d", i+1)
		assert.Contains(t, got[i], request, "block %d repeats the request", i+1)
	}

	assert.Nil(t, codexLoop(t, e), "the loop is over")
	out := e.ProjectFile(".claude/plansmith-output.local.md")
	assert.Contains(t, out, "exit_reason: \"completed\"")
	assert.Contains(t, out, "verified: false")
	assert.Contains(t, out, `"status": "unavailable-on-codex"`)
	assert.Contains(t, out, "session_id: \""+res.ThreadID+"\"", "the loop was bound to the Codex thread")
	assert.Contains(t, out, "## Steps")
	assert.NotContains(t, out, "<promise>")
}

// TestCodexRefusesApplyPatchWhilePlanning: Codex's apply_patch is refused
// with the policy's reason, the file is not written, and the same patch
// runs once the loop is cancelled. The model starts the loop inside a
// folder with its own .git below the one Codex runs in (a nested
// repository): the loop is kept where Codex's hooks look from Codex's
// folder, learnt from the thread's record (review AS1: it went to
// lib/.claude, and the patch went through).
func TestCodexRefusesApplyPatchWhilePlanning(t *testing.T) {
	t.Parallel()
	const patch = "*** Begin Patch\n*** Add File: notes.md\n+# Rate limiting\n*** End Patch\n"
	bin := BuildPlansmith(t)
	e := codexPlansmithEnv(t, bin,
		cs.Exec("cd lib && "+quoteBin(bin)+" plan --agent codex --no-memory -- '"+request+"'"),
		cs.Patch(patch),
		cs.Exec(quoteBin(bin)+" cancel"),
		cs.Patch(patch),
		cs.Text("cancelled; notes written"),
	)
	lib := filepath.Join(e.Project, "lib")
	require.NoError(t, os.MkdirAll(lib, 0o755))
	out, err := exec.Command("git", "init", "-q", lib).CombinedOutput()
	require.NoError(t, err, "%s", out)

	res := runCodex(e, "plan, then write notes")
	require.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "cancelled; notes written", res.LastMessage)
	reqs := e.Model.Requests()
	require.Len(t, reqs, 5)
	assert.Contains(t, reqs[1].Outputs[0].Output, "the loop is kept in "+e.Project+", where Codex's hooks look")
	assert.Contains(t, reqs[1].Outputs[0].Output, "read-only while planning", "the hook judged plan's own call")
	assert.NoDirExists(t, filepath.Join(lib, ".claude"), "no loop kept in the nested checkout")
	require.Len(t, reqs[2].Outputs, 1)
	refused := reqs[2].Outputs[0].Output
	assert.True(t, strings.HasPrefix(refused, "Command blocked by PreToolUse hook: plansmith is planning"), refused)
	assert.Contains(t, refused, "Refused: `apply_patch notes.md`")
	assert.Contains(t, refused, "Rule: edit-tool")
	require.Len(t, reqs[3].Outputs, 1)
	assert.Contains(t, reqs[3].Outputs[0].Output, "cancel", "plansmith cancel is allowed while planning")
	require.Len(t, reqs[4].Outputs, 1)
	assert.Contains(t, reqs[4].Outputs[0].Output, "A notes.md", "after cancel the patch runs")
	assert.Equal(t, "# Rate limiting\n", e.ProjectFile("notes.md"))
}

// TestCodexRefusesWritingShellCommand: a writing shell command is refused by
// the same parser-based policy as Claude Code's Bash, a read-only pipeline
// runs, and the file is unchanged.
func TestCodexRefusesWritingShellCommand(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	e := codexPlansmithEnv(t, bin,
		startPlan(bin, "--no-memory"),
		cs.Exec("sed -i 's/TODO/DONE/' cmd/api/main.go"),
		cs.Exec("echo \"$(touch made.txt)\""),
		cs.Exec("grep -rn TODO cmd | head -5"),
		cs.Exec(quoteBin(bin)+" cancel"),
		cs.Text("done"),
	)

	res := runCodex(e, "plan")
	require.Equal(t, 0, res.ExitCode)
	reqs := e.Model.Requests()
	require.Len(t, reqs, 6)
	sed := reqs[2].Outputs[0].Output
	assert.True(t, strings.HasPrefix(sed, "Command blocked by PreToolUse hook: plansmith is planning"), sed)
	assert.Contains(t, sed, "Rule: sed-in-place")
	subst := reqs[3].Outputs[0].Output
	assert.Contains(t, subst, "Command blocked by PreToolUse hook:")
	assert.Contains(t, subst, "touch")
	assert.Contains(t, reqs[4].Outputs[0].Output, "register the rate limiter", "a read-only pipeline runs")
	assert.Contains(t, e.ProjectFile("cmd/api/main.go"), "// TODO: register", "sed did not run")
	_, err := os.Stat(filepath.Join(e.Project, "made.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the substitution did not run")
	assert.Nil(t, codexLoop(t, e))
}

// TestCodexInstallTrustNeedsATrustedProject: Codex does not read a project's
// .codex/hooks.json until the project is trusted, so --trust finds nothing
// to trust there and says so; once Codex trusts the project it works.
func TestCodexInstallTrustNeedsATrustedProject(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	e := NewCodexEnv(t, cs.Text("hi"))
	install := func() (string, error) {
		cmd := exec.Command(bin, "install", "--agent", "codex", "--trust", "--codex", e.Codex)
		cmd.Dir, cmd.Env = e.Project, e.environ()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := install()
	require.Error(t, err, out)
	assert.Contains(t, out, "codex lists none of plansmith's hooks for "+e.Project)
	// What to do is to trust the project, not what it said before (review
	// FA: "install them first", just after installing them, and "--codex
	// naming the Codex CLI", which it had found).
	assert.Contains(t, out, "trust the folder when it asks (or run codex exec --trust there once), then run this again")
	assert.NotContains(t, out, "install them first")
	assert.NotContains(t, out, "--codex naming")
	assert.FileExists(t, filepath.Join(e.Project, ".codex", "hooks.json"), "the hooks are installed all the same")

	res := e.Run("hello", "--trust") // codex exec --trust marks the project trusted
	require.Equal(t, 0, res.ExitCode)
	out, err = install()
	require.NoError(t, err, out)
	assert.Contains(t, out, "trusted in Codex: plansmith's Stop, PreToolUse, UserPromptSubmit, SessionStart hooks in "+filepath.Join(e.Project, ".codex", "hooks.json")+"\n")

	// A hook the repository carries beside them, running a file it names
	// plansmith, is not plansmith's: --user --trust trusts only what it
	// wrote, in the file it wrote (review Y, B: it was trusted, and its
	// script ran at every Codex session start).
	ran := filepath.Join(t.TempDir(), "planted-hook-ran")
	e.WriteProjectFile("tools/plansmith", "#!/bin/sh\necho \"$*\" >> '"+ran+"'\n")
	require.NoError(t, os.Chmod(filepath.Join(e.Project, "tools", "plansmith"), 0o755))
	hooks := e.ProjectFile(".codex/hooks.json")
	planted := strings.Replace(hooks, `"hooks": {`, `"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "tools/plansmith hook sessionstart --agent codex"}]}],`, 1)
	require.NotEqual(t, hooks, planted)
	e.WriteProjectFile(".codex/hooks.json", planted)
	// What config.toml records of the trust of hooks from file: each
	// hooks.state table that names it, with the line after its header.
	trustOf := func(file string) string {
		config, err := os.ReadFile(filepath.Join(e.Home, "config.toml"))
		require.NoError(t, err)
		var out []string
		lines := strings.Split(string(config), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "[hooks.state.") && strings.Contains(l, file) && i+1 < len(lines) {
				out = append(out, l, lines[i+1])
			}
		}
		return strings.Join(out, "\n")
	}
	projectTrust := trustOf(filepath.Join(e.Project, ".codex", "hooks.json"))
	require.NotEmpty(t, projectTrust)
	cmd := exec.Command(bin, "install", "--agent", "codex", "--user", "--trust", "--codex", e.Codex)
	cmd.Dir, cmd.Env = e.Project, e.environ()
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	assert.Contains(t, string(b), "trusted in Codex: plansmith's Stop, PreToolUse, UserPromptSubmit, SessionStart hooks in "+filepath.Join(e.Home, "hooks.json")+"\n")
	assert.Equal(t, projectTrust, trustOf(filepath.Join(e.Project, ".codex", "hooks.json")), "the repository's hooks are trusted as they were")
	_, err = os.Stat(ran)
	assert.ErrorIs(t, err, os.ErrNotExist, "the repository's script did not run")
}

// TestCodexForkContinuesTheLoop: a planning thread forked with `codex exec
// fork` carries the planning conversation on, and is held to the loop as
// its parent was: its apply_patch is refused, and it is recorded as
// continuing the loop (review BK10: the fork wrote freely). The loop is
// started in a terminal and bound by thread A's prompt; A is stopped
// mid-turn, as a user leaving a session does.
func TestCodexForkContinuesTheLoop(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	e := codexPlansmithEnv(t, bin,
		cs.Exec("sleep 30"), // A: stopped here
		cs.Patch("*** Begin Patch\n*** Add File: written-in-fork.txt\n+written\n*** End Patch\n"), // the fork
		cs.Exec(quoteBin(bin)+" cancel"),
		cs.Text("cancelled"),
	)
	start := exec.Command(bin, "plan", "--agent", "codex", "--no-memory", "--", request)
	start.Dir, start.Env = e.Project, e.environ()
	out, err := start.CombinedOutput()
	require.NoError(t, err, "%s", out)

	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	a := exec.CommandContext(ctx, e.Codex, "exec", "--json", "--skip-git-repo-check", "-s", "workspace-write", "--", "plan the rate limiter")
	a.Dir, a.Env = e.Project, e.environ()
	a.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, a.Start())
	thread := ""
	for deadline := time.Now().Add(30 * time.Second); thread == "" && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		if f, err := state.Load(state.Paths{Project: e.Project}.State()); err == nil {
			thread = f.Loop.SessionID
		}
	}
	require.NotEmpty(t, thread, "A's prompt binds the loop")
	for deadline := time.Now().Add(30 * time.Second); len(e.Model.Requests()) == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // A runs its sleep
	_ = syscall.Kill(-a.Process.Pid, syscall.SIGKILL)
	_ = a.Wait()

	res := e.Run("go on", "-s", "workspace-write", "fork", thread)
	require.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	require.NotEqual(t, thread, res.ThreadID, "the fork is a thread of its own")
	reqs := e.Model.Requests()
	require.Len(t, reqs, 4)
	require.Len(t, reqs[2].Outputs, 1)
	refused := reqs[2].Outputs[0].Output
	assert.True(t, strings.HasPrefix(refused, "Command blocked by PreToolUse hook: plansmith is planning"), refused)
	assert.Empty(t, e.ProjectFile("written-in-fork.txt"), "the fork is read-only")
	assert.Contains(t, reqs[3].Outputs[0].Output, "cancelled the planning loop")
	assert.Equal(t, "cancelled", res.LastMessage)
}

// TestCodexIsAskedWhetherItRunsTheHooks: with codex on PATH, plan and
// doctor ask Codex itself (app-server hooks/list) whether it runs
// plansmith's hooks: trusted as installed, yes; the hooks feature turned
// off by the project's own .codex/config.toml, or a hook changed since it
// was trusted (an install from a moved binary), no, and plan says NOT
// CHECKED (reviews BN2, BN4: it promised read-only while Codex ran none).
func TestCodexIsAskedWhetherItRunsTheHooks(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	moved := filepath.Join(t.TempDir(), "plansmith")
	e := codexPlansmithEnv(t, bin, cs.Text("hi"),
		cs.Exec(quoteBin(moved)+" plan --agent codex --no-memory -- '"+request+"'"), cs.Text("started"))
	path := t.TempDir()
	require.NoError(t, os.Symlink(e.Codex, filepath.Join(path, "codex")))
	environ := append(e.environ(), "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	plan := func(bin string) string {
		t.Helper()
		cmd := exec.Command(bin, "plan", "--agent", "codex", "--no-memory", "--", request)
		cmd.Dir, cmd.Env = e.Project, environ
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		cancel := exec.Command(bin, "cancel")
		cancel.Dir, cancel.Env = e.Project, environ
		b, err := cancel.CombinedOutput()
		require.NoError(t, err, "%s", b)
		return string(out)
	}
	assert.Contains(t, plan(bin), "read-only while planning")
	// The SessionStart hook not trusted (an install from before it, the new
	// hook not yet reviewed): the loop is checked all the same, as only it
	// tells a new thread of a loop left by another (review DA2).
	config := filepath.Join(e.Home, "config.toml")
	trusted, err := os.ReadFile(config)
	require.NoError(t, err)
	untrusted := regexp.MustCompile(`(?m)^\[hooks\.state\."[^"]*:session_start:[^"]*"\]\n[^\[]*`).ReplaceAll(trusted, nil)
	require.NotEqual(t, string(trusted), string(untrusted), "install --trust trusted the SessionStart hook")
	require.NoError(t, os.WriteFile(config, untrusted, 0o600))
	got := plan(bin)
	assert.Contains(t, got, "read-only while planning")
	assert.NotContains(t, got, "NOT CHECKED")
	require.NoError(t, os.WriteFile(config, trusted, 0o600))
	doctor := exec.Command(bin, "doctor")
	doctor.Dir, doctor.Env = e.Project, environ
	out, _ := doctor.CombinedOutput()
	assert.Regexp(t, `ok +codex hook trust: Codex \(.*\) lists plansmith's hooks trusted and enabled`, string(out))

	// The project's own config turns the feature off, in a trusted project.
	res := e.Run("hello", "--trust")
	require.Equal(t, 0, res.ExitCode)
	e.WriteProjectFile(".codex/config.toml", "[features]\nhooks = false\n")
	got = plan(bin)
	assert.Contains(t, got, "NOT CHECKED: Codex does not list plansmith's PreToolUse, Stop, UserPromptSubmit hooks")
	require.NoError(t, os.Remove(filepath.Join(e.Project, ".codex", "config.toml")))

	// Installed again from a moved binary, without --trust: Codex holds the
	// changed hooks untrusted.
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(moved, data, 0o755))
	install := exec.Command(moved, "install", "--agent", "codex", "--user")
	install.Dir, install.Env = e.Project, environ
	b, err := install.CombinedOutput()
	require.NoError(t, err, "%s", b)
	assert.Contains(t, plan(moved), "NOT CHECKED: Codex reports plansmith's PreToolUse, Stop, UserPromptSubmit hooks as modified")

	// Run by the model inside Codex's sandbox, where codex cannot be asked:
	// no hook judged plan's own call, and plan says so (review BO1).
	res = e.Run("plan", "-s", "workspace-write")
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	reqs := e.Model.Requests()
	last := reqs[len(reqs)-1]
	require.Len(t, last.Outputs, 1)
	assert.Contains(t, last.Outputs[0].Output, "NOT CHECKED: Codex ran this command without plansmith's PreToolUse hook judging it")
}

// TestCodexPlanSaysWhenStopIsNotTrusted: the PreToolUse hook judged plan's
// call, but Codex holds the Stop hook untrusted: nothing would move the
// loop on or check its answers, and plan says so, from what the hook found
// outside the sandbox (review BQ1: it said read-only, and the loop sat).
func TestCodexPlanSaysWhenStopIsNotTrusted(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	e := codexPlansmithEnv(t, bin, startPlan(bin, "--no-memory"), cs.Text("started"))
	config := filepath.Join(e.Home, "config.toml")
	data, err := os.ReadFile(config)
	require.NoError(t, err)
	var kept []string
	skip := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "[") {
			skip = strings.Contains(line, ":stop:")
		}
		if !skip {
			kept = append(kept, line)
		}
	}
	require.NotEqual(t, string(data), strings.Join(kept, "\n"), "the Stop hook's trust entry is there to drop")
	require.NoError(t, os.WriteFile(config, []byte(strings.Join(kept, "\n")), 0o644))

	res := runCodex(e, "plan the rate limiter")
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	reqs := e.Model.Requests()
	require.GreaterOrEqual(t, len(reqs), 2)
	require.Len(t, reqs[1].Outputs, 1)
	assert.Contains(t, reqs[1].Outputs[0].Output, "NOT CHECKED: plansmith's PreToolUse hook ran, but Codex has no trust recorded for plansmith's Stop hook")
}

// TestCodexWorkdirElsewhereIsStillPlanning: Codex sends a call's workdir as
// the hook's cwd. With a workdir outside the project, the hook found no loop
// and `touch <project>/x` ran while planning (review CL1); now it is refused.
func TestCodexWorkdirElsewhereIsStillPlanning(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	outside := t.TempDir()
	// The project is known once the environment is made, after the script
	// is: the model server's goroutine reads it through an atomic (a plain
	// variable raced with it under the race detector, which cannot see
	// that Codex only asks after the assignment).
	var escaped atomic.Pointer[string]
	e := codexPlansmithEnv(t, bin,
		startPlan(bin, "--no-memory"),
		cs.Func(func(cs.Request) cs.Reply {
			return cs.Reply{Call: &cs.Call{Name: "exec_command", Input: map[string]any{
				"cmd": "touch " + *escaped.Load(), "workdir": outside}}}
		}),
		cs.Exec(quoteBin(bin)+" cancel"),
		cs.Text("done"),
	)
	target := filepath.Join(e.Project, "escaped.txt")
	escaped.Store(&target)
	res := runCodex(e, "plan")
	require.Equal(t, 0, res.ExitCode)
	reqs := e.Model.Requests()
	require.GreaterOrEqual(t, len(reqs), 3)
	assert.Contains(t, reqs[2].Outputs[0].Output, "Command blocked by PreToolUse hook:")
	assert.NoFileExists(t, target)
}
