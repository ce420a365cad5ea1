//go:build !linux && !darwin

package main

import "time"

// processStarted is when the process was started (loop.Env.Started): not
// read here, so a hook's start counts from when it first runs.
func processStarted() time.Time { return time.Time{} }
