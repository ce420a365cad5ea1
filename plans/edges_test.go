package plans

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/internal/smalldisk"
)

// A plans folder planted as a link to the project's own parent resolves to
// "..", not "../something": it is outside the project all the same.
func TestKeepRefusesALinkToTheProjectsParent(t *testing.T) {
	parent := t.TempDir()
	project := filepath.Join(parent, "project")
	require.NoError(t, os.MkdirAll(filepath.Join(project, "docs"), 0o755))
	require.NoError(t, os.Symlink(parent, filepath.Join(project, "docs", "plans")))
	_, err := Keep(project, Config{Dir: DefaultDir}, planDoc("x", time.Now(), true), "x", time.Now(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside the project")
	des, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Len(t, des, 1, "only the project itself is in its parent")
}

// On a full disk the plan cannot be kept whole: Keep says so and leaves no
// cut-off plan under a readable name (the caller tells the user the plan is
// in the output file instead).
func TestKeepOnAFullDiskKeepsNothingHalfWritten(t *testing.T) {
	project := smalldisk.Mount(t, "64k")
	doc := append(planDoc("Big", time.Now(), true), bytes.Repeat([]byte("step\n"), 40<<10)...) // 200 KiB
	_, err := Keep(project, Config{Dir: DefaultDir}, doc, "Big", time.Now(), nil)
	require.Error(t, err)
	des, err := os.ReadDir(filepath.Join(project, "docs", "plans"))
	require.NoError(t, err)
	assert.Empty(t, des, "neither a cut-off plan nor a temporary file is left")
}

func TestLoadConfigOffSpellings(t *testing.T) {
	for _, v := range []string{`"false"`, "no", "None", `"off"`, " OFF "} {
		project := t.TempDir()
		writeSettings(t, project, "plans_dir: "+v+"\n")
		got, err := LoadConfig(project)
		require.NoError(t, err, v)
		assert.True(t, got.Off, v)
	}
}

// Only regular, visible .md files with a plan's frontmatter (an exit reason
// and a time) are kept plans; a folder, a FIFO or a dot-file is not.
func TestListSkipsWhatIsNoPlan(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, "docs", "plans")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "folder.md"), 0o755))
	d := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hidden.md"), planDoc("hidden", d, true), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "no-reason.md"), []byte("---\ngenerated_at: 2026-05-06T07:08:09Z\nrequest: r\n---\nbody\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "no-time.md"), []byte("---\nexit_reason: completed\nrequest: r\n---\nbody\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real.md"), planDoc("real", d, true), 0o644))
	entries, err := List(project, Config{Dir: DefaultDir})
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "real", entries[0].Name)
}

