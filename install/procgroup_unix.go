//go:build !windows

package install

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, so
// killProcessGroup also ends what it started.
func ownProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killProcessGroup kills cmd's process group.
func killProcessGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
