package e2e

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDistInstallsAndRunsWithoutGo builds the plugin tree with `make dist`
// (for this platform only), installs it as a user would — `claude plugin
// marketplace add` on the dist folder, then `claude plugin install` — and runs
// a full planning loop with no Go toolchain on PATH: the launcher checks the
// prebuilt binary against SHA256SUMS, places it in bin/native/, and the hooks
// run it from there. The copy Claude Code made is never rebuilt.
func TestDistInstallsAndRunsWithoutGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the dist tree")
	}
	for _, tool := range []string{"go", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	EachCLI(t, func(t *testing.T, cli string) {
		repo := mustRepoRoot(t)
		distDir := realTempDir(t)
		mk := exec.Command("make", "-s", "dist", "DISTDIR="+distDir, "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
		mk.Dir = repo
		out, err := mk.CombinedOutput()
		require.NoError(t, err, "%s", out)

		e := NewEnv(t, cli, fullLoop(t)...)
		e.EmptyPlugin()
		path := pathWithoutGo(t)
		e.ExtraEnv = append(e.ExtraEnv, "PATH="+path, "PLANSMITH_BIN=")
		seedProject(e)

		claude := func(args ...string) string {
			cmd := exec.CommandContext(context.Background(), e.Claude, args...)
			cmd.Dir = e.Project
			cmd.Env = e.environ()
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "claude %s: %s", strings.Join(args, " "), out)
			return string(out)
		}
		claude("plugin", "marketplace", "add", distDir)
		claude("plugin", "install", "plansmith@plansmith")
		cached := findInstalled(t, e.Home)

		res := e.Run("/plansmith:plan --no-gate "+request, withHookEvents...)
		assert.Equal(t, 0, res.ExitCode)
		assert.Equal(t, sessionText(t, "08-final.md"), res.Result)
		assert.Zero(t, e.Model.Remaining())
		reqs := e.Model.Requests()
		require.NotEmpty(t, reqs)
		assert.Contains(t, reqs[0].LastUserText, "<command-name>/plansmith:plan</command-name>")
		got := feedback(reqs)
		assert.Len(t, got, 7, "every phase answer was judged by the installed hooks")

		plan := e.ProjectFile(".claude/plansmith-output.local.md")
		assert.Contains(t, plan, `exit_reason: "completed"`)
		assert.Regexp(t, `plansmith_version: "\d+\.\d+\.\d+\+`, plan, "a release build is stamped with the version and commit")

		// The plugin the CLI loaded (a directory marketplace's plugin runs from
		// the marketplace folder; the cache holds a copy): checked binary in
		// place, no sources, no build.
		installed := loadedPlugin(t, res.Stdout, "plansmith")
		info, err := os.Stat(filepath.Join(installed, "bin", "native", "plansmith"))
		require.NoError(t, err, "the launcher placed the checked binary")
		assert.NotZero(t, info.Mode()&0o111)
		for _, dir := range []string{installed, cached} {
			for _, absent := range []string{"go.mod", "build", "cmd", ".cache", "state"} {
				_, err := os.Stat(filepath.Join(dir, absent))
				assert.ErrorIs(t, err, fs.ErrNotExist, absent)
			}
		}
		t.Logf("loaded plugin: %s, %d bytes; cached copy %s, %d bytes", installed, treeSize(t, installed), cached, treeSize(t, cached))
	})
}

// loadedPlugin reads the folder the CLI loaded plugin name from, in the
// init line of a stream-json run.
func loadedPlugin(t *testing.T, stdout, name string) string {
	for _, line := range strings.Split(stdout, "\n") {
		var m struct {
			Subtype string `json:"subtype"`
			Plugins []struct {
				Name string `json:"name"`
				Path string `json:"path"`
			} `json:"plugins"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Subtype != "init" {
			continue
		}
		for _, p := range m.Plugins {
			if p.Name == name {
				return p.Path
			}
		}
	}
	t.Fatalf("the CLI did not report loading plugin %s", name)
	return ""
}

// pathWithoutGo is $PATH minus every folder that holds a go executable.
func pathWithoutGo(t *testing.T) string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			continue
		}
		keep = append(keep, dir)
	}
	for _, dir := range keep {
		_, err := os.Stat(filepath.Join(dir, "go"))
		require.Error(t, err, "go is still on PATH in %s", dir)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// findInstalled finds the plugin folder `claude plugin install` made under
// home (the one holding plansmith's launcher).
func findInstalled(t *testing.T, home string) string {
	var found string
	_ = filepath.WalkDir(filepath.Join(home, ".claude", "plugins"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "plansmith" && filepath.Base(filepath.Dir(p)) == "bin" {
			found = filepath.Dir(filepath.Dir(p))
			return filepath.SkipAll
		}
		return nil
	})
	require.NotEmpty(t, found, "no installed plansmith plugin under %s", home)
	return found
}

func treeSize(t *testing.T, root string) int64 {
	var n int64
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
