package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/templates"
)

func TestInstallNames(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	wd := func() (string, error) { return project, nil }

	assert.Equal(t, templates.KindPlugin, installNames(env(nil), wd).Kind, "nothing says otherwise: the plugin's names")
	assert.Equal(t, templates.KindSettings, installNames(env(map[string]string{"PLANSMITH_INSTALL": "settings"}), wd).Kind)

	cmds := filepath.Join(home, ".claude", "commands")
	require.NoError(t, os.MkdirAll(cmds, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cmds, "plansmith-cancel.md"), []byte("x"), 0o644))
	assert.Equal(t, templates.KindSettings, installNames(env(map[string]string{"HOME": home}), wd).Kind,
		"a user-level settings install's command files")
	assert.Equal(t, templates.KindPlugin, installNames(env(map[string]string{"HOME": home, "CLAUDE_PLUGIN_ROOT": "/p"}), wd).Kind,
		"run as a plugin's hook")
	assert.Equal(t, templates.KindPlugin, installNames(env(map[string]string{"HOME": home, "PLANSMITH_INSTALL": "plugin"}), wd).Kind,
		"the launcher says plugin")
}

func TestShellNameIsAPathUnlessOnPATH(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	exe, err := os.Executable()
	require.NoError(t, err)
	assert.Equal(t, `"`+exe+`"`, shellName(), "not on PATH: the binary's own path")
}
