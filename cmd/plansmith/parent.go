package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// parentProcess names the process that started this one (loop.Env.Parent):
// its pid, and on Linux its start time from /proc, since one pid can name
// processes in two containers that share a checkout. Claude Code itself
// may be pid 1 in a container; that is a process like any other.
func parentProcess() string {
	id := strconv.Itoa(os.Getppid())
	b, err := os.ReadFile("/proc/" + id + "/stat")
	if err != nil {
		return id
	}
	// The fields after the command's closing parenthesis start with the
	// third (state); the start time is the twenty-second.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 {
		if f := strings.Fields(string(b[i+1:])); len(f) > 19 {
			return id + "/" + f[19]
		}
	}
	return id
}
