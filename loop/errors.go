package loop

import (
	"errors"
	"os"
	"strings"
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

// Plain is err's message for people: Go's operation prefix of a failed
// system call ("open /x: …", "lstat /x: …", "mkdir /x: …") becomes the
// path and the reason ("/x: no such file or directory"), wherever it
// stands in the message; the rest is kept.
func Plain(err error) string {
	msg := err.Error()
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Err != nil {
		msg = strings.Replace(msg, pe.Error(), pe.Path+": "+pe.Err.Error(), 1)
	}
	return msg
}
