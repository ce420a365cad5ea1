package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/state"
)

// Options says where to install and for which binary.
type Options struct {
	Dir    string    // the .claude folder: <project>/.claude or ~/.claude
	Binary string    // absolute path of the plansmith binary the hooks run
	Now    time.Time // names the settings backup
}

// Settings is the settings file install edits.
func (o Options) Settings() string { return filepath.Join(o.Dir, "settings.json") }

// CommandsDir is where the slash commands go.
func (o Options) CommandsDir() string { return filepath.Join(o.Dir, "commands") }

// Action is one thing install or uninstall did, or chose not to do, to a file.
type Action struct {
	File    string // relative to Options.Dir
	Did     string // what happened, for people
	Changed bool
}

// Result lists the actions of one install or uninstall.
type Result struct {
	Actions []Action
}

// Changed reports whether any file was written or removed.
func (r Result) Changed() bool {
	return slices.ContainsFunc(r.Actions, func(a Action) bool { return a.Changed })
}

func (r *Result) add(file string, changed bool, format string, a ...any) {
	r.Actions = append(r.Actions, Action{file, fmt.Sprintf(format, a...), changed})
}

// ResolveBinary makes path absolute, follows symlinks, and checks that it is
// an executable file: hooks must keep working whatever the working directory
// and however the binary was reached.
func ResolveBinary(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("binary %s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("binary %s: %w", path, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("binary %s: %w", path, err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("binary %s is not an executable file", real)
	}
	if info.Size() == 0 {
		// No program: execve fails with ENOEXEC, and the shell of a hook
		// command then runs it as an empty script, which answers nothing
		// and exits 0, so every tool call of a loop went through (review
		// CQ: a binary lost in a crash, or a copy cut short).
		return "", fmt.Errorf("binary %s is an empty file, not a program", real)
	}
	return real, nil
}

// Install registers the hooks in settings.json and writes the slash
// commands. It changes nothing at all when settings.json cannot be parsed,
// and nothing that is already in place; a settings file it does change is
// first copied to a backup beside it. Command files the user edited, or that
// install did not write, are kept.
func Install(o Options) (Result, error) {
	return retryChanged(func() (Result, error) { return install(o) })
}

func install(o Options) (Result, error) {
	var r Result
	h, err := PluginHooks(o.Binary)
	if err != nil {
		return r, err
	}
	cmds, err := Commands(o.Binary)
	if err != nil {
		return r, err
	}
	old, existed, err := readClaudeSettings(o.Settings())
	if err != nil {
		return r, err
	}
	if why := ClaudeSkips(old); why != "" {
		return r, fmt.Errorf("%s has an error for which Claude Code skips the whole file, and would skip plansmith's hooks in it (%s); nothing was changed — fix the file, then run the command again", o.Settings(), why)
	}
	merged, changed, err := Merge(old, h)
	if err != nil {
		return r, settingsError(o.Settings(), err)
	}
	if why := ClaudeMaySkip(old); why != "" {
		r.add("settings.json", false, "warning: some Claude Code versions skip this whole file, and plansmith's hooks in it: %s — fix the file", why)
	}
	if changed {
		did := "registered hooks for " + strings.Join(h.Events(), ", ")
		if err := writeSettings(o, merged, old, existed, &did); err != nil {
			return r, err
		}
		r.add("settings.json", true, "%s", did)
	} else {
		r.add("settings.json", false, "hooks already registered")
	}

	for _, c := range cmds {
		rel := filepath.Join("commands", c.Name)
		p := filepath.Join(o.Dir, rel)
		cur, err := readWritten(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := state.WriteFile(p, c.Data); err != nil {
				return r, err
			}
			r.add(rel, true, "written%s", throughLink(filepath.Dir(o.Dir), p))
		case err != nil:
			return r, fmt.Errorf("reading %s: %w", p, err)
		case string(cur) == string(c.Data):
			r.add(rel, false, "already up to date")
		case Inspect(cur) == Unchanged: // an earlier install's text: safe to refresh
			if err := state.WriteFile(p, c.Data); err != nil {
				return r, err
			}
			r.add(rel, true, "updated%s", throughLink(filepath.Dir(o.Dir), p))
		case Inspect(cur) == Edited:
			r.add(rel, false, "kept: it was edited since install (delete it and run install again to replace it)")
		default:
			r.add(rel, false, "kept: plansmith install did not write it (move it away and run install again to replace it)")
		}
	}
	return r, nil
}

