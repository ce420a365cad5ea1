// Package smalldisk gives tests a folder on a file system of a few KiB, to
// see what the code does when the disk fills up.
package smalldisk

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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

// Fill writes a file into dir until its file system is full, to the last
// byte, and returns a function that removes the file again.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", dir, err)
			}
			break
		}
	}
	// The last partial page too.
	for {
		if _, err := f.Write(buf[:1]); err != nil {
			break
		}
	}
	return func() {
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
	}
}
