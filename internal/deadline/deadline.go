// Package deadline runs a hook's work so that the hook answers in time:
// Claude Code and Codex run a tool call whose hook times out or fails, so
// work that has not finished by the deadline, or that panics, is answered
// for by the caller's late answer. The work goes on in the background and
// ends with the process.
package deadline

import (
	"fmt"
	"time"
)

// Within returns what f returns, or late(why) when f has not returned
// limit after start, or panics: why is "did not finish within <limit>" or
// "failed (<panic>)".
func Within[T any](start time.Time, limit time.Duration, f func() T, late func(why string) T) T {
	answer := make(chan T, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				answer <- late(fmt.Sprintf("failed (%v)", r))
			}
		}()
		answer <- f()
	}()
	timer := time.NewTimer(time.Until(start.Add(limit)))
	defer timer.Stop()
	select {
	case a := <-answer:
		return a
	case <-timer.C:
		return late(fmt.Sprintf("did not finish within %s", limit))
	}
}
