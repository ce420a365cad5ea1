package planmode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseSetting reads plan_mode_gate from one settings file, as
// LoadSetting reads the project's and the user's.
func TestParseSetting(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		on, set bool
		err     string
	}{
		{name: "empty file", yaml: "", on: true},
		{name: "comment only", yaml: "# nothing here\n", on: true},
		{name: "other keys only", yaml: "allow:\n  - make lint\n", on: true},
		{name: "off", yaml: "plan_mode_gate: off\n", on: false, set: true},
		{name: "OFF in capitals", yaml: "plan_mode_gate: OFF\n", on: false, set: true},
		{name: "quoted off", yaml: "plan_mode_gate: \"off\"\n", on: false, set: true},
		{name: "false", yaml: "plan_mode_gate: false\n", on: false, set: true},
		{name: "no", yaml: "plan_mode_gate: no\n", on: false, set: true},
		{name: "on", yaml: "plan_mode_gate: on\n", on: true, set: true},
		{name: "true", yaml: "plan_mode_gate: true\n", on: true, set: true},
		{name: "empty value is the default", yaml: "plan_mode_gate:\n", on: true},
		{name: "beside other keys", yaml: "allow: [x]\nplan_mode_gate: off\n", on: false, set: true},
		{name: "unknown word", yaml: "plan_mode_gate: maybe\n", on: true, err: "plan_mode_gate is maybe; use on or off"},
		{name: "number", yaml: "plan_mode_gate: 0\n", on: true, err: "use on or off"},
		{name: "list", yaml: "plan_mode_gate: [off]\n", on: true, err: "use on or off"},
		{name: "broken yaml", yaml: "plan_mode_gate: [\n", on: true, err: "not valid YAML"},
		{name: "not a mapping", yaml: "- off\n", on: true, err: "not valid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "plansmith.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tt.yaml), 0o644))
			s, set, err := loadFile(path)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.on, s.On, "on")
			assert.Equal(t, tt.set, set, "set")
		})
	}
}

func TestLoadSetting(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct {
		name    string
		file    *string // nil: no settings file
		dir     bool    // the settings path is a folder (unreadable as a file)
		approve bool    // plansmith policy trust approved the file
		want    Setting
		isErr   bool
	}{
		{name: "no project", want: Setting{On: true}},
		{name: "no file", want: Setting{On: true}},
		{name: "off", file: strPtr("plan_mode_gate: off\n"), approve: true, want: Setting{On: false, Source: "SRC"}},
		{name: "off, not approved", file: strPtr("plan_mode_gate: off\n"), want: Setting{On: true}, isErr: true},
		{name: "on explicitly", file: strPtr("plan_mode_gate: on\n"), want: Setting{On: true, Source: "SRC"}},
		{name: "key absent", file: strPtr("other: 1\n"), want: Setting{On: true}},
		{name: "malformed stays on", file: strPtr("plan_mode_gate: {\n"), want: Setting{On: true}, isErr: true},
		{name: "unreadable stays on", dir: true, want: Setting{On: true}, isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := ""
			if tt.name != "no project" {
				project = t.TempDir()
			}
			src := filepath.Join(project, SettingsFile)
			if tt.file != nil || tt.dir {
				require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
			}
			if tt.file != nil {
				require.NoError(t, os.WriteFile(src, []byte(*tt.file), 0o644))
			}
			if tt.dir {
				require.NoError(t, os.Mkdir(src, 0o755))
			}
			if tt.approve {
				approved, err := TrustSetting(project, home)
				require.NoError(t, err)
				require.True(t, approved)
			}
			got, err := LoadSetting(project)
			if tt.isErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), src, "the error names the file")
			} else {
				require.NoError(t, err)
			}
			if tt.want.Source == "SRC" {
				tt.want.Source = src
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func strPtr(s string) *string { return &s }
