package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/plansmith/plansmith/e2e/modelserver"
	"github.com/plansmith/plansmith/install"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettingsClaudeCodeSkips holds install.ClaudeSkips to the CLIs: a
// settings install whose file gains an error elsewhere (permissions.allow
// a string, not a list) runs none of its hooks, so a loop's Write goes
// through; doctor says so instead of "all 8 events registered" (review BV).
// The same file without the error refuses the Write.
func TestSettingsClaudeCodeSkips(t *testing.T) {
	t.Parallel()
	for _, bad := range []bool{false, true} {
		name := "valid"
		if bad {
			name = "permissions.allow a string"
		}
		t.Run(name, func(t *testing.T) {
			EachCLI(t, func(t *testing.T, cli string) {
				bin := BuildPlansmith(t)
				e := NewEnv(t, cli,
					fileTool("Write", "x.go", map[string]string{"content": "package x\n"}),
					answer(t, "01-understand.md"),
				)
				e.EmptyPlugin()
				run := func(args ...string) (string, error) { return e.Plansmith(bin, args...) }
				out, err := run("install")
				require.NoError(t, err, out)
				settings := filepath.Join(e.Project, ".claude", "settings.json")
				if bad {
					data, err := os.ReadFile(settings)
					require.NoError(t, err)
					data = []byte(strings.Replace(string(data), "{", `{"permissions": {"allow": "Bash"},`, 1))
					require.NoError(t, os.WriteFile(settings, data, 0o644))
				}
				out, err = run("plan", "--no-gate", "--max-phases", "1", request)
				require.NoError(t, err, out)

				res := e.Run("go on", withHookEvents...)
				_, statErr := os.Stat(filepath.Join(e.Project, "x.go"))
				doctor, derr := run("doctor")
				if bad {
					assert.Empty(t, res.PermissionDenials, "Claude Code ran no hook of the skipped file")
					assert.NoError(t, statErr, "the Write went through")
					assert.Error(t, derr, doctor)
					assert.Contains(t, doctor, "Claude Code skips the whole file and its hooks")
					assert.Contains(t, out, "NOT CHECKED", "plan says the loop is not enforced")
				} else {
					assert.Len(t, res.PermissionDenials, 1)
					assert.Error(t, statErr, "the Write was refused")
					assert.NoError(t, derr, doctor)
				}
			})
		})
	}
}

// TestPluginEnabledInSkippedSettings: `claude plugin install` enables the
// plugin in the user's settings; once that file has an error Claude Code
// skips it whole, the plugin is not enabled, and a loop's Write goes
// through. doctor and plan, run from the plugin tree, say so (review BV).
func TestPluginEnabledInSkippedSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the dist tree")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not on PATH")
	}
	EachCLI(t, func(t *testing.T, cli string) {
		distDir := realTempDir(t)
		mk := exec.Command("make", "-s", "dist", "DISTDIR="+distDir, "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
		mk.Dir = mustRepoRoot(t)
		out, err := mk.CombinedOutput()
		require.NoError(t, err, "%s", out)
		e := NewEnv(t, cli,
			fileTool("Write", "x.go", map[string]string{"content": "package x\n"}),
			answer(t, "01-understand.md"),
		)
		e.EmptyPlugin()
		e.ExtraEnv = append(e.ExtraEnv, "PLANSMITH_BIN=")
		for _, args := range [][]string{{"plugin", "marketplace", "add", distDir}, {"plugin", "install", "plansmith@plansmith"}} {
			cmd := exec.CommandContext(context.Background(), e.Claude, args...)
			cmd.Dir = e.Project
			cmd.Env = e.environ()
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "claude %s: %s", strings.Join(args, " "), out)
		}
		settings := filepath.Join(e.Home, ".claude", "settings.json")
		data, err := os.ReadFile(settings)
		require.NoError(t, err)
		require.Contains(t, string(data), "plansmith@plansmith")
		require.NoError(t, os.WriteFile(settings, []byte(strings.Replace(string(data), "{", `{"permissions": {"allow": "Bash"},`, 1)), 0o644))

		run := func(args ...string) (string, error) {
			return e.Plansmith(filepath.Join(distDir, "plansmith", "bin", "plansmith"), args...)
		}
		plan, err := run("plan", "--no-gate", "--max-phases", "1", request)
		require.NoError(t, err, plan)
		res := e.Run("go on", withHookEvents...)
		assert.Empty(t, res.PermissionDenials, "no plansmith hook ran")
		assert.FileExists(t, filepath.Join(e.Project, "x.go"), "the Write went through")
		assert.Contains(t, plan, "NOT CHECKED")
		doctor, err := run("doctor")
		assert.Error(t, err, doctor)
		assert.Contains(t, doctor, "enables plugin plansmith@plansmith, but Claude Code skips the whole file")
	})
}

// TestSettingsSkippedShapes holds install.ClaudeSkips and ClaudeMaySkip to
// both CLIs on the shapes where a wrong guess was made before (review CE):
// a project settings file with the shape and a UserPromptSubmit hook that
// leaves a mark. More shapes were tried once and are listed in the
// comments of install/skipped.go; a shape both skip is
// TestSettingsClaudeCodeSkips's.
func TestSettingsSkippedShapes(t *testing.T) {
	t.Parallel()
	const mark = `"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch \"$CLAUDE_PROJECT_DIR/marker\""}]}]`
	cases := []struct {
		name, settings string
		skippedBy      []string // the CLI versions that skip the file
	}{
		// Items that are not strings are dropped, not a reason to skip.
		{"allow items not strings", `{"permissions": {"allow": ["Bash", 1]}, "hooks": {` + mark + `}}`, nil},
		// A malformed group outside PreToolUse and PermissionRequest.
		{"a Stop group no object", `{"hooks": {"Stop": [5], ` + mark + `}}`, []string{"2.1.197"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sure, some := install.ClaudeSkips([]byte(c.settings)), install.ClaudeMaySkip([]byte(c.settings))
			EachCLI(t, func(t *testing.T, cli string) {
				e := NewEnv(t, cli, modelserver.Text("ok"))
				e.EmptyPlugin()
				e.WriteProjectFile(".claude/settings.json", c.settings)
				e.Run("hi")
				_, err := os.Stat(filepath.Join(e.Project, "marker"))
				skipped := slices.Contains(c.skippedBy, cli)
				if !slices.Contains([]string{"2.1.197", "2.1.330"}, cli) {
					t.Logf("claude %s skipped the file: %v (ClaudeSkips %q, ClaudeMaySkip %q)", cli, err != nil, sure, some)
					return
				}
				assert.Equal(t, skipped, err != nil, "claude %s skips the file", cli)
			})
			switch len(c.skippedBy) {
			case 0:
				assert.Empty(t, sure+some)
			default:
				assert.Empty(t, sure)
				assert.NotEmpty(t, some)
			}
		})
	}
}
