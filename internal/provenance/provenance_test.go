package provenance

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordAndWritten(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	l := Open(home, project)
	plan := filepath.Join(project, "docs", "plans", "a.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(plan), 0o755))
	require.NoError(t, os.WriteFile(plan, []byte("plan A\n"), 0o644))

	_, ok := l.Written(plan)
	assert.False(t, ok, "nothing recorded yet")
	now := time.Unix(1700000000, 0)
	require.NoError(t, l.Record(plan, now))
	m, ok := l.Written(plan)
	require.True(t, ok)
	assert.Equal(t, 1, m.Seq)
	assert.True(t, m.When.Equal(now))

	// The record is out of the project, under the home.
	records, err := filepath.Glob(filepath.Join(home, filepath.FromSlash(Dir), "*[0-9a-f]"))
	require.NoError(t, err)
	assert.Len(t, records, 1)

	// Other bytes under the same name are not what plansmith wrote.
	require.NoError(t, os.WriteFile(plan, []byte("plan A, edited\n"), 0o644))
	_, ok = l.Written(plan)
	assert.False(t, ok)
	// The same bytes under another name neither.
	require.NoError(t, os.WriteFile(plan, []byte("plan A\n"), 0o644))
	other := filepath.Join(project, "docs", "plans", "b.md")
	require.NoError(t, os.WriteFile(other, []byte("plan A\n"), 0o644))
	_, ok = l.Written(other)
	assert.False(t, ok)
	_, ok = l.Written(plan)
	assert.True(t, ok, "restored bytes are the recorded ones again")

	// A later record of the same file has a later place.
	require.NoError(t, l.Record(other, now))
	mb, ok := l.Written(other)
	require.True(t, ok)
	assert.Greater(t, mb.Seq, m.Seq)

	// Another project's ledger knows none of it.
	_, ok = Open(home, t.TempDir()).Written(plan)
	assert.False(t, ok)
	// No home: nothing is recorded, nothing vouched for.
	assert.NoError(t, Open("", project).Record(plan, now))
	_, ok = Open("", project).Written(plan)
	assert.False(t, ok)
}

// A link in the plans folder is not a file plansmith wrote, even when it
// leads to one.
func TestALinkIsNotVouchedFor(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	l := Open(home, project)
	plan := filepath.Join(project, "a.md")
	require.NoError(t, os.WriteFile(plan, []byte("plan A\n"), 0o644))
	require.NoError(t, l.Record(plan, time.Now()))
	link := filepath.Join(project, "b.md")
	require.NoError(t, os.Symlink(plan, link))
	_, ok := l.Written(link)
	assert.False(t, ok)
	assert.Error(t, l.Record(link, time.Now()), "a link is not recorded")
	outside := filepath.Join(t.TempDir(), "c.md")
	require.NoError(t, os.WriteFile(outside, []byte("x"), 0o644))
	assert.Error(t, l.Record(outside, time.Now()), "a file outside the project is not recorded")
}

// An overgrown record keeps its newest lines.
func TestTheRecordIsTrimmed(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	l := Open(home, project)
	plan := filepath.Join(project, "a.md")
	for i := 0; i < 1200; i++ {
		require.NoError(t, os.WriteFile(plan, []byte{byte(i), byte(i >> 8)}, 0o644))
		require.NoError(t, l.Record(plan, time.Unix(int64(i), 0)))
	}
	info, err := os.Stat(l.path)
	require.NoError(t, err)
	assert.LessOrEqual(t, info.Size(), int64(maxRecord))
	m, ok := l.Written(plan)
	require.True(t, ok, "the newest record survives the trim")
	assert.Equal(t, int64(1199), m.When.Unix())
}

// Bytes recorded before they are written vouch for the file once it holds
// them, and for nothing else; the file's earlier contents stay vouched for
// by their own record (review FB2: the memory is recorded so, first).
func TestBytesRecordedBeforeTheyAreWritten(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	l := Open(home, project)
	mem := filepath.Join(project, "memory.md")
	require.NoError(t, os.WriteFile(mem, []byte("old"), 0o644))
	require.NoError(t, l.Record(mem, time.Unix(1, 0)))
	require.NoError(t, l.RecordBytes(mem, []byte("new"), time.Unix(2, 0)))
	m, ok := l.Written(mem)
	require.True(t, ok, "not written yet: the old bytes are still plansmith's")
	assert.Equal(t, int64(1), m.When.Unix())
	require.NoError(t, os.WriteFile(mem, []byte("new"), 0o644))
	m, ok = l.Written(mem)
	require.True(t, ok)
	assert.Equal(t, int64(2), m.When.Unix())
	require.NoError(t, os.WriteFile(mem, []byte("other"), 0o644))
	_, ok = l.Written(mem)
	assert.False(t, ok)
	assert.Error(t, l.RecordBytes(filepath.Join(t.TempDir(), "x.md"), []byte("x"), time.Unix(3, 0)), "outside the project")
}

// A file recorded long ago and still there keeps its record through every
// trim, however many loops and files came after (review AA5: after about
// 720 plans the memory's record was gone, and with it the memory).
func TestAnOldRecordSurvivesTheTrim(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	l := Open(home, project)
	mem := filepath.Join(project, "memory.md")
	require.NoError(t, os.WriteFile(mem, []byte("lessons"), 0o644))
	require.NoError(t, l.Record(mem, time.Unix(1, 0)))
	gone := filepath.Join(project, "gone.md")
	require.NoError(t, os.WriteFile(gone, []byte("x"), 0o644))
	require.NoError(t, l.Record(gone, time.Unix(2, 0)))
	require.NoError(t, os.Remove(gone))
	for i := 0; i < 5000; i++ {
		require.NoError(t, l.RecordID("loop", strconv.Itoa(i), time.Unix(int64(i), 0)))
	}
	_, ok := l.Written(mem)
	assert.True(t, ok, "the memory's record survives")
	assert.True(t, l.HasID("loop", "4999"), "the newest names survive")
	assert.False(t, l.HasID("loop", "0"), "old names go")
	for _, ln := range l.lines() {
		assert.NotEqual(t, "gone.md", ln.rel, "a file no longer there goes")
	}
}

// Appends that race trims lose no line (review AB: a trim rewrote the
// record from what it had read, and a loop ID appended meanwhile was gone,
// so the loop never bound).
func TestAppendsRacingTrimsLoseNothing(t *testing.T) {
	old := maxRecord
	maxRecord = 12 << 10 // past 125 or so IDs, every append trims (and 200 IDs are read whole)
	defer func() { maxRecord = old }()
	l := Open(t.TempDir(), t.TempDir())
	const writers, each = 4, 50 // 200 IDs: fewer than keepIDs, so trims keep them all
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				assert.NoError(t, l.RecordID("loop", fmt.Sprintf("w%d-%d", w, i), time.Now()))
			}
		}()
	}
	wg.Wait()
	lost := 0
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			if !l.HasID("loop", fmt.Sprintf("w%d-%d", w, i)) {
				lost++
			}
		}
	}
	assert.Zero(t, lost, "IDs lost to trims")
}

