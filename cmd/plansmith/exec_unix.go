//go:build !windows

package main

import "syscall"

// execve replaces this process with path (see relaunchIfStale).
func execve(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }
