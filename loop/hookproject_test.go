package loop

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/state"
)

// projectEnv is testEnv with $CLAUDE_PROJECT_DIR set to the project, as
// Claude Code sets it for every hook, and a subfolder sub/deeper in it.
func projectEnv(t *testing.T) (Env, state.Paths, string) {
	t.Helper()
	env, p, _ := testEnv(t)
	env.Getenv = func(k string) string {
		if k == "CLAUDE_PROJECT_DIR" {
			return p.Project
		}
		return ""
	}
	sub := filepath.Join(p.Project, "sub")
	require.NoError(t, os.MkdirAll(filepath.Join(sub, "deeper"), 0o755))
	return env, p, sub
}

// guardedLoop is projectEnv with a loop running in the project that keeps
// it read-only.
func guardedLoop(t *testing.T) (Env, state.Paths, string) {
	t.Helper()
	env, p, sub := projectEnv(t)
	o := testOptions()
	o.BlockTools = true
	_, err := Start(env, p, o)
	require.NoError(t, err)
	return env, p, sub
}

func writeState(t *testing.T, dir string) {
	t.Helper()
	p := state.Paths{Project: dir}
	require.NoError(t, os.MkdirAll(filepath.Dir(p.State()), 0o755))
	require.NoError(t, os.WriteFile(p.State(), []byte("x"), 0o644))
}

func TestHookProject(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "project")
	sub := filepath.Join(project, "sub")
	deeper := filepath.Join(sub, "deeper")
	other := filepath.Join(root, "other")
	require.NoError(t, os.MkdirAll(deeper, 0o755))
	require.NoError(t, os.MkdirAll(other, 0o755))

	// No state anywhere: the project when cwd is inside it, else cwd.
	assert.Equal(t, project, hookProject(project, project, ""))
	assert.Equal(t, project, hookProject(deeper, project, ""))
	assert.Equal(t, other, hookProject(other, project, ""))
	// Codex sets no $CLAUDE_PROJECT_DIR: its session's folder, as sent.
	assert.Equal(t, deeper, hookProject(deeper, "", ""))
	assert.Equal(t, project, hookProject("relative", project, ""), "a cwd that is not absolute is malformed input: the project")

	writeState(t, project)
	assert.Equal(t, project, hookProject(deeper, project, ""), "the project's loop is found from below")
	assert.Equal(t, project, hookProject(other, project, ""), "and from a folder outside the project")
	assert.Equal(t, deeper, hookProject(deeper, "", ""), "without $CLAUDE_PROJECT_DIR nothing is looked for above cwd")

	writeState(t, sub) // a loop started after a cd into sub
	assert.Equal(t, sub, hookProject(deeper, project, ""), "the nearest state entry wins")
	assert.Equal(t, sub, hookProject(sub, project, ""))
	assert.Equal(t, project, hookProject(project, project, ""))

	writeState(t, other)
	assert.Equal(t, other, hookProject(other, project, ""), "outside the project, cwd's own loop first")

	// With more than one entry, a running loop comes before a finished one.
	// (writeState's entries cannot be read, which counts as running.)
	writeLoop(t, sub, false)
	writeLoop(t, project, true)
	assert.Equal(t, project, hookProject(deeper, project, ""), "a finished loop in sub does not hide the project's")
	writeLoop(t, sub, true)
	assert.Equal(t, sub, hookProject(deeper, project, ""), "of two running loops the nearest")
	writeLoop(t, sub, false)
	writeLoop(t, project, false)
	assert.Equal(t, sub, hookProject(deeper, project, ""), "of two finished ones the nearest")
	writeLoop(t, other, false)
	writeLoop(t, project, true)
	assert.Equal(t, project, hookProject(other, project, ""), "outside the project too")
	writeState(t, sub)
	assert.Equal(t, sub, hookProject(deeper, project, ""), "an entry that cannot be read may be a running loop")
}

