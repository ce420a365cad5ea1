package hooks

import (
	"bytes"
	"encoding/json"
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

// TestPlanModeKeepsFileMode: a private plan stays private after the hook
// rewrites it.
func TestPlanModeKeepsFileMode(t *testing.T) {
	home := t.TempDir()
	plan := filepath.Join(home, PlansDir, "p.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(plan), 0o700))
	require.NoError(t, os.WriteFile(plan, []byte("## Goals\n- x\n"), 0o600))
	env := testEnv(home)
	in := Input{SessionID: "s", PermissionMode: "plan", ToolName: "Write",
		ToolInput: json.RawMessage(`{"file_path":"` + plan + `"}`)}
	assert.Nil(t, PostToolUse(in, env))
	info, err := os.Stat(plan)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(plan)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<!-- rodin:session=s -->")
}

// TestPlanModeMalformed: undecodable input denies only when it names
// ExitPlanMode.
func TestPlanModeMalformed(t *testing.T) {
	env := testEnv(t.TempDir())
	tests := []struct {
		name  string
		input string
		deny  bool
	}{
		{name: "broken ExitPlanMode call", input: `{"tool_name":"ExitPlanMode",`, deny: true},
		{name: "wrong type in an ExitPlanMode call", input: `{"tool_name":"ExitPlanMode","session_id":1}`, deny: true},
		{name: "broken Bash call", input: `{"tool_name":"Bash",`},
		{name: "empty", input: ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			Run("pretooluse", bytes.NewReader([]byte(tt.input)), &out, env)
			if tt.deny {
				assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
			} else {
				assert.Empty(t, out.String())
			}
		})
	}
}

func testEnv(home string) Env {
	return Env{
		Stderr: io.Discard,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
		Getwd: func() (string, error) { return home, nil },
		Now:   func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
}

// FuzzPlanMode feeds arbitrary input to the plan-mode gate's two hooks with
// a real plans folder: neither may panic, PostToolUse never answers, and an
// ExitPlanMode answer is always a denial.
func FuzzPlanMode(f *testing.F) {
	home := f.TempDir()
	plan := filepath.Join(home, PlansDir, "p.md")
	if err := os.MkdirAll(filepath.Dir(plan), 0o755); err != nil {
		f.Fatal(err)
	}
	fixture, err := os.ReadFile("../testdata/gate/plans/valid_plan.md")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"session_id":"sess-1","permission_mode":"plan","tool_name":"Write","tool_input":{"file_path":"` + plan + `"}}`,
		`{"session_id":"sess-1","permission_mode":"plan","tool_name":"Edit","tool_response":{"filePath":"` + plan + `"}}`,
		`{"session_id":"sess-1","permission_mode":"plan","tool_name":"Write","tool_input":{"file_path":"` + plan + `/../../x.md"}}`,
		`{"session_id":"sess-1","tool_name":"ExitPlanMode","tool_input":{}}`,
		`{"session_id":"other","tool_name":"ExitPlanMode"}`,
		`{"tool_name":"ExitPlanMode"`, `{"session_id":null,"tool_name":"ExitPlanMode"}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	env := testEnv(home)
	f.Fuzz(func(t *testing.T, input []byte) {
		if err := os.WriteFile(plan, fixture, 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		Run("posttooluse", bytes.NewReader(input), &out, env)
		if out.Len() != 0 {
			t.Fatalf("PostToolUse answered: %s", out.String())
		}
		in, err := DecodeInput(bytes.NewReader(input))
		if err != nil || in.ToolName != "ExitPlanMode" {
			return
		}
		Run("pretooluse", bytes.NewReader(input), &out, env)
		if out.Len() == 0 {
			return
		}
		var v SpecificAnswer
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", err, out.String())
		}
		if v.HookSpecificOutput.PermissionDecision != "deny" || v.HookSpecificOutput.PermissionDecisionReason == "" {
			t.Fatalf("ExitPlanMode answer is not a reasoned denial: %s", out.String())
		}
	})
}
