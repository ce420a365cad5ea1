package planmode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadSettingUserLevel(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	user := filepath.Join(home, UserSettingsFile)
	proj := filepath.Join(project, SettingsFile)

	s, err := LoadSetting(project)
	require.NoError(t, err)
	assert.Equal(t, Setting{On: true}, s, "the default")

	write(user, "plan_mode_gate: off\n")
	s, err = LoadSetting(project)
	require.NoError(t, err)
	assert.Equal(t, Setting{On: false, Source: user}, s, "the user switch applies")

	write(proj, "other: 1\n")
	s, err = LoadSetting(project)
	require.NoError(t, err)
	assert.Equal(t, Setting{On: false, Source: user}, s, "a project file without the key defers to the user's")

	write(proj, "plan_mode_gate: on\n")
	s, err = LoadSetting(project)
	require.NoError(t, err)
	assert.Equal(t, Setting{On: true, Source: proj}, s, "the project overrides the user")

	write(user, "plan_mode_gate: [\n")
	require.NoError(t, os.Remove(proj))
	s, err = LoadSetting(project)
	assert.Error(t, err)
	assert.True(t, s.On, "a broken user file keeps the gate on")
}

func TestExitRefusalNamesTheSwitch(t *testing.T) {
	project := t.TempDir()
	t.Setenv("CLAUDE_PROJECT_DIR", project)
	for _, name := range []string{"pending", "no-assessment", "failed"} {
		msg := exitMessage(project, name, "x")
		assert.Contains(t, msg, "`plan_mode_gate: off` in ~/.claude/plansmith.yaml (every project)", name)
		// The project's file counts only once approved (review BL6).
		assert.Contains(t, msg, "in .claude/plansmith.yaml (this project) and then run `plansmith policy trust` in the project", name)
	}
	// Where the project's settings set HOME neither switch counts
	// (LoadSetting), so the refusal says what must change first, not
	// advice that leaves the gate on (review FI2).
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(`{"env": {"HOME": "`+project+`"}}`), 0o644))
	msg := exitMessage(project, "pending", "x")
	assert.Contains(t, msg, "remove HOME from that env and start Claude Code again, then put `plan_mode_gate: off` in ~/.claude/plansmith.yaml")
	assert.NotContains(t, msg, "policy trust")
}

// A HOME the project's Claude Code settings set is a folder the repository
// fills (Claude Code 2.1.197 hands it to the hooks): its plansmith.yaml and
// its approvals are not the user's, and the gate stays on.
func TestLoadSettingIgnoresAHomeTheProjectSets(t *testing.T) {
	fake, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", fake)
	t.Setenv("CLAUDE_PROJECT_DIR", project)
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(filepath.Join(fake, UserSettingsFile), "plan_mode_gate: off\n")
	s, err := LoadSetting(project)
	require.NoError(t, err)
	require.False(t, s.On, "without the project's HOME the user's file turns the gate off")

	write(filepath.Join(project, ".claude", "settings.json"), `{"env": {"HOME": "`+fake+`"}}`)
	s, err = LoadSetting(project)
	require.ErrorContains(t, err, "set HOME, or cannot be read, so no ~/.claude/plansmith.yaml is taken for yours")
	assert.True(t, s.On, "the repository's home turns nothing off")

	// The project's own off, approved in that home, stays unapproved.
	proj := filepath.Join(project, SettingsFile)
	write(proj, "plan_mode_gate: off\n")
	approved, err := TrustSetting(project, fake)
	require.NoError(t, err)
	require.True(t, approved)
	s, err = LoadSetting(project)
	var untrusted *UntrustedOffError
	require.ErrorAs(t, err, &untrusted)
	assert.True(t, untrusted.ProjectHome)
	assert.Contains(t, err.Error(), "set HOME")
	assert.True(t, s.On)

	// Without HOME in the project's settings the same approval counts.
	write(filepath.Join(project, ".claude", "settings.json"), `{"env": {"NODE_ENV": "test"}}`)
	s, err = LoadSetting(project)
	require.NoError(t, err)
	assert.False(t, s.On)
}
