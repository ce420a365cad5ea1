package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plansmith/plansmith/e2e/modelserver"
	"github.com/plansmith/plansmith/install"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPluginRootIsWrittenIntoTheCommands holds install's plugin-folder check
// (doctor's "plugin folder" warning) to the CLIs: Claude Code writes the
// plugin's folder into a slash command's text in place of
// ${CLAUDE_PLUGIN_ROOT}, as it is, so the shell line the agent is told to
// run holds it inside double quotes, where a " or $ is read as code (review
// CQ). Only the plugin's manifest and one command are loaded: no hook runs.
func TestPluginRootIsWrittenIntoTheCommands(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		e := NewEnv(t, cli, modelserver.Text("ok"))
		repo := mustRepoRoot(t)
		root := filepath.Join(realTempDir(t), `we"ird $HOME`)
		for _, f := range []string{".claude-plugin/plugin.json", "commands/status.md"} {
			data, err := os.ReadFile(filepath.Join(repo, f))
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, f), data, 0o644))
		}
		e.PluginDir = root
		e.Run("/plansmith:status")
		reqs := e.Model.Requests()
		require.NotEmpty(t, reqs)
		text := reqs[0].LastUserText
		assert.Contains(t, text, `"`+root+`/bin/plansmith" status`, "the folder, as it is, inside the command's double quotes")
		assert.NotContains(t, text, "${CLAUDE_PLUGIN_ROOT}")
		assert.True(t, strings.ContainsAny(root, `"$`))

		// What doctor says of such a folder.
		require.NoError(t, os.MkdirAll(filepath.Join(root, "hooks"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "hooks", "hooks.json"), []byte("{}"), 0o644))
		require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "plansmith"), []byte("#!/bin/sh\n"), 0o755))
		var warned bool
		for _, c := range install.Doctor(install.DoctorEnv{Project: e.Project, Binary: filepath.Join(root, "bin", "plansmith"), Getenv: func(string) string { return "" }}) {
			warned = warned || c.Name == "plugin folder" && c.Level == install.Warn
		}
		assert.True(t, warned, "doctor warns of the folder")
	})
}
