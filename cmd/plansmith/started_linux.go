package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// processStarted is when the kernel started this process (loop.Env.Started)
// as a bound it cannot be earlier than, zero when it cannot be told: a later
// hook's start must never read as before a judgment it came after. Two
// things bound the process's age from below: /proc's start time, in clock
// ticks since boot (USER_HZ, 100 a second whatever the kernel's own rate),
// on the clock CLOCK_BOOTTIME reads, less the tick it may have begun in;
// and the time it has spent running or waiting to run (schedstat, in
// nanoseconds), which on a loaded machine is most of it.
func processStarted() time.Time {
	var age time.Duration
	if b, err := os.ReadFile("/proc/self/schedstat"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 2 {
			run, err1 := strconv.ParseInt(f[0], 10, 64)
			wait, err2 := strconv.ParseInt(f[1], 10, 64)
			if err1 == nil && err2 == nil {
				age = time.Duration(run + wait)
			}
		}
	}
	ticks, ok := startTicks()
	var ts unix.Timespec
	if !ok || unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return time.Time{}
	}
	now := time.Now()
	age = max(age, time.Duration(ts.Nano())-time.Duration(ticks+1)*(time.Second/100))
	if age <= 0 || age > time.Hour {
		return time.Time{} // not clocks this reading understands
	}
	return now.Add(-age)
}

// startTicks is this process's start time in /proc/self/stat: the
// twenty-second field, counted from the third (state), which follows the
// command's closing parenthesis.
func startTicks() (int64, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	return ticks, err == nil
}