// Uninstall takes out what Install added: plansmith's hook entries (other
// hooks and keys stay) and the command files it wrote that are unchanged.
// A settings file left with nothing in it is removed, and so are the
// commands and .claude folders when that leaves them empty.
func Uninstall(o Options) (Result, error) {
	return retryChanged(func() (Result, error) { return uninstall(o) })
}

func uninstall(o Options) (Result, error) {
	var r Result
	old, existed, err := readClaudeSettings(o.Settings())
	if err != nil {
		return r, err
	}
	if existed {
		out, changed, err := Remove(old, o.Binary)
		if err != nil {
			return r, settingsError(o.Settings(), err)
		}
		switch {
		case changed && sameJSON(out, []byte("{}")) && isPlainFile(o.Settings()):
			// Nothing but plansmith's hooks was in it, so install wrote the
			// file and 'plansmith install' can write it again: no backup. (A
			// linked settings file is emptied below instead, link kept.)
			if err := unchangedSince(o.Settings(), old); err != nil {
				return r, err
			}
			where := throughLink(filepath.Dir(o.Dir), o.Settings())
			if err := os.Remove(o.Settings()); err != nil {
				return r, fmt.Errorf("removing %s: %w", o.Settings(), err)
			}
			if where != "" {
				// A folder linked elsewhere: the user's own file (review FI6).
				r.add("settings.json", true, "removed%s: it held only plansmith's hooks", where)
			} else {
				r.add("settings.json", true, "removed (it held only plansmith's hooks)")
			}
		case changed:
			did := "removed plansmith's hooks"
			if err := writeSettings(o, out, old, true, &did); err != nil {
				return r, err
			}
			r.add("settings.json", true, "%s", did)
		default:
			r.add("settings.json", false, "no plansmith hooks registered")
		}
	}

	cmds, err := Commands(o.Binary)
	if err != nil {
		return r, err
	}
	names := map[string]bool{}
	for _, c := range cmds {
		names[c.Name] = true
	}
	// Files an older version wrote under other names carry the marker too.
	found, _ := filepath.Glob(filepath.Join(o.CommandsDir(), CommandPrefix+"*.md"))
	for _, p := range found {
		names[filepath.Base(p)] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	slices.Sort(sorted)
	removed := false
	for _, name := range sorted {
		rel := filepath.Join("commands", name)
		p := filepath.Join(o.Dir, rel)
		cur, err := readWritten(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return r, fmt.Errorf("reading %s: %w", p, err)
		}
		switch Inspect(cur) {
		case Unchanged:
			if err := os.Remove(p); err != nil {
				return r, fmt.Errorf("removing %s: %w", p, err)
			}
			removed = true
			r.add(rel, true, "removed")
		case Edited:
			r.add(rel, false, "kept: it was edited since install (delete it yourself if you no longer want it)")
		default:
			r.add(rel, false, "kept: plansmith install did not write it")
		}
	}
	if removed {
		removeEmptyFolder(o.CommandsDir())
	}
	if r.Changed() {
		removeEmptyFolder(o.Dir) // a .claude folder install made and nothing else uses
	}
	return r, nil
}

// removeEmptyFolder removes dir when it is a folder with nothing left in
// it. A link is kept, whatever it leads to: os.Remove unlinks a link to a
// folder that holds files (review FH3: uninstall removed a project's .codex
// linked to ~/.codex, and .agents with its skills link, and .claude linked
// from a dotfiles folder; what they led to stayed, the user's links went).
func removeEmptyFolder(dir string) {
	if info, err := os.Lstat(dir); err == nil && info.IsDir() {
		_ = os.Remove(dir)
	}
}

func isPlainFile(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode().IsRegular()
}

// settingsLimit bounds the read of a settings or hooks file: far more than
// any holds.
const settingsLimit = 16 << 20

// readSettings reads a settings (or Codex hooks) file. A repository may
// carry one that is a FIFO or a link to /dev/zero: read as a plain file, up
// to settingsLimit, it is an error naming it, not a hang or a memory fill
// (review BV; doctor reads it, and so does `plan` to say whether hooks
// check the loop).
// readWritten reads a file install writes and uninstall removes (a slash
// command, the Codex skill) as a settings file is read: a repository can
// carry a FIFO at its name, which os.ReadFile waits on for a writer that
// never comes, or a link to /dev/zero, which it reads until memory runs
// out. Such a file is an error naming it.
func readWritten(path string) ([]byte, error) {
	return plainfile.Read(path, settingsLimit)
}

func readSettings(path string) (data []byte, existed bool, err error) {
	defer afterRead(path)
	data, err = plainfile.Read(path, settingsLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, true, nil
}

// readClaudeSettings is readSettings for a Claude Code settings file. Both
// CLIs (2.1.197 and 2.1.330) read a file that begins with a UTF-8 byte order
// mark, as an editor on Windows may save it, and run its hooks (review CE),
// so plansmith reads past the mark too; a file it rewrites loses the mark.
func readClaudeSettings(path string) (data []byte, existed bool, err error) {
	data, existed, err = readSettings(path)
	return bytes.TrimPrefix(data, []byte("\ufeff")), existed, err
}

func settingsError(path string, err error) error {
	return fmt.Errorf("%s is not valid settings JSON (%w); nothing was changed — fix the file, then run the command again", path, err)
}

// writeSettings backs up the current file (when there is one), then replaces
// it atomically, keeping its permissions. did gains the backup's name.
func writeSettings(o Options, data, from []byte, existed bool, did *string) error {
	return writeBackedUp(o.Settings(), data, from, existed, o.Now, did)
}

// afterRead is called once a settings file has been read: a test writes
// the file there, as another program may at that moment.
var afterRead = func(path string) {}

// errChangedMeanwhile: a file changed between plansmith's read of it and
// its write.
var errChangedMeanwhile = errors.New("changed while plansmith was editing it")

// retryChanged runs f again when a file it edits changed under it: another
// program (Claude Code, an editor, a second plansmith) wrote it in the
// moment between plansmith's read and its write, and plansmith's write,
// made from what it had read, would have undone that change (review CQ: a
// program that wrote the file 3000 times lost 41 of its writes to 120
// installs and uninstalls run meanwhile; 1 with this check, made once more
// just before the rename, as no lock is shared with other programs). The
// edit is made again to what the file holds now; after a few tries the file
// is left as it is.
func retryChanged(f func() (Result, error)) (Result, error) {
	for try := 1; ; try++ {
		r, err := f()
		if !errors.Is(err, errChangedMeanwhile) || try == 5 {
			return r, err
		}
	}
}

// unchangedSince fails with errChangedMeanwhile when path no longer holds
// from (what was read of it, past a byte order mark).
func unchangedSince(path string, from []byte) error {
	now, err := plainfile.Read(path, settingsLimit)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if err != nil || !bytes.Equal(bytes.TrimPrefix(now, []byte("\ufeff")), bytes.TrimPrefix(from, []byte("\ufeff"))) {
		return fmt.Errorf("%s %w; nothing was changed — run the command again", path, errChangedMeanwhile)
	}
	return nil
}

// writeBackedUp is writeSettings for any JSON file install edits. from is
// what was read of the file (nil when there was none): when it holds
// something else by now, nothing is written (errChangedMeanwhile).
func writeBackedUp(path string, data, from []byte, existed bool, now time.Time, did *string) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		*did += throughLink(filepath.Dir(filepath.Dir(path)), path)
		path = real // a settings file linked from a dotfiles folder stays a link
	} else if info, lerr := os.Lstat(path); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
		// A link whose target is not there yet (a dotfiles folder not
		// cloned): replacing the link with a file would undo the user's
		// setup (review Y, C5).
		return fmt.Errorf("%s is a link to something that does not exist (%w); create its target, or remove the link, then install again", path, err)
	} else {
		// A new file, made where a linked folder leads (a project's .codex
		// linked to ~/.codex, which holds no hooks.json yet: review FH2).
		*did += throughLink(filepath.Dir(filepath.Dir(path)), path)
	}
	mode := fs.FileMode(0o644)
	if existed {
		info, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		mode = info.Mode().Perm()
		backup, err := backupFile(path, now)
		if err != nil {
			return err
		}
		if err := unchangedSince(backup, from); err != nil {
			os.Remove(backup)
			return fmt.Errorf("%s %w; nothing was changed — run the command again", path, errChangedMeanwhile)
		}
		// And again just before the rename (the mode is set before it, so
		// a private settings file is never readable by others, not even for
		// a moment); the backup is kept only when the file is replaced.
		return state.WriteFileChecked(path, data, mode, func() error {
			if err := unchangedSince(path, from); err != nil {
				os.Remove(backup)
				return err
			}
			*did += " (backup: " + filepath.Base(backup) + ")"
			return nil
		})
	}
	return state.WriteFileChecked(path, data, mode, func() error {
		if plainfile.Present(path) {
			return fmt.Errorf("%s %w; nothing was changed — run the command again", path, errChangedMeanwhile)
		}
		*did += " (new file)"
		return nil
	})
}

