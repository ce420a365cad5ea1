package state

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plant makes link (inside the project) a symbolic link to target and
// returns link.
func plant(t *testing.T, link, target string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	require.NoError(t, os.Symlink(target, link))
	return link
}

func requireLink(t *testing.T, err error, link string) {
	t.Helper()
	var le *LinkError
	require.ErrorAs(t, err, &le, "got %v", err)
	assert.Equal(t, link, le.Path)
	assert.Contains(t, err.Error(), link, "the message names the link")
}

// TestPlantedLinksAreRefused plants, one at a time, every link a cloned
// repository could carry among plansmith's files, and checks that the
// operation reading or writing through it refuses, naming the link, and
// leaves the outside untouched.
func TestPlantedLinksAreRefused(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		link func(p Paths) string
		dir  bool // the link points at a folder
		op   func(p Paths) error
	}{
		{"work folder: lock", func(p Paths) string { return p.Work() }, true,
			func(p Paths) error { _, err := Lock(p); return err }},
		{"work folder: archive", func(p Paths) string { return p.Work() }, true,
			func(p Paths) error { _, err := Archive(p, &File{Loop: sampleLoop()}, ExitCancelled, now); return err }},
		{"archive folder", func(p Paths) string { return p.Archive() }, true,
			func(p Paths) error { _, err := Archive(p, &File{Loop: sampleLoop()}, ExitCancelled, now); return err }},
		{"archive folder: raw", func(p Paths) string { return p.Archive() }, true,
			func(p Paths) error { _, err := ArchiveRaw(p, ExitCorrupt, now); return err }},
		{"gate folder", func(p Paths) string { return p.Gate() }, true,
			func(p Paths) error { return WriteOwned(filepath.Join(p.Gate(), "plan.md"), []byte("plan")) }},
		{"lock file", func(p Paths) string { return p.Lock() }, false,
			func(p Paths) error { _, err := Lock(p); return err }},
		{"state file: load", func(p Paths) string { return p.State() }, false,
			func(p Paths) error { _, err := Load(p.State()); return err }},
		{"state file: save", func(p Paths) string { return p.State() }, false,
			func(p Paths) error { return Save(p.State(), &File{Loop: sampleLoop()}) }},
		{"memory file: read", func(p Paths) string { return p.Memory() }, false,
			func(p Paths) error { _, err := ReadOwned(p.Memory()); return err }},
		{"memory file: write", func(p Paths) string { return p.Memory() }, false,
			func(p Paths) error { return WriteOwned(p.Memory(), []byte("x")) }},
		{"output file", func(p Paths) string { return p.Output() }, false,
			func(p Paths) error { _, err := SaveOutput(p, PlanMeta{}, "the plan", now); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Paths{Project: filepath.Join(t.TempDir(), "project")}
			outside := filepath.Join(t.TempDir(), "outside")
			if tc.dir {
				require.NoError(t, os.MkdirAll(outside, 0o755))
			} else {
				require.NoError(t, os.WriteFile(outside, []byte("secret\n"), 0o644))
			}
			if tc.name == "archive folder: raw" {
				require.NoError(t, Save(p.State(), &File{Loop: sampleLoop()}))
			}
			link := plant(t, tc.link(p), outside)

			if tc.name == "work folder: lock" || tc.name == "lock file" || strings.HasPrefix(tc.name, "archive folder") {
				// The lock, its folder and the archive folder are
				// plansmith's own names: a link there is moved aside, as a
				// link, and the lock or folder made afresh.
				require.NoError(t, tc.op(p))
				requireMovedAside(t, link)
			} else {
				requireLink(t, tc.op(p), link)
			}

			if tc.dir {
				entries, err := os.ReadDir(outside)
				require.NoError(t, err)
				assert.Empty(t, entries, "nothing may be written through the link")
			} else {
				data, err := os.ReadFile(outside)
				require.NoError(t, err)
				assert.Equal(t, "secret\n", string(data), "the link's target is untouched")
			}
		})
	}
}

// TestDanglingLockLinkCreatesNothing: a lock link pointing at a file that
// does not exist must not create it.
func TestDanglingLockLinkCreatesNothing(t *testing.T) {
	p := Paths{Project: t.TempDir()}
	target := filepath.Join(t.TempDir(), "created-by-plansmith")
	link := plant(t, p.Lock(), target)
	unlock, err := Lock(p)
	require.NoError(t, err)
	unlock()
	requireMovedAside(t, link)
	_, err = os.Lstat(target)
	assert.True(t, errors.Is(err, os.ErrNotExist), "the lock link must not create its target")
}

// requireMovedAside checks that the link planted at path was renamed beside
// it, still a link, and that path now holds plansmith's own folder or file.
func requireMovedAside(t *testing.T, path string) {
	t.Helper()
	info, err := os.Lstat(path)
	require.NoError(t, err)
	assert.Zero(t, info.Mode()&fs.ModeSymlink, "%s is plansmith's own again", path)
	moved, err := filepath.Glob(path + ".moved-*")
	require.NoError(t, err)
	require.Len(t, moved, 1)
	info, err = os.Lstat(moved[0])
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&fs.ModeSymlink, "the link moved as a link")
}

// What a repository can carry at the lock's names (a folder for the lock,
// a file for its folder) is moved aside: it cannot turn plansmith off in
// every session (review P).
func TestPlantedLockNamesAreMovedAside(t *testing.T) {
	p := Paths{Project: t.TempDir()}
	require.NoError(t, os.MkdirAll(p.Lock(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.Lock(), ".keep"), nil, 0o644))
	unlock, err := Lock(p)
	require.NoError(t, err)
	unlock()
	info, err := os.Lstat(p.Lock())
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular())
	moved, _ := filepath.Glob(p.Lock() + ".moved-*")
	require.Len(t, moved, 1)
	assert.FileExists(t, filepath.Join(moved[0], ".keep"), "the folder moved with what it held")

	q := Paths{Project: t.TempDir()}
	require.NoError(t, os.MkdirAll(filepath.Dir(q.Work()), 0o755))
	require.NoError(t, os.WriteFile(q.Work(), []byte("a file where the folder goes"), 0o644))
	unlock, err = Lock(q)
	require.NoError(t, err)
	unlock()
	assert.DirExists(t, q.Work())
	moved, _ = filepath.Glob(q.Work() + ".moved-*")
	assert.Len(t, moved, 1)
}

func TestLinksOutsideClaudeAreNotJudged(t *testing.T) {
	// The project itself (and .claude) may be reached through links: only
	// plansmith's own entries below .claude are judged.
	real := t.TempDir()
	project := filepath.Join(t.TempDir(), "via-link")
	require.NoError(t, os.Symlink(real, project))
	p := Paths{Project: project}
	require.NoError(t, Save(p.State(), &File{Loop: sampleLoop()}))
	_, err := Load(p.State())
	require.NoError(t, err)
	unlock, err := Lock(p)
	require.NoError(t, err)
	unlock()
}

// A .claude that is a link may lead to a folder inside the project; one a
// repository carries leading out (into ~/.claude/rules, say) gets nothing
// written below it: the tenth review saw the lock created there.
func TestClaudeLinkLeadingOutGetsNoWrites(t *testing.T) {
	project := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "rules")
	require.NoError(t, os.MkdirAll(elsewhere, 0o755))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(project, ".claude")))
	p := Paths{Project: project}
	_, err := Lock(p)
	requireLink(t, err, filepath.Join(project, ".claude"))
	requireLink(t, Save(p.State(), &File{Loop: sampleLoop()}), filepath.Join(project, ".claude"))
	entries, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written where the link leads")

	inside := filepath.Join(project, "config", "claude")
	require.NoError(t, os.MkdirAll(inside, 0o755))
	require.NoError(t, os.Remove(filepath.Join(project, ".claude")))
	require.NoError(t, os.Symlink(filepath.Join("config", "claude"), filepath.Join(project, ".claude")))
	unlock, err := Lock(p)
	require.NoError(t, err, "a link inside the project is the user's")
	unlock()
}

// The user's own ~/.claude is theirs to link out of their home (dotfiles
// on another disk): plansmith's files below it are written through the
// link, while a project's .claude leading out still gets nothing (review
// BG5).
func TestHomeClaudeLinkedOutIsTheUsers(t *testing.T) {
	home := t.TempDir()
	dotfiles := filepath.Join(t.TempDir(), "claude")
	require.NoError(t, os.MkdirAll(dotfiles, 0o755))
	require.NoError(t, os.Symlink(dotfiles, filepath.Join(home, ".claude")))
	t.Setenv("HOME", home)
	file := filepath.Join(home, ".claude", "plansmith", "plan-index", "s1")
	require.NoError(t, WriteOwned(file, []byte("x")))
	got, err := ReadOwned(file)
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))
	assert.FileExists(t, filepath.Join(dotfiles, "plansmith", "plan-index", "s1"), "written where the link leads")

	// A link below it is still refused.
	require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(home, ".claude", "plansmith", "runs")))
	requireLink(t, WriteOwned(filepath.Join(home, ".claude", "plansmith", "runs", "f"), []byte("x")), filepath.Join(home, ".claude", "plansmith", "runs"))

	// Another folder's .claude is not the user's.
	project := filepath.Join(home, "src")
	require.NoError(t, os.MkdirAll(project, 0o755))
	require.NoError(t, os.Symlink(dotfiles, filepath.Join(project, ".claude")))
	requireLink(t, WriteOwned(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("x")), filepath.Join(project, ".claude"))
}