// writeLoop writes (or replaces) a readable state entry in dir whose loop
// is running or finished.
func writeLoop(t *testing.T, dir string, active bool) {
	t.Helper()
	p := state.Paths{Project: dir}
	require.NoError(t, os.MkdirAll(filepath.Dir(p.State()), 0o755))
	require.NoError(t, state.Save(p.State(), &state.File{Loop: state.Loop{Active: active, Request: "r", Phases: []string{"understand"}, Project: dir}}))
}

// writeFront writes dir's state entry with the frontmatter front.
func writeFront(t *testing.T, dir, front string) {
	t.Helper()
	p := state.Paths{Project: dir}
	require.NoError(t, os.MkdirAll(filepath.Dir(p.State()), 0o755))
	require.NoError(t, os.WriteFile(p.State(), []byte("---\n"+front+"phases:\n  - \"understand\"\nphase_index: 0\n---\n"), 0o644))
}

// A loop bound to no session that names no project folder was not started
// by plansmith plan (which records it): a repository can carry one. The
// session's Stop does not take it on, even with no loop of its own.
func TestUnboundLoopWithoutAFolderIsNotTakenOn(t *testing.T) {
	env, p, _ := testEnv(t)
	writeFront(t, p.Project, "active: true\nmax_retries: 5\n")
	before, err := os.ReadFile(p.State())
	require.NoError(t, err)
	out := Stop(env, StopEvent{Session: Session{ID: "s", Cwd: p.Project}, LastMessage: answer("too short"), BlockCap: 8})
	assert.Equal(t, Pause, out.Kind, "nothing to drive, but the user is told (review AB3)")
	assert.Contains(t, out.Message, "that plansmith did not start on this machine")
	after, err := os.ReadFile(p.State())
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "left as it was")
	// The user's /plansmith:cancel ends it: tool calls stayed read-only.
	prompt := PromptSubmit(env, PromptEvent{Session: Session{ID: "s", Cwd: p.Project}, Prompt: "/plansmith:cancel"})
	assert.Contains(t, prompt.Message, "is cancelled")
	assert.NoFileExists(t, p.State())
}

// A loop's project folder counts only when it names one folder for every
// process: "." or /proc/self/cwd name whichever folder a hook runs in (the
// review of the fix: a carried state file claimed the folder it was cloned
// to, beat the session's unbound loop and let every call through, or was
// taken on by a Stop). Hooks run in the session's folder, so the tests do.
func TestMagicProjectFolderNamesNoFolder(t *testing.T) {
	for _, project := range []string{".", "./", "/proc/self/cwd", "/proc/thread-self/cwd", "/dev/fd/../../proc/self/cwd"} {
		t.Run(project, func(t *testing.T) {
			env, p, sub := guardedLoop(t) // unbound: started without a session id
			writeFront(t, sub, "active: true\nproject: \""+project+"\"\nblock_tools: false\n")
			t.Chdir(sub)
			write := []byte(`{"file_path":"` + filepath.Join(p.Project, "x") + `","content":"y"}`)
			assert.True(t, PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: sub}, Tool: "Write", Input: write}).Deny)
			assert.False(t, namesDir(project, sub))

			other, q, _ := testEnv(t)
			writeFront(t, q.Project, "active: true\nproject: \""+project+"\"\nmax_retries: 5\n")
			before, err := os.ReadFile(q.State())
			require.NoError(t, err)
			t.Chdir(q.Project)
			Stop(other, StopEvent{Session: Session{ID: "v", Cwd: q.Project}, LastMessage: answer("too short"), BlockCap: 8})
			after, err := os.ReadFile(q.State())
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after), "not taken on")
		})
	}
}

