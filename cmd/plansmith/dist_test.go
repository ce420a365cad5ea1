package main

import (
	"os"
	"os/exec"
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
	require.Equal(t, 2, gr.Version)
	require.NotEqual(t, "dist", gr.Dist, "dist/ is make dist's")
	require.Len(t, gr.Builds, 1)
	b := gr.Builds[0]
	require.Equal(t, "./cmd/plansmith", b.Main)
	require.Contains(t, b.Env, "CGO_ENABLED=0")
	require.Contains(t, b.Flags, "-trimpath")
	require.Contains(t, strings.Join(b.Ldflags, " "), "-X github.com/plansmith/plansmith.version=")
	require.Contains(t, strings.Join(b.Ldflags, " "), "-X github.com/plansmith/plansmith.commit=")

	var wf map[string]any
	data, err = os.ReadFile("../../.github/workflows/release.yml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &wf))
	require.Contains(t, wf, "jobs")
}
