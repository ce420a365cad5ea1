package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
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
