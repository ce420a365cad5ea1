package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestCrossBuild builds the binary for Windows, the platform `make dist`
// ships whose system calls differ most, so a Unix-only call (syscall.Flock,
// O_NOFOLLOW, ...) fails here, not in a release. (Darwin shares the Unix
// files; `make dist` builds it too.)
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	for _, p := range [][2]string{{"windows", "amd64"}} {
		t.Run(p[0]+"-"+p[1], func(t *testing.T) {
			cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p[0], "GOARCH="+p[1])
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
		})
	}
}

// TestReleaseConfig checks the release files at least as YAML, and that
// GoReleaser stamps the same variables as the Makefile.
func TestReleaseConfig(t *testing.T) {
	var gr struct {
		Version int
		Dist    string
		Builds  []struct {
			Main    string
			Env     []string
			Flags   []string
			Ldflags []string
		}
	}
	data, err := os.ReadFile("../../.goreleaser.yaml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &gr))
	gr0 := data
	require.Equal(t, 2, gr.Version)
	require.NotEqual(t, "dist", gr.Dist, "dist/ is make dist's")
	require.Len(t, gr.Builds, 1)
	b := gr.Builds[0]
	require.Equal(t, "./cmd/plansmith", b.Main)
	require.Contains(t, b.Env, "CGO_ENABLED=0")
	require.Contains(t, b.Flags, "-trimpath")
	require.Contains(t, strings.Join(b.Ldflags, " "), "-X github.com/plansmith/plansmith.version=")
	require.Contains(t, strings.Join(b.Ldflags, " "), "-X github.com/plansmith/plansmith.commit=")

	var wf struct {
		Jobs map[string]struct {
			Steps []struct{ Name, Run string }
		}
	}
	data, err = os.ReadFile("../../.github/workflows/release.yml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &wf))
	require.Contains(t, wf.Jobs, "release")

	// The plugin tree's archive, written before GoReleaser runs, is a file
	// git ignores, and the one GoReleaser attaches: GoReleaser refuses to
	// release from a checkout holding a file git does not know of ("git is
	// in a dirty state … ?? plansmith-plugin_0.1.0.tar.gz"; review CQ: the
	// archive was written at the top of the checkout).
	var archive string
	for _, s := range wf.Jobs["release"].Steps {
		if _, rest, ok := strings.Cut(s.Run, "-czf "); ok {
			archive = strings.Trim(strings.Fields(rest)[0], `"`)
		}
	}
	require.NotEmpty(t, archive, "the workflow packs the plugin tree")
	archive = strings.ReplaceAll(archive, "${GITHUB_REF_NAME#v}", "0.1.0")
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", archive)
		cmd.Dir = "../.."
		require.NoError(t, cmd.Run(), "git does not ignore %s, so GoReleaser would find the checkout dirty", archive)
	}
	var rel struct {
		Release struct {
			ExtraFiles []struct{ Glob string } `yaml:"extra_files"`
		}
	}
	require.NoError(t, yaml.Unmarshal(gr0, &rel))
	matched := false
	for _, f := range rel.Release.ExtraFiles {
		if ok, _ := filepath.Match(strings.TrimPrefix(f.Glob, "./"), archive); ok {
			matched = true
		}
	}
	require.True(t, matched, "GoReleaser attaches %s", archive)
}

// `make dist` removed its whole DISTDIR first, unquoted: a DISTDIR that held
// anything else lost it (`make dist DISTDIR=~/plugins` would empty that
// folder), and one with a space in its name had rm delete two other paths
// (review CQ). It replaces only what it writes, takes any folder name, and
// leaves the older tree whole until the new one is.
// The Makefile runs in a copy of the files dist reads, with a stand-in go
// that writes each binary's name, so nothing is built and no real folder is
// at risk.
func TestDistReplacesOnlyWhatItWrites(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not on PATH")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	work := t.TempDir()
	for _, f := range []string{"Makefile", ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "hooks/hooks.json", "bin/plansmith", ".gitattributes", "README.md", "commands/plan.md"} {
		data, err := os.ReadFile(filepath.Join(repo, f))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(work, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(work, f), data, 0o755))
	}
	// The stand-in go also fails unless the older tree is whole while the
	// binaries build: Claude Code runs a folder marketplace's plugin from
	// that folder, and its hooks went on running it (review CQ: they found
	// no launcher for as long as the build took).
	fakeGo := filepath.Join(t.TempDir(), "go")
	require.NoError(t, os.WriteFile(fakeGo, []byte("#!/bin/sh\n[ -f \"$OLD_TREE/hooks/hooks.json\" ] && [ -f \"$OLD_TREE/bin/plansmith\" ] || { echo \"the older tree is gone while building\" >&2; exit 1; }\n"+
		"while [ $# -gt 1 ]; do [ \"$1\" = -o ] && { echo \"$2\" >\"$2\"; exit; }; shift; done\nexit 1\n"), 0o755))

	parent := t.TempDir()
	keep := filepath.Join(parent, "my", "keep.txt") // what `rm -rf <parent>/my dist` took
	require.NoError(t, os.MkdirAll(filepath.Dir(keep), 0o755))
	require.NoError(t, os.WriteFile(keep, nil, 0o644))
	distDir := filepath.Join(parent, "my dist")
	mine := filepath.Join(distDir, "mine.txt")
	require.NoError(t, os.MkdirAll(distDir, 0o755))
	require.NoError(t, os.WriteFile(mine, nil, 0o644))
	old := filepath.Join(distDir, "plansmith")
	for _, f := range []string{"bin/native/plansmith", "bin/plansmith", "hooks/hooks.json"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(old, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(old, f), nil, 0o755))
	}
	stale := filepath.Join(old, "bin", "native", "plansmith")

	cmd := exec.Command("make", "-s", "dist", "DISTDIR="+distDir, "GO="+fakeGo, "PLATFORMS=linux/amd64 windows/amd64", "COMMIT=abc1234")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "OLD_TREE="+old)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, f := range []string{keep, mine} {
		_, err := os.Stat(f)
		require.NoError(t, err, "left as it was: %s", f)
	}
	_, err = os.Stat(stale)
	require.ErrorIs(t, err, fs.ErrNotExist, "the tree is made anew: no placed binary of an older one")
	sums, err := os.ReadFile(filepath.Join(distDir, "plansmith", "bin", "prebuilt", "SHA256SUMS"))
	require.NoError(t, err)
	require.Contains(t, string(sums), "  plansmith-linux-amd64\n")
	require.Contains(t, string(sums), "  plansmith-windows-amd64.exe\n")
	market, err := os.ReadFile(filepath.Join(distDir, ".claude-plugin", "marketplace.json"))
	require.NoError(t, err)
	require.Contains(t, string(market), `"source": "./plansmith"`)
	require.Contains(t, string(out), "in "+filepath.Join(distDir, "plansmith"))
	_, err = os.Stat(filepath.Join(distDir, ".plansmith.new"))
	require.ErrorIs(t, err, fs.ErrNotExist, "the tree is in place, nothing else left")
}