// A plan file whose body is larger than the header limit is still listed:
// only its head is read.
func TestListReadsOnlyTheHead(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, "docs", "plans")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	d := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	doc := append(planDoc("big", d, true), strings.Repeat("x", maxHeader)...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.md"), doc, 0o644))
	entries, err := List(project, Config{Dir: DefaultDir})
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

// A name given whole wins over names it is part of; the only one that
// contains a word is found by it.
func TestFindWholeNameAndSoleMatch(t *testing.T) {
	entries := []Entry{{Name: "2026-01-01-cache"}, {Name: "2026-01-01-cache-layer"}}
	e, err := Find(entries, "2026-01-01-cache")
	require.NoError(t, err)
	assert.Equal(t, "2026-01-01-cache", e.Name)
	e, err = Find(entries, "layer")
	require.NoError(t, err)
	assert.Equal(t, "2026-01-01-cache-layer", e.Name)
	e, err = Find(entries, "e-lay")
	require.NoError(t, err, "a part in the middle of one name only")
	assert.Equal(t, "2026-01-01-cache-layer", e.Name)
}

// With no kept plan at all, the output is the latest whatever its ending;
// an edited kept plan found through Vouch is still plansmith's.
func TestLatestAndVouch(t *testing.T) {
	failed := Entry{Name: "output", ExitReason: "gate_failed"}
	got, ok := Latest(nil, &failed)
	require.True(t, ok)
	assert.Equal(t, "output", got.Name)
	got, _ = Latest([]Entry{{Name: "kept"}}, &failed)
	assert.Equal(t, "kept", got.Name, "a failed output does not displace a kept plan")

	home, project := t.TempDir(), t.TempDir()
	ledger := provenance.Open(home, project)
	require.True(t, ledger.Known())
	path := filepath.Join(project, "a.md")
	require.NoError(t, os.WriteFile(path, []byte("one"), 0o644))
	require.NoError(t, ledger.Record(path, time.Now()))
	require.NoError(t, os.WriteFile(path, []byte("two"), 0o644))
	es := Vouch([]Entry{{Name: "a", Path: path}}, ledger)
	assert.False(t, es[0].KeptHere)
	assert.True(t, es[0].Edited, "changed since plansmith wrote it")
	assert.Positive(t, es[0].Kept.Seq)
}

// A FIFO named like a plan would block the reader forever: List passes it
// by without opening it.
func TestListDoesNotOpenAFIFO(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, "docs", "plans")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if err := syscall.Mkfifo(filepath.Join(dir, "2026-01-01-pipe.md"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := List(project, Config{Dir: DefaultDir})
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		// Unblock the reader so the test binary can end.
		if f, err := os.OpenFile(filepath.Join(dir, "2026-01-01-pipe.md"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("List opened the FIFO and blocked")
	}
}

func TestKeepSaysAFileIsNoFolder(t *testing.T) {
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, "docs", "plans"), []byte("x"), 0o644))
	_, err := Keep(project, Config{Dir: DefaultDir}, planDoc("x", time.Now(), true), "x", time.Now(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a folder")
}

// A long slug is cut on a rune boundary (two-byte letters starting at an odd
// offset), and at a hyphen only when that keeps more than half of it.
func TestSlugCuts(t *testing.T) {
	got := Slug("a" + strings.Repeat("é", 40))
	assert.True(t, utf8.ValidString(got), "%q", got)
	assert.LessOrEqual(t, len(got), maxSlugBytes)
	got = Slug("ab " + strings.Repeat("x", 70))
	assert.Equal(t, "ab-"+strings.Repeat("x", maxSlugBytes-3), got, "a hyphen near the start is no place to cut")
}

// A plan already kept at a taken name (already says so: the loop finishing
// again after a failed archive) is kept once, at that name (review CF2). A
// name already does not claim is a plan of its own; so is a link named like
// the kept plan, whatever already says of it.
func TestKeepKeepsAPlanAlreadyKeptOnce(t *testing.T) {
	project := t.TempDir()
	cfg := Config{Dir: DefaultDir}
	day := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	first, err := Keep(project, cfg, planDoc("x", day, true), "x", day, nil)
	require.NoError(t, err)
	ours := func(path string) bool { return path == first }
	again, err := Keep(project, cfg, planDoc("x", day.Add(time.Minute), true), "x", day.Add(time.Minute), ours)
	require.NoError(t, err)
	assert.Equal(t, first, again, "the plan already kept is kept once")
	data, err := os.ReadFile(first)
	require.NoError(t, err)
	assert.Contains(t, string(data), day.Format(time.RFC3339), "the file kept first is left as it was")

	other, err := Keep(project, cfg, planDoc("x", day, true), "x", day, func(string) bool { return false })
	require.NoError(t, err)
	assert.Equal(t, "2026-11-27-x-2.md", filepath.Base(other), "another plan is kept beside it")

	dir := filepath.Join(project, "docs", "plans")
	require.NoError(t, os.Rename(first, filepath.Join(dir, "held.md")))
	require.NoError(t, os.Symlink("held.md", first))
	linked, err := Keep(project, cfg, planDoc("x", day, true), "x", day, ours)
	require.NoError(t, err)
	assert.Equal(t, "2026-11-27-x-3.md", filepath.Base(linked), "a link is never taken for the kept plan")
}

// A Keep killed between writing its temporary file and linking it leaves
// the file behind; a later Keep removes it once it is older than any Keep
// could still be using (review CF4). A fresh one, or a folder of that
// name, stays.
func TestKeepSweepsTemporaryFilesACrashLeft(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, "docs", "plans")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	now := time.Now()
	stale, fresh, folder := filepath.Join(dir, tempPrefix+"1"), filepath.Join(dir, tempPrefix+"2"), filepath.Join(dir, tempPrefix+"3")
	for _, f := range []string{stale, fresh} {
		require.NoError(t, os.WriteFile(f, []byte("half a plan"), 0o600))
	}
	require.NoError(t, os.Mkdir(folder, 0o755))
	old := now.Add(-2 * time.Minute)
	require.NoError(t, os.Chtimes(stale, old, old))

	_, err := Keep(project, Config{Dir: DefaultDir}, planDoc("x", now, true), "x", now, nil)
	require.NoError(t, err)
	assert.NoFileExists(t, stale)
	assert.FileExists(t, fresh)
	assert.DirExists(t, folder)
}

// A plans folder that is a link leading nowhere (or a parent that is) is
// named as one, with where it leads: "docs/plans: no such file or
// directory" was all the user heard, of a folder they could see (review
// DD4).
func TestKeepSaysALinkLeadsNowhere(t *testing.T) {
	for _, link := range []string{"docs/plans", "docs"} {
		project := t.TempDir()
		path := filepath.Join(project, filepath.FromSlash(link))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.Symlink(filepath.Join(project, "gone"), path))
		_, err := Keep(project, Config{Dir: DefaultDir}, planDoc("x", time.Now(), true), "x", time.Now(), nil)
		require.Error(t, err, link)
		assert.Contains(t, err.Error(), path+" is a link to "+filepath.Join(project, "gone")+", which does not lead to a folder", link)
		assert.NotErrorIs(t, err, fs.ErrNotExist, "the system's reason alone would be all a caller shows")
	}
}

// Vouching for many kept plans reads the ledger once, not once a plan:
// with a few thousand plans and a full record, `plans` and
// /plansmith:implement took seconds (review DD8: 4,500 plans, 7 s). Timed
// against one question to the ledger, which reads the record: vouching
// for 1,500 plans took about 1,500 of those, and must now take far fewer.
func TestVouchingForManyPlansReadsTheLedgerOnce(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	ledger := provenance.Open(home, project)
	dir := filepath.Join(project, filepath.FromSlash(DefaultDir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var entries []Entry
	for i := 0; i < 1500; i++ {
		path := filepath.Join(dir, fmt.Sprintf("2026-11-27-a-plan-with-a-name-of-some-length-%04d.md", i))
		require.NoError(t, os.WriteFile(path, planDoc(fmt.Sprint("plan ", i), time.Unix(int64(i), 0), false), 0o644))
		require.NoError(t, ledger.Record(path, time.Unix(int64(i), 0)))
		entries = append(entries, Entry{Path: path})
	}
	start := time.Now()
	for i := 0; i < 10; i++ {
		_, ok := ledger.Written(entries[i].Path)
		require.True(t, ok)
	}
	one := time.Since(start) / 10
	start = time.Now()
	entries = Vouch(entries, ledger)
	took := time.Since(start)
	assert.Less(t, took, 400*one, "vouching took %v, one question %v", took, one)
	assert.True(t, entries[len(entries)-1].KeptHere)
	assert.Greater(t, entries[len(entries)-1].Kept.Seq, entries[len(entries)-2].Kept.Seq)
}
