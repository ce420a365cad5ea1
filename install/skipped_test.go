package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClaudeSkips(t *testing.T) {
	cases := []struct {
		name, settings, want string
	}{
		{"empty", ``, ""},
		{"other keys", `{"model": "opus", "env": {"A": "1"}, "permissions": {"allow": ["Bash(ls)"], "deny": []}}`, ""},
		{"hooks", `{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "x", "timeout": 5}]}]}}`, ""},
		{"permissions not an object", `{"permissions": []}`, `"permissions" is not an object`},
		{"allow a string", `{"permissions": {"allow": "Bash"}}`, `"permissions.allow" is not a list of strings`},
		{"deny with a number", `{"permissions": {"deny": ["Bash", 1]}}`, `"permissions.deny" is not a list of strings`},
		{"a group that is no object", `{"hooks": {"Stop": [1]}}`, `"hooks.Stop[0]" is not an object`},
		{"a matcher that is no string", `{"hooks": {"Stop": [{"matcher": 5, "hooks": []}]}}`, `"hooks.Stop[0]" has a matcher that is not a string`},
		{"a group without hooks", `{"hooks": {"Stop": [{"hooks": {}}]}}`, `"hooks.Stop[0]" has no list of hooks`},
		{"a command hook without a command", `{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}`, `"hooks.Stop[0].hooks[0]" is a command hook with no command`},
		{"a command that is no string", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": 5}]}]}}`, `"hooks.Stop[0].hooks[0]" is a command hook with no command`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, ClaudeSkips([]byte(c.settings)))
		})
	}
}

// A settings file Claude Code skips as a whole runs none of the hooks in
// it (e2e TestSettingsClaudeCodeSkips): install does not add plansmith's
// hooks to it and say "installed", and doctor and plan do not take hooks
// registered there for hooks that run (review BV).
func TestSkippedSettingsAreNoRegistration(t *testing.T) {
	w := newWorld(t)
	dir := filepath.Join(w.env.Project, ".claude")
	path := filepath.Join(dir, "settings.json")
	bad := `{"permissions": {"allow": "Bash"}}`
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
	_, err := Install(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Claude Code skips the whole file`)
	assert.Contains(t, err.Error(), `"permissions.allow" is not a list of strings`)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, bad, string(data), "nothing was changed")

	// Registered first, then the file went bad (an edit by hand).
	require.NoError(t, os.Remove(path))
	w.install(t, dir)
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Empty(t, Unenforced(w.env, "claude"))
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), "{", `{"permissions": {"allow": "Bash"},`, 1)), 0o644))
	checks := Doctor(w.env)
	assert.True(t, Failed(checks))
	found := false
	for _, c := range find(checks, "hooks") {
		if strings.Contains(c.Detail, "Claude Code skips the whole file") {
			found = true
			assert.Equal(t, Problem, c.Level)
		}
	}
	assert.True(t, found, FormatChecks(checks))
	assert.Contains(t, Unenforced(w.env, "claude"), "Claude Code skips the whole file")
}

// A plugin enabled in a file Claude Code skips is not enabled (seen with
// both CLIs: a loop's Write went through).
func TestPluginEnabledInSkippedSettings(t *testing.T) {
	w := newWorld(t)
	path := filepath.Join(w.env.Home, ".claude", "settings.json")
	w.write(t, path, `{"enabledPlugins": {"plansmith@plansmith": true}}`)
	for _, c := range find(Doctor(w.env), "hooks") {
		assert.NotEqual(t, Problem, c.Level, c.Detail)
	}
	w.write(t, path, `{"permissions": {"allow": "Bash"}, "enabledPlugins": {"plansmith@plansmith": true}}`)
	checks := Doctor(w.env)
	assert.True(t, Failed(checks))
	found := false
	for _, c := range find(checks, "hooks") {
		if strings.Contains(c.Detail, "enables plugin plansmith@plansmith, but Claude Code skips the whole file") {
			found = true
		}
	}
	assert.True(t, found, FormatChecks(checks))
	assert.Contains(t, Unenforced(w.env, "claude"), "so the plugin is not enabled")
}