// A project in an ordinary folder under /dev (tmpfs in /dev/shm, where the
// tests may run) is a project like any other.
func TestNamesDirUnderDevShm(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "plansmith-names")
	if err != nil {
		t.Skipf("no /dev/shm here: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	assert.True(t, namesDir(dir, dir))
	assert.False(t, namesDir("/dev/fd/3", dir))
}

// A state entry in a subfolder that is not the session's loop (another
// session's, one a repository carries, one bound to no session and naming
// no folder or another) must not hide the session's own loop above it:
// after a cd into that subfolder every tool call was allowed (the tenth
// review, proven with Claude Code 2.1.330 and 2.1.197). Nor may the
// session's Stop or prompt there take such a loop on.
func TestForeignLoopBelowDoesNotHideTheSessions(t *testing.T) {
	for name, front := range map[string]string{
		"another session's":               "active: true\nsession_id: \"someone-else\"\nblock_tools: false\n",
		"another folder's":                "active: true\nproject: \"/elsewhere\"\n",
		"bound to none, no folder":        "active: true\nmax_retries: 5\n",
		"bound to none, its folder":       "",
		"the session's, another folder's": "active: true\nsession_id: \"s\"\nproject: \"/elsewhere\"\nblock_tools: false\n",
	} {
		t.Run(name, func(t *testing.T) {
			env, p, sub := guardedLoop(t)
			f, err := state.Load(p.State())
			require.NoError(t, err)
			f.Loop.SessionID = "s"
			require.NoError(t, state.Save(p.State(), f))
			if front == "" {
				front = "active: true\nproject: \"" + sub + "\"\n"
			}
			writeFront(t, sub, front)
			before, err := os.ReadFile(state.Paths{Project: sub}.State())
			require.NoError(t, err)
			assert.Equal(t, p.Project, hookProject(sub, p.Project, "s"), "the session's own loop first")
			// And a fork's of it: held as its parent (review BO5).
			fork := Session{ID: "fork", Cwd: sub, ForkedFrom: forkedFrom("s", time.Time{})}
			assert.Equal(t, p.Project, hookProjectOf(sub, p.Project, fork))
			assert.True(t, PreToolUse(env, ToolEvent{Session: fork, Tool: "Write", Input: []byte(`{"file_path":"x","content":"y"}`)}).Deny)

			write := []byte(`{"file_path":"` + filepath.Join(p.Project, "x") + `","content":"y"}`)
			from := func(cwd string) bool {
				return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: cwd}, Tool: "Write", Input: write}).Deny
			}
			assert.True(t, from(p.Project), "from the project")
			assert.True(t, from(sub), "from the subfolder")
			Stop(env, StopEvent{Session: Session{ID: "s", Cwd: sub}, LastMessage: answer("too short"), BlockCap: 8})
			PromptSubmit(env, PromptEvent{Session: Session{ID: "s", Cwd: sub}, Prompt: "go on"})
			assert.True(t, from(sub), "after a Stop and a prompt there")
			planted, err := os.ReadFile(state.Paths{Project: sub}.State())
			require.NoError(t, err)
			assert.Equal(t, string(before), string(planted), "the subfolder's loop was not taken on")
		})
	}
}

// After a `cd sub` in the Bash tool, Claude Code sends every hook the
// subfolder as cwd. The loop in the project must still keep the session
// read-only, and the Stop must still judge the answer.
func TestCdIntoASubfolderKeepsTheLoop(t *testing.T) {
	env, p, sub := guardedLoop(t)

	s := Session{ID: "s", Cwd: sub}
	write := ToolEvent{Session: s, Tool: "Write", Input: []byte(`{"file_path":"` + filepath.Join(sub, "x.go") + `","content":"y"}`)}
	assert.True(t, PreToolUse(env, write).Deny, "a Write from the subfolder is refused")
	touch := ToolEvent{Session: Session{ID: "s", Cwd: filepath.Join(sub, "deeper")}, Tool: "Bash", Input: []byte(`{"command":"touch escaped.txt"}`)}
	assert.True(t, PreToolUse(env, touch).Deny, "so is a writing command two levels down")

	out := Stop(env, StopEvent{Session: s, LastMessage: answer("too short"), BlockCap: 8})
	assert.Equal(t, Block, out.Kind, "the answer is judged")
	assert.Contains(t, out.Reason, "understand [1/3]")
	f, err := state.Load(p.State())
	require.NoError(t, err)
	assert.Equal(t, "s", f.Loop.SessionID, "the stop from the subfolder bound the project's loop")
	assert.NoDirExists(t, filepath.Join(sub, ".claude"), "nothing is created in the subfolder")
}

