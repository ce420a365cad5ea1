package install

import "os/exec"

// ownProcessGroup does nothing on Windows (no process groups to signal).
func ownProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills cmd's process; its children are not reached.
func killProcessGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
