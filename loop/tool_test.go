package loop

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOurs: the agent may run plansmith's read-only commands at this
// binary's path and at the plugin's launcher, as written, and at no other
// path: not a project's own file named plansmith, nor a link.
func TestOurs(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	link := filepath.Join(dir, "bin", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	require.NoError(t, os.Symlink(exe, link))
	plugin := filepath.Join(dir, "plugin")
	launcher := filepath.Join(plugin, "bin", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(launcher), 0o755))
	require.NoError(t, os.WriteFile(launcher, []byte("#!/bin/sh\n"), 0o755))
	planted := filepath.Join(dir, "project", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(planted), 0o755))
	require.NoError(t, os.WriteFile(planted, []byte("#!/bin/sh\n"), 0o755))

	env := Env{Getenv: func(k string) string {
		if k == "CLAUDE_PLUGIN_ROOT" {
			return plugin
		}
		return ""
	}}
	ok := ours(env)
	assert.True(t, ok(exe), "this binary")
	assert.True(t, ok(launcher), "the plugin's launcher")
	assert.False(t, ok(plugin+"/bin/./plansmith"), "the launcher, spelt with a dot")
	assert.False(t, ok(dir+"/project/../plugin/bin/plansmith"), "the launcher reached through .., where a link could lead elsewhere")
	assert.False(t, ok(link), "a link to this binary, which could as well lead elsewhere")
	assert.False(t, ok(planted), "a project's own file named plansmith")
	selfLink := filepath.Join(dir, "project", "self")
	require.NoError(t, os.Symlink("/proc/self/exe", selfLink))
	assert.False(t, ok(selfLink), "a link to /proc/self/exe")
	launcherLink := filepath.Join(dir, "project", "tools", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(launcherLink), 0o755))
	require.NoError(t, os.Symlink(launcher, launcherLink))
	assert.False(t, ok(launcherLink), "a link to the launcher, which would find the project as its plugin")
	assert.False(t, ok(filepath.Join(dir, "missing", "plansmith")), "a path that does not exist")
	noPlugin := ours(Env{Getenv: func(string) string { return "" }})
	assert.False(t, noPlugin(launcher), "the launcher of no plugin")
}

// A tool call whose project cannot be placed, or whose session is not
// named, is refused while a loop runs: review X found both let through (no
// cwd with the hook's folder deleted; no session_id against a loop held by
// a session).
func TestToolCallsThatCannotBePlacedAreRefused(t *testing.T) {
	env, p := heldLoop(t)
	write := []byte(`{"file_path":"x","content":"y"}`)

	// No cwd, the working folder gone: $CLAUDE_PROJECT_DIR names the project.
	gone := env
	gone.Getwd = func() (string, error) { return "", os.ErrNotExist }
	gone.Getenv = func(k string) string {
		if k == "CLAUDE_PROJECT_DIR" {
			return p.Project
		}
		return ""
	}
	out := PreToolUse(gone, ToolEvent{Session: Session{ID: "s"}, Tool: "Write", Input: write})
	assert.True(t, out.Deny, "the loop is found through $CLAUDE_PROJECT_DIR")
	assert.Contains(t, out.Reason, "read-only")

	// Not even that: nothing to look in, so nothing is let through.
	gone.Getenv = func(string) string { return "" }
	out = PreToolUse(gone, ToolEvent{Session: Session{ID: "s"}, Tool: "Write", Input: write})
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "the project cannot be found")

	// No session named, against a loop held by one.
	out = PreToolUse(env, ToolEvent{Session: Session{Cwd: p.Project}, Tool: "Write", Input: write})
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "names no session")
	// Another session's call is still its own business.
	out = PreToolUse(env, ToolEvent{Session: Session{ID: "other", Cwd: p.Project}, Tool: "Write", Input: write})
	assert.False(t, out.Deny)
}

// The shell the Bash tool runs in starts from the environment the hooks
// get: a name the hook's environment holds may be exported there, and a
// plain assignment to it is judged as an export (review AQ2).
func TestAssignmentToAnInheritedVariableIsRefused(t *testing.T) {
	env, p := heldLoop(t)
	judge := func(env Env) ToolOutcome {
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash",
			Input: []byte(`{"command":"TOOL_HOME=$PWD/x; ls"}`)})
	}
	assert.False(t, judge(env).Deny)
	env.Getenv = func(name string) string {
		if name == "TOOL_HOME" {
			return "/opt/tool"
		}
		return ""
	}
	out := judge(env)
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "TOOL_HOME")
}
