package planmode

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlanFile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "plans")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	for _, f := range []string{"a.md", "notes.txt", "sub/b.md", ".md", ".draft.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "outside.md"), nil, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(root, "outside.md"), filepath.Join(dir, "out.md")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "a.md"), filepath.Join(root, "in.md")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "a.md"), filepath.Join(dir, "alias.md")))

	tests := []struct {
		name   string
		target string
		want   string // "" when refused
	}{
		{name: "plan file", target: "plans/a.md", want: "plans/a.md"},
		{name: "dot segments that stay inside", target: "plans/sub/../a.md", want: "plans/a.md"},
		{name: "dot-dot out of the folder", target: "plans/../outside.md"},
		{name: "symlink out of the folder", target: "plans/out.md"},
		{name: "symlink into the folder resolves to the plan", target: "in.md", want: "plans/a.md"},
		{name: "symlink within the folder", target: "plans/alias.md", want: "plans/a.md"},
		{name: "not markdown", target: "plans/notes.txt"},
		{name: "nested folder", target: "plans/sub/b.md"},
		{name: "bare .md", target: "plans/.md"},
		{name: "hidden file", target: "plans/.draft.md"},
		{name: "missing file", target: "plans/missing.md"},
		{name: "the folder itself", target: "plans"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := planFile(dir, filepath.Join(root, tt.target))
			if tt.want == "" {
				assert.False(t, ok, got)
				return
			}
			require.True(t, ok)
			assert.Equal(t, filepath.Join(root, tt.want), got)
		})
	}
}

func TestRawString(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{name: "string", raw: `{"file_path":"/a.md"}`, want: "/a.md"},
		{name: "absent", raw: `{"other":"/a.md"}`},
		{name: "null", raw: `{"file_path":null}`},
		{name: "number", raw: `{"file_path":7}`},
		{name: "not an object", raw: `"file_path"`},
		{name: "empty", raw: ``},
		{name: "broken", raw: `{"file_path":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, rawString(json.RawMessage(tt.raw), "file_path"))
		})
	}
}

// TestMaintainKeepsFileMode: a private plan stays private after the hook
// rewrites it.
func TestMaintainKeepsFileMode(t *testing.T) {
	home := t.TempDir()
	plan := filepath.Join(home, PlansDir, "p.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(plan), 0o700))
	require.NoError(t, os.WriteFile(plan, []byte("## Goals\n- x\n"), 0o600))
	Maintain(Call{Home: home, SessionID: "s", PermissionMode: "plan", Tool: "Write",
		Input: json.RawMessage(`{"file_path":"` + plan + `"}`)}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), io.Discard)
	info, err := os.Stat(plan)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(plan)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<!-- rodin:session=s -->")
}

// TestCheckMalformed: undecodable input denies only when it names
// ExitPlanMode, and only where the gate is on.
func TestCheckMalformed(t *testing.T) {
	off := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(off, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(off, SettingsFile), []byte("plan_mode_gate: off\n"), 0o644))
	home := t.TempDir()
	t.Setenv("HOME", home)
	_, err := TrustSetting(off, home)
	require.NoError(t, err)
	tests := []struct {
		name    string
		project string
		input   string
		deny    bool
	}{
		{name: "broken ExitPlanMode call", input: `{"tool_name":"ExitPlanMode",`, deny: true},
		{name: "gate off", project: off, input: `{"tool_name":"ExitPlanMode",`},
		{name: "broken Bash call", input: `{"tool_name":"Bash",`},
		{name: "empty", input: ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckMalformed(tt.project, []byte(tt.input), errors.New("bad json"), io.Discard)
			if tt.deny {
				assert.Contains(t, got, "bad json")
			} else {
				assert.Empty(t, got)
			}
		})
	}
}
