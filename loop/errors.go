package loop

import (
	"errors"
	"os"
	"syscall"

	"github.com/plansmith/plansmith/state"
)

// plainError words err for a user: plansmith's own errors as they are, a
// system call's failure by its reason ("no space left on device"), never
// Go's "write /path/.x.tmp-123:" framing of a temporary file.
func plainError(err error) string {
	var link *state.LinkError
	var notFile *state.NotFileError
	var errno syscall.Errno
	var pe *os.PathError
	switch {
	case errors.As(err, &link):
		return link.Error()
	case errors.As(err, &notFile):
		return notFile.Error()
	case errors.As(err, &errno):
		return errno.Error()
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}