// A finished loop's state left in a subfolder (or carried by the
// repository) must not switch the policy off for a session that cds there
// while the project's loop runs (the eighth review).
func TestFinishedLoopInASubfolderDoesNotHideTheProjects(t *testing.T) {
	env, _, sub := guardedLoop(t)
	writeLoop(t, sub, false)

	for _, cwd := range []string{sub, filepath.Join(sub, "deeper")} {
		write := ToolEvent{Session: Session{ID: "s", Cwd: cwd}, Tool: "Write", Input: []byte(`{"file_path":"` + filepath.Join(sub, "x.go") + `","content":"y"}`)}
		assert.True(t, PreToolUse(env, write).Deny, "a Write from %s is refused", cwd)
		touch := ToolEvent{Session: Session{ID: "s", Cwd: cwd}, Tool: "Bash", Input: []byte(`{"command":"touch escaped.txt"}`)}
		assert.True(t, PreToolUse(env, touch).Deny, "so is touch from %s", cwd)
	}
	out := Stop(env, StopEvent{Session: Session{ID: "s", Cwd: sub}, LastMessage: answer("too short"), BlockCap: 8})
	assert.Equal(t, Block, out.Kind, "the project's loop judges the answer")
}

// The project's state entry is found from the subfolder even when it cannot
// be read: the guarded calls are refused, not let through.
func TestCdIntoASubfolderFailsClosed(t *testing.T) {
	env, p, sub := projectEnv(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(p.State()), 0o755))
	real := filepath.Join(t.TempDir(), "elsewhere.md")
	require.NoError(t, os.WriteFile(real, []byte("x"), 0o644))
	require.NoError(t, os.Symlink(real, p.State()))

	write := ToolEvent{Session: Session{ID: "s", Cwd: sub}, Tool: "Write", Input: []byte(`{"file_path":"x","content":"y"}`)}
	o := PreToolUse(env, write)
	assert.True(t, o.Deny)
	assert.Contains(t, o.Reason, p.State())
	read := ToolEvent{Session: Session{ID: "s", Cwd: sub}, Tool: "Read", Input: []byte(`{"file_path":"x"}`)}
	assert.False(t, PreToolUse(env, read).Deny, "reading stays allowed")
}

// Codex names no project to its hooks, which get the folder Codex runs in:
// a loop plan kept in the subfolder the model ran it in was never found
// there, and writes went through (review I, F1). plan keeps it at the
// checkout's root, and the hooks look from their folder up to that root.
func TestCodexLoopStartedInASubfolder(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub", "deeper")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	for _, d := range []string{"objects", "refs"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, ".git", d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(sub, ".git"), 0o755)) // empty: git passes over it
	assert.Equal(t, root, CodexProject(sub))
	outside := t.TempDir()
	assert.Equal(t, outside, CodexProject(outside), "no checkout: where it ran")

	env := Env{Stderr: io.Discard, Getenv: func(string) string { return "" }, Now: func() time.Time { return testNow }}
	o := testOptions()
	o.BlockTools = true
	o.Agent = state.AgentCodex
	_, err := Start(env, state.Paths{Project: CodexProject(sub)}, o)
	require.NoError(t, err)
	patch := []byte(`{"command":"*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"}`)
	for _, cwd := range []string{root, filepath.Join(root, "sub"), sub} {
		out := PreToolUse(env, ToolEvent{Session: Session{ID: "thread-1", Cwd: cwd}, Tool: "apply_patch", Input: patch})
		assert.True(t, out.Deny, "Codex running in %s", cwd)
	}
	assert.False(t, PreToolUse(env, ToolEvent{Session: Session{ID: "thread-1", Cwd: outside}, Tool: "apply_patch", Input: patch}).Deny,
		"another folder is another project")
}
