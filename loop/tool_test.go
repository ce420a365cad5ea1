package loop

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOurs: the agent may run plansmith's read-only commands at this
// binary's path (or a link to it) and at the plugin's launcher, and at no
// other file named plansmith, such as one a project carries.
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
	assert.True(t, ok(link), "a link to this binary")
	assert.True(t, ok(launcher), "the plugin's launcher")
	assert.False(t, ok(planted), "a project's own file named plansmith")
	assert.False(t, ok(filepath.Join(dir, "missing", "plansmith")), "a path that does not exist")
	noPlugin := ours(Env{Getenv: func(string) string { return "" }})
	assert.False(t, noPlugin(launcher), "the launcher of no plugin")
}
