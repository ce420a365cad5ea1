//go:build !windows

package provenance

import "syscall"

// noFollowNonBlock refuses a final symbolic link (ELOOP) and does not wait
// on a FIFO.
const noFollowNonBlock = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
