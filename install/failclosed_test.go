package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A settings install whose binary is gone still answers: ExitPlanMode is
// refused everywhere (the plan-mode gate fails closed: review Z2), other
// tool calls wherever a loop's state file is in the working folder or a
// folder above it (review Z3: a session in a subfolder), with dash and
// bash alike; elsewhere the hook fails without a refusal.
func TestSettingsCommandFailsClosed(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "plansmith")
	project := t.TempDir()
	sub := filepath.Join(project, "internal", "api")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	elsewhere := t.TempDir()
	for _, shell := range []string{"dash", "bash"} {
		if _, err := exec.LookPath(shell); err != nil {
			continue
		}
		run := func(event, dir string) (int, string) {
			cmd := exec.Command(shell, "-c", SettingsCommand(gone, event))
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), string(out)
			}
			require.NoError(t, err)
			return 0, string(out)
		}
		code, out := run("pretooluse", elsewhere)
		assert.Equal(t, 2, code, "%s: ExitPlanMode: %s", shell, out)
		code, out = run("pretooluse-loop", sub)
		assert.Equal(t, 2, code, "%s: a loop above: %s", shell, out)
		assert.True(t, strings.Contains(out, "so this tool call is refused"), out)
		code, _ = run("pretooluse-loop", elsewhere)
		assert.Equal(t, 1, code, "%s: no loop: no refusal", shell)
		code, out = run("stop", sub)
		assert.Equal(t, 0, code, shell)
		assert.Contains(t, out, `{"systemMessage":`)
	}
}
