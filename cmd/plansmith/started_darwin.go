package main

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// processStarted is when the kernel started this process (loop.Env.Started),
// zero when it cannot be told: the process table's start time, a wall
// clock time.
func processStarted() time.Time {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", os.Getpid())
	if err != nil {
		return time.Time{}
	}
	tv := kp.Proc.P_starttime
	t := time.Unix(int64(tv.Sec), int64(tv.Usec)*1000)
	if age := time.Since(t); age < 0 || age > time.Hour {
		return time.Time{}
	}
	return t
}