// Something else at the lock's path (a folder) does not stop trims for
// good: the record would outgrow what is read of it, and new IDs would not
// be found (review AJ7).
func TestARecordWithoutItsLockIsStillTrimmed(t *testing.T) {
	old := maxRecord
	maxRecord = 24 << 10 // keepIDs lines fit in what is read (2*maxRecord); 600 lines do not
	defer func() { maxRecord = old }()
	l := Open(t.TempDir(), t.TempDir())
	require.NoError(t, l.RecordID("loop", "first", time.Now()))
	require.NoError(t, os.Remove(l.path+".lock"))
	require.NoError(t, os.Mkdir(l.path+".lock", 0o700))
	for i := 0; i < 600; i++ {
		require.NoError(t, l.RecordID("loop", fmt.Sprintf("id%d", i), time.Now()))
	}
	assert.True(t, l.HasID("loop", "id599"), "the newest ID is found")
	info, err := os.Stat(l.path)
	require.NoError(t, err)
	assert.LessOrEqual(t, info.Size(), 2*maxRecord)
}

// A record cut short by a full disk (the write stops at a page the disk
// had no room for) leaves a line with no newline; the next record, written
// once there is room again, must not be glued to it and lost with it: the
// user's own loop was then taken for a repository's (review DD1).
func TestARecordAfterATornLineIsKept(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	l := Open(home, project)
	plan := filepath.Join(project, "a.md")
	require.NoError(t, os.WriteFile(plan, []byte("plan A\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Dir(l.path), 0o700))
	// What a full disk left: the start of a line, no newline.
	require.NoError(t, os.WriteFile(l.path, []byte("1795775696067370306"), 0o600))

	require.NoError(t, l.Record(plan, time.Unix(1700000000, 0)))
	_, ok := l.Written(plan)
	assert.True(t, ok, "the record written after the torn line is lost")
	require.NoError(t, l.RecordID("loop", "abc", time.Unix(1700000001, 0)))
	assert.True(t, l.HasID("loop", "abc"))
}

// A record that stays larger than is read of it after a trim (a project
// that keeps thousands of plans: each one's line stays while the file is
// there) loses its oldest lines to the reader and to the trim, never its
// newest: both read the first part alone, and the trim rewrote the record
// from it, so the memory's and the newest plans' records were gone, every
// finished run moved the memory aside as a repository's, and the newest
// plans were "not kept here" (review DD5).
func TestARecordLargerThanIsReadKeepsItsNewestLines(t *testing.T) {
	old := maxRecord
	maxRecord = 2 << 10 // 4 KiB read; 100 plans' lines are about 8 KiB
	defer func() { maxRecord = old }()
	home, project := t.TempDir(), t.TempDir()
	l := Open(home, project)
	now := time.Unix(1700000000, 0)
	var plans []string
	for i := 0; i < 100; i++ {
		plan := filepath.Join(project, fmt.Sprintf("plan-%03d.md", i))
		require.NoError(t, os.WriteFile(plan, []byte(fmt.Sprint("plan ", i)), 0o644))
		require.NoError(t, l.Record(plan, now))
		plans = append(plans, plan)
	}
	mem := filepath.Join(project, "memory.md")
	require.NoError(t, os.WriteFile(mem, []byte("lessons"), 0o644))
	require.NoError(t, l.Record(mem, now))
	require.NoError(t, l.RecordID("loop", "newest", now))
	m, ok := l.Written(mem)
	assert.True(t, ok, "the memory's record is found")
	p, ok := l.Written(plans[99])
	assert.True(t, ok, "the newest plan's record is found")
	assert.Greater(t, m.Seq, p.Seq, "later records still come later")
	assert.True(t, l.HasID("loop", "newest"))
	for _, ln := range l.lines() {
		assert.Len(t, ln.sum, 64, "no line is read from its middle")
	}
}

// A snapshot answers from the record as it was read (review DD8: each
// answer read the whole record again), and a record written through one
// never rewrites the record from that old reading when it trims.
func TestASnapshotAnswersFromOneReading(t *testing.T) {
	old := maxRecord
	maxRecord = 4 << 10
	defer func() { maxRecord = old }()
	home, project := t.TempDir(), t.TempDir()
	l := Open(home, project)
	plan := filepath.Join(project, "a.md")
	require.NoError(t, os.WriteFile(plan, []byte("plan A\n"), 0o644))
	require.NoError(t, l.Record(plan, time.Unix(1, 0)))

	s := l.Snapshot()
	_, ok := s.Written(plan)
	assert.True(t, ok)
	require.NoError(t, l.RecordID("loop", "later", time.Unix(2, 0)))
	assert.False(t, s.HasID("loop", "later"), "a snapshot is one reading")
	assert.True(t, l.HasID("loop", "later"))

	// Enough IDs that every append trims (and all are read); the last
	// through the snapshot.
	for i := 0; i < 60; i++ {
		require.NoError(t, l.RecordID("loop", fmt.Sprint("id", i), time.Unix(3, 0)))
	}
	require.NoError(t, s.RecordID("loop", "through the snapshot", time.Unix(4, 0)))
	assert.True(t, l.HasID("loop", "id59"), "the trim read the record as it is")
	assert.True(t, l.HasID("loop", "through the snapshot"))
	_, ok = l.Written(plan)
	assert.True(t, ok)
}