// linkOnTheWay finds the first link among the components of path below
// root (the project, or the home, whose own path is not judged): "" when
// there is none. Install edits a settings file where its link leads, as a
// dotfiles folder links it on purpose, but a repository can link a
// project's file or folder to the user's own (~/.codex/hooks.json,
// ~/.claude/commands), and the edit, said to be made in the project, was
// made for every project (review FB7). where says where path leads.
func linkOnTheWay(root, path string) (link, where string) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", ""
	}
	cur := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, c)
		info, err := os.Lstat(cur)
		if err != nil {
			return "", ""
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if where, err = filepath.EvalSymlinks(path); err == nil {
				return cur, where
			}
			// A file not made yet: where its folder leads.
			dir, derr := filepath.EvalSymlinks(filepath.Dir(path))
			if derr != nil || !errors.Is(err, fs.ErrNotExist) || cur == path {
				return "", ""
			}
			return cur, filepath.Join(dir, filepath.Base(path))
		}
	}
	return "", ""
}

// throughLink is what an action on path says when a link below root
// leads it elsewhere: " (in X, where the link Y leads)", or "".
func throughLink(root, path string) string {
	if link, where := linkOnTheWay(root, path); link != "" {
		return " (in " + where + ", where the link " + link + " leads)"
	}
	return ""
}

// backupFile copies path to path.plansmith-backup-<UTC time>, never
// overwriting an earlier backup.
func backupFile(path string, now time.Time) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	base := path + ".plansmith-backup-" + now.UTC().Format("20060102T150405Z")
	name := base
	for n := 2; ; n++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			name = fmt.Sprintf("%s-%d", base, n)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backing up %s: %w", path, err)
		}
		_, werr := f.Write(data)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			os.Remove(name) // no half-written backup is left behind (review Y, C5)
			return "", fmt.Errorf("backing up %s to %s: %w", path, name, errors.Join(werr, cerr))
		}
		return name, nil
	}
}

// Lines lists the actions, one indented line each.
func (r Result) Lines() string {
	var b strings.Builder
	for _, a := range r.Actions {
		fmt.Fprintf(&b, "  %s: %s\n", a.File, a.Did)
	}
	return b.String()
}
