package loop

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Cancelled is what Cancel did.
type Cancelled struct {
	// Found is false when there was no state file: nothing was done.
	Found bool
	// Unreadable is why the state file could not be read (corrupt, or not
	// readable at all); it was moved aside to Archive.
	Unreadable error
	// Link is true when the state file was a symbolic link: the link moved
	// aside to Archive, its target untouched.
	Link bool
	// Active is true when the loop was running (at Label); an inactive
	// leftover file is archived all the same.
	Active  bool
	Label   string
	Request string
	Archive string // where the state file went, relative to the project
	// NotArchived is why the archive could not be written when the loop
	// ended all the same: its state file stays in place, marked ended
	// (state.Archive's fallback), and Archive is empty.
	NotArchived string
}

// NotEndedError is Cancel's error when the loop could not be ended: its
// state file could be neither archived nor marked ended (a read-only
// project, say), so the loop runs on. Its message says so, with the
// system's reason and what the user can do, rather than Go's chain of
// paths with a temporary file's name in it (review BT3).
type NotEndedError struct {
	Label    string // where the loop stands; "" for a state file that could not be read
	ReadOnly bool   // the loop's tool calls are refused while it runs
	State    string // the state file, relative to the project
	Err      error
}

func (e *NotEndedError) Error() string {
	return strings.TrimSpace(templates.Show("cli/cancel-failed.md", map[string]any{
		"Label": e.Label, "ReadOnly": e.ReadOnly, "State": e.State, "Why": plainError(e.Err)}))
}

func (e *NotEndedError) Unwrap() error { return e.Err }

// Cancel ends the project's loop: it archives the state file under the
// lock, so a hook running at the same moment either finishes first or
// finds no loop afterwards. A corrupt file is moved aside untouched. With
// no state file it does nothing and creates nothing.
func Cancel(env Env, p state.Paths) (Cancelled, error) {
	t, err := begin(p, false)
	var corrupt *state.CorruptError
	var link *state.LinkError
	var lock *lockError
	// Only an unreadable state file itself is moved aside (corrupt, a
	// link, a file that cannot be read): begin returns no txn when the
	// lock could not be had (a link there too, review P).
	switch {
	case t != nil && err != nil:
		defer t.commit()
		dst, aerr := t.archiveCorrupt(env.Now())
		if aerr != nil {
			// Nothing can tell whether a loop runs: tool calls stay
			// refused (state-stuck.md).
			return Cancelled{}, &NotEndedError{ReadOnly: true, State: p.Rel(p.State()), Err: aerr}
		}
		c := Cancelled{Found: true, Link: errors.As(err, &link), Archive: p.Rel(dst), Unreadable: err}
		if errors.As(err, &corrupt) {
			c.Unreadable = corrupt.Err
		}
		if c.Link {
			c.Unreadable = nil
		}
		return c, nil
	case errors.As(err, &link):
		return Cancelled{}, linkedAway(p, link)
	case errors.As(err, &lock):
		return Cancelled{}, lock.advised(p)
	case err != nil:
		return Cancelled{}, err
	}
	defer t.commit()
	if t.file == nil {
		return Cancelled{}, nil
	}
	c := Cancelled{Found: true, Active: t.active(), Request: t.file.Loop.Request}
	if c.Active {
		c.Label = label(t.file)
	}
	at, blocks := label(t.file), t.file.Loop.BlockTools
	dst, err := t.archive(state.ExitCancelled, env.Now())
	if err != nil && stillActive(p) {
		// Its ID is not retired: the loop runs on, and the session that
		// takes it on still may (review BT3).
		return Cancelled{}, &NotEndedError{Label: at, ReadOnly: blocks, State: p.Rel(p.State()), Err: err}
	}
	retireID(env, p, &t.file.Loop) // ended: its ID served
	if err != nil {
		// Ended all the same: the archive could not be written, the
		// state file marked ended could.
		c.NotArchived = plainError(err)
		return c, nil
	}
	c.Archive = p.Rel(dst)
	return c, nil
}

// linkedAway explains a loop plansmith cannot end: a link among its folders
// (.claude itself, say, made by a dotfiles setup after the loop started)
// leads elsewhere, and plansmith never writes through one. Telling the user
// to run cancel again would go round in circles (review X, F7).
func linkedAway(p state.Paths, link *state.LinkError) error {
	to, err := filepath.EvalSymlinks(link.Path)
	if err != nil {
		to = "where it leads"
	}
	return fmt.Errorf("%w\nplansmith cannot end the loop through it. The link %s leads to %s: if that is another project's folder, the loop there is that project's, so remove the link; if the link is yours and the loop this project's, delete the state file %s behind it by hand",
		link, p.Rel(link.Path), to, p.Rel(p.State()))
}
