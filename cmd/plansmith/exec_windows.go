package main

import "errors"

// execve cannot replace a process on Windows, so there a stale source
// checkout's binary keeps running; the launcher builds again only when the
// binary is missing (delete build/ to force it). Plugin trees made by
// `make dist` never rebuild anyway.
func execve(path string, argv, env []string) error { return errors.ErrUnsupported }
