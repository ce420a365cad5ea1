// Package smalldisk gives tests a folder on a file system of a few KiB, to
// see what the code does when the disk fills up.
package smalldisk

import (
	"os"
	"os/exec"
	"testing"
)

// Mount mounts a tmpfs of size (as mount's size= option reads it: "64k")
// on a fresh temporary folder and returns the folder; it is unmounted when
// the test ends. Mounting needs root (the tests run as root in this
// project's CI and container); elsewhere, or where mounting is not allowed,
// the test is skipped, saying so.
func Mount(t testing.TB, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}
