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
