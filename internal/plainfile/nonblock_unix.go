//go:build !windows

package plainfile

import "syscall"

// nonBlock keeps the open from waiting on a FIFO.
const nonBlock = syscall.O_NONBLOCK
