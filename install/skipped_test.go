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

// The shapes were tried with both CLIs (review CE; see ClaudeSkips and
// ClaudeMaySkip for what each did). sure: both skip the whole file; some:
// one version does.
func TestClaudeSkips(t *testing.T) {
	const d197 = " (Claude Code 2.1.197 skips the file, 2.1.330 does not)"
	cases := []struct {
		name, settings, sure, some string
	}{
		{"empty", ``, "", ""},
		{"other keys", `{"model": "opus", "env": {"A": "1"}, "permissions": {"allow": ["Bash(ls)"], "deny": []}}`, "", ""},
		{"hooks", `{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "x", "timeout": 5}]}]}}`, "", ""},
		{"unknown keys", `{"zz": 5, "permissions": {"zz": 1}, "hooks": {"Stop": [{"zz": 1, "hooks": [{"type": "command", "command": "", "zz": 2}]}]}}`, "", ""},
		{"env values not strings", `{"env": {"A": 1, "B": true, "C": {}}}`, "", ""},
		{"list items not strings", `{"permissions": {"allow": ["Bash", 1], "deny": [1], "ask": [1]}}`, "", ""},
		{"a rule of bad syntax", `{"permissions": {"allow": ["Bash(("]}}`, "", ""},
		{"modes both know", `{"permissions": {"defaultMode": "dontAsk"}}`, "", ""},
		{"plugins on, off, a list", `{"enabledPlugins": {"a@b": true, "c@d": false, "e@f": ["x"]}}`, "", ""},
		{"hooks not an object", `{"hooks": 5}`, "", ""},
		{"an event neither knows", `{"hooks": {"NoSuch": 5, "PreModelSwitch": [5]}}`, "", ""},
		{"an event null", `{"hooks": {"PreToolUse": null}}`, "", ""},
		{"permissions not an object", `{"permissions": []}`, `"permissions" is not an object`, ""},
		{"permissions null", `{"permissions": null}`, `"permissions" is not an object`, ""},
		{"env a string", `{"env": "x"}`, `"env" is not an object`, ""},
		{"env null", `{"env": null}`, `"env" is not an object`, ""},
		{"model a number", `{"model": 5}`, `"model" is not a string`, ""},
		{"model null", `{"model": null}`, `"model" is not a string`, ""},
		{"cleanupPeriodDays a string", `{"cleanupPeriodDays": "x"}`, `"cleanupPeriodDays" is not a number`, ""},
		{"enabledPlugins a number", `{"enabledPlugins": 5}`, `"enabledPlugins" is not an object`, ""},
		{"a plugin yes", `{"enabledPlugins": {"x@y": "yes"}}`, `"enabledPlugins.x@y" is neither true, false nor a list`, ""},
		{"allow a string", `{"permissions": {"allow": "Bash"}}`, `"permissions.allow" is not a list`, ""},
		{"ask an object", `{"permissions": {"ask": {}}}`, `"permissions.ask" is not a list`, ""},
		{"allow null", `{"permissions": {"allow": null}}`, `"permissions.allow" is not a list`, ""},
		{"additionalDirectories [3]", `{"permissions": {"additionalDirectories": [3]}}`, `"permissions.additionalDirectories" is not a list of strings`, ""},
		{"additionalDirectories null", `{"permissions": {"additionalDirectories": null}}`, `"permissions.additionalDirectories" is not a list of strings`, ""},
		{"a mode neither knows", `{"permissions": {"defaultMode": "delegate"}}`, `"permissions.defaultMode" is "delegate", not one of the modes Claude Code knows`, ""},
		{"a mode a number", `{"permissions": {"defaultMode": 3}}`, `"permissions.defaultMode" is 3, not one of the modes Claude Code knows`, ""},
		{"a PreToolUse group that is no object", `{"hooks": {"PreToolUse": [1]}}`, `"hooks.PreToolUse[0]" is not an object`, ""},
		{"a matcher null", `{"hooks": {"PreToolUse": [{"matcher": null, "hooks": []}]}}`, `"hooks.PreToolUse[0]" has a matcher that is not a string`, ""},
		{"a group with hooks null", `{"hooks": {"PermissionRequest": [{"hooks": null}]}}`, `"hooks.PermissionRequest[0]" has no list of hooks`, ""},
		{"a group without hooks", `{"hooks": {"PreToolUse": [{"matcher": "x"}]}}`, `"hooks.PreToolUse[0]" has no list of hooks`, ""},
		{"a hook with no type", `{"hooks": {"PreToolUse": [{"hooks": [{"command": "x"}]}]}}`, `"hooks.PreToolUse[0].hooks[0]" has no type`, ""},
		{"a hook of an unknown type", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "zz", "command": "x"}]}]}}`, `"hooks.PreToolUse[0].hooks[0]" has a type Claude Code does not know ("zz")`, ""},
		{"a command that is no string", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": 5}]}]}}`, `"hooks.PreToolUse[0].hooks[0]" is a command hook with no command`, ""},
		{"a prompt hook without a prompt", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt"}]}]}}`, `"hooks.PreToolUse[0].hooks[0]" is a prompt hook with no prompt`, ""},
		{"a timeout a string", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": "x"}]}]}}`, `"hooks.PreToolUse[0].hooks[0]" has a timeout that is not a number`, ""},
		{"PreToolUse an object", `{"hooks": {"PreToolUse": {}}}`, "", `"hooks.PreToolUse" is not a list (Claude Code 2.1.330 skips the file, 2.1.197 does not)`},
		{"a Stop group that is no object", `{"hooks": {"Stop": [1]}}`, "", `"hooks.Stop[0]" is not an object` + d197},
		{"a Stop matcher that is no string", `{"hooks": {"Stop": [{"matcher": 5, "hooks": []}]}}`, "", `"hooks.Stop[0]" has a matcher that is not a string` + d197},
		{"a PostToolUse command hook without a command", `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command"}]}]}}`, "", `"hooks.PostToolUse[0].hooks[0]" is a command hook with no command` + d197},
		{"Stop an object", `{"hooks": {"Stop": {}}}`, "", ""},
		{"sure wins over some", `{"hooks": {"Stop": [1], "PreToolUse": [1]}}`, `"hooks.PreToolUse[0]" is not an object`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.sure, ClaudeSkips([]byte(c.settings)), "both skip")
			assert.Equal(t, c.some, ClaudeMaySkip([]byte(c.settings)), "one skips")
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
	assert.Contains(t, err.Error(), `"permissions.allow" is not a list`)
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

// Review CE: items of permissions.allow that are not strings do not make
// either CLI skip the file, so install does not refuse it; a permissions
// null does (both CLIs), so install refuses that; and a malformed hook group
// under Stop, skipped only by 2.1.197, is installed with a warning, and
// doctor warns without failing.
func TestInstallFollowsWhatClaudeCodeSkips(t *testing.T) {
	w := newWorld(t)
	dir := filepath.Join(w.env.Project, ".claude")
	path := filepath.Join(dir, "settings.json")
	require.NoError(t, os.MkdirAll(dir, 0o755))

	require.NoError(t, os.WriteFile(path, []byte(`{"permissions": {"allow": ["Bash", 1]}}`), 0o644))
	_, err := Install(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.NoError(t, err, "a file both CLIs read")

	require.NoError(t, os.WriteFile(path, []byte(`{"permissions": null}`), 0o644))
	_, err = Install(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"permissions" is not an object`)

	require.NoError(t, os.WriteFile(path, []byte(`{"hooks": {"Stop": [{"matcher": 5, "hooks": []}]}}`), 0o644))
	r, err := Install(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.NoError(t, err)
	warned := false
	for _, a := range r.Actions {
		warned = warned || strings.Contains(a.Did, "warning: some Claude Code versions skip this whole file")
	}
	assert.True(t, warned, "%+v", r.Actions)
	checks := Doctor(w.env)
	assert.False(t, Failed(checks), FormatChecks(checks))
	found := false
	for _, c := range find(checks, "hooks") {
		if strings.Contains(c.Detail, "some Claude Code versions skip the whole file") {
			found = true
			assert.Equal(t, Warn, c.Level)
		}
	}
	assert.True(t, found, FormatChecks(checks))
	assert.Empty(t, Unenforced(w.env, "claude"))
}

// Both CLIs read a settings file that begins with a UTF-8 byte order mark
// and run its hooks (review CE): install adds plansmith's hooks to it, and
// doctor and plan take them for registered, not for invalid JSON.
func TestSettingsWithAByteOrderMark(t *testing.T) {
	w := newWorld(t)
	dir := filepath.Join(w.env.Project, ".claude")
	path := filepath.Join(dir, "settings.json")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(path, []byte("\ufeff{\"model\": \"opus\"}"), 0o644))
	_, err := Install(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append([]byte("\ufeff"), data...), 0o644))
	checks := Doctor(w.env)
	assert.False(t, Failed(checks), FormatChecks(checks))
	assert.Empty(t, Unenforced(w.env, "claude"))
}
