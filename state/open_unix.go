//go:build !windows

package state

import "syscall"

// noFollowNonBlock makes openRegular refuse a final symbolic link (ELOOP)
// and not wait on a FIFO.
const noFollowNonBlock = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
