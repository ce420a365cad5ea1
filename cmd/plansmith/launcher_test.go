package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewerSource(t *testing.T) {
	past := time.Now().Add(-time.Hour)
	cases := []struct {
		name  string
		file  string
		newer bool
	}{
		{"a go source", "state/file.go", true},
		{"a template", "templates/gate/exit/pending.md", true},
		{"go.sum", "go.sum", true},
		{"a test file", "state/file_test.go", false},
		{"test data", "testdata/script/x.txtar", false},
		{"end-to-end tests", "e2e/harness.go", false},
		{"a hidden folder", ".cache/claude-code/x.go", false},
		{"the build folder", "build/x.go", false},
		{"a file of another kind", "state/notes.png", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			old := filepath.Join(root, "go.mod")
			require.NoError(t, os.WriteFile(old, []byte("module x\n"), 0o644))
			require.NoError(t, os.Chtimes(old, past, past))
			path := filepath.Join(root, c.file)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte("x"), 0o644))
			assert.Equal(t, c.newer, newerSource(root, past.Add(time.Minute)))
		})
	}
}

// TestLauncher runs bin/plansmith in a copy of the module: it builds the
// binary when missing, runs it as is when current, and rebuilds it when a
// source is newer.
func TestLauncher(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	root := t.TempDir()
	copyTree(t, repo, root)
	launcher := filepath.Join(root, "bin", "plansmith")
	bin := filepath.Join(root, "build", "plansmith")

	run := func() string {
		cmd := exec.Command(launcher, "version")
		cmd.Env = append(os.Environ(), "PLANSMITH_BIN=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	assert.Contains(t, run(), "plansmith ")
	first, err := os.Stat(bin)
	require.NoError(t, err, "the launcher builds a missing binary")

	assert.Contains(t, run(), "plansmith ")
	again, err := os.Stat(bin)
	require.NoError(t, err)
	assert.Equal(t, first.ModTime(), again.ModTime(), "a current binary is not rebuilt")

	future := time.Now().Add(time.Minute)
	src := filepath.Join(root, "templates", "cli", "started.md")
	require.NoError(t, os.Chtimes(src, future, future))
	assert.Contains(t, run(), "plansmith ")
	rebuilt, err := os.Stat(bin)
	require.NoError(t, err)
	assert.True(t, rebuilt.ModTime().After(first.ModTime()), "a newer source makes the launcher rebuild")
}

// copyTree copies the module's sources (not build output, caches or git).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "build") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, info.Mode().Perm())
	})
	require.NoError(t, err)
}
