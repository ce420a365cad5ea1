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
	for _, name := range []string{"pending", "no-assessment", "failed"} {
		msg := exitMessage(name, "x")
		assert.Contains(t, msg, "`plan_mode_gate: off` in ~/.claude/plansmith.yaml (every project)", name)
		// The project's file counts only once approved (review BL6).
		assert.Contains(t, msg, "in .claude/plansmith.yaml (this project) and then run `plansmith policy trust` in the project", name)
	}
}