func TestLoadNonFileIsCorrupt(t *testing.T) {
	t.Run("directory", func(t *testing.T) {
		p := Paths{Project: t.TempDir()}
		require.NoError(t, os.MkdirAll(p.State(), 0o755))
		_, err := Load(p.State())
		var corrupt *CorruptError
		require.ErrorAs(t, err, &corrupt)
		assert.Contains(t, err.Error(), "it is a directory, not a file")

		dst, err := ArchiveRaw(p, ExitCorrupt, time.Now())
		require.NoError(t, err, "a directory in place of the state file can be moved aside")
		info, err := os.Stat(dst)
		require.NoError(t, err)
		assert.True(t, info.IsDir())
		_, err = os.Lstat(p.State())
		assert.True(t, errors.Is(err, os.ErrNotExist))
	})
	t.Run("fifo does not hang", func(t *testing.T) {
		p := Paths{Project: t.TempDir()}
		require.NoError(t, os.MkdirAll(filepath.Dir(p.State()), 0o755))
		require.NoError(t, syscall.Mkfifo(p.State(), 0o644))
		done := make(chan error, 1)
		go func() { _, err := Load(p.State()); done <- err }()
		select {
		case err := <-done:
			var corrupt *CorruptError
			require.ErrorAs(t, err, &corrupt)
			assert.Contains(t, err.Error(), "named pipe")
		case <-time.After(5 * time.Second):
			t.Fatal("Load blocked on a FIFO in place of the state file")
		}
	})
	t.Run("socket", func(t *testing.T) {
		p := Paths{Project: t.TempDir()}
		require.NoError(t, os.MkdirAll(filepath.Dir(p.State()), 0o755))
		l, err := net.Listen("unix", p.State())
		require.NoError(t, err)
		defer l.Close()
		_, err = Load(p.State())
		var corrupt *CorruptError
		require.ErrorAs(t, err, &corrupt, "a socket is no state file, to be moved aside (review BI2)")
		dst, err := ArchiveRaw(p, ExitCorrupt, time.Now())
		require.NoError(t, err)
		info, err := os.Lstat(dst)
		require.NoError(t, err)
		assert.NotZero(t, info.Mode()&fs.ModeSocket)
	})
}

func TestWriteOwnedSweepsOldTemps(t *testing.T) {
	p := Paths{Project: t.TempDir()}
	dir := filepath.Dir(p.State())
	require.NoError(t, os.MkdirAll(dir, 0o755))
	old := time.Now().Add(-2 * TempGrace)
	mk := func(name string, age time.Time) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte("left by a killed write"), 0o644))
		require.NoError(t, os.Chtimes(path, age, age))
		return path
	}
	stale := mk(".plansmith.local.md.tmp-123", old)
	fresh := mk(".plansmith.local.md.tmp-456", time.Now())
	other := mk(".settings.json.tmp-789", old)
	victim := mk("victim", old)
	link := filepath.Join(dir, ".plansmith.local.md.tmp-999")
	require.NoError(t, os.Symlink(victim, link))
	require.NoError(t, os.Chtimes(victim, old, old))

	require.NoError(t, Save(p.State(), &File{Loop: sampleLoop()}))

	exists := func(path string) bool { _, err := os.Lstat(path); return err == nil }
	assert.False(t, exists(stale), "an old temp of the same file is removed")
	assert.True(t, exists(fresh), "a young temp may be a write in progress")
	assert.True(t, exists(other), "another file's temps are not ours to judge")
	assert.True(t, exists(link), "a link is never swept")
	assert.True(t, exists(victim))
}

// AppendOwned adds a line to a file of plansmith's: never through a link,
// never to a FIFO, and on a line of its own after one a full disk cut
// short (review FB8).
func TestAppendOwned(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude", "plansmith")
	path := filepath.Join(dir, "notes")
	require.NoError(t, AppendOwned(path, []byte("a\n")))
	require.NoError(t, AppendOwned(path, []byte("b\n")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a\nb\n", string(b))

	require.NoError(t, os.WriteFile(path, []byte("a\ntor"), 0o644))
	require.NoError(t, AppendOwned(path, []byte("c\n")))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a\ntor\nc\n", string(b))

	outside := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("s"), 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(outside, link))
	var le *LinkError
	assert.ErrorAs(t, AppendOwned(link, []byte("x\n")), &le)
	b, err = os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "s", string(b))

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	var nf *NotFileError
	assert.ErrorAs(t, AppendOwned(fifo, []byte("x\n")), &nf)
}

// TakeOwned moves a file of plansmith's aside and returns what it held:
// an append after it makes a new file, and a link is refused, its target
// untouched (review FB9).
func TestTakeOwned(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude", "plansmith")
	path := filepath.Join(dir, "notes")
	require.NoError(t, AppendOwned(path, []byte("a\n")))
	b, err := TakeOwned(path, path+".taken", 1<<10)
	require.NoError(t, err)
	assert.Equal(t, "a\n", string(b))
	assert.NoFileExists(t, path)
	assert.NoFileExists(t, path+".taken")

	outside := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("s"), 0o644))
	require.NoError(t, os.Symlink(outside, path))
	var le *LinkError
	_, err = TakeOwned(path, path+".taken", 1<<10)
	assert.ErrorAs(t, err, &le)
	b, err = os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "s", string(b))
	_, err = os.Lstat(path)
	assert.NoError(t, err, "the link is left where it was")
}
