package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/state"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestAppendLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.md")
	require.NoError(t, Append(path, Run{When: t0, Task: "Add auth\nwith tokens", Lessons: []string{"P4 FAIL: no rollback", "missed gap: cache warmup"}}))
	runs, err := Load(path)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.Equal(t, "Add auth with tokens", runs[0].Task)
	assert.Equal(t, []string{"P4 FAIL: no rollback", "missed gap: cache warmup"}, runs[0].Lessons)
	assert.True(t, runs[0].When.Equal(t0))
}

func TestAppendSkipsRunsWithoutLessons(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.md")
	require.NoError(t, Append(path, Run{When: t0, Task: "x"}))
	runs, err := Load(path)
	require.NoError(t, err)
	assert.Empty(t, runs)
}

func TestCaps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.md")
	for i := 0; i < MaxRuns+5; i++ {
		var lessons []string
		for j := 0; j < MaxLessons+3; j++ {
			lessons = append(lessons, fmt.Sprintf("lesson %d.%d %s", i, j, strings.Repeat("x", MaxLessonLen)))
		}
		lessons = append(lessons, lessons[0]) // duplicates are dropped
		require.NoError(t, Append(path, Run{When: t0.Add(time.Duration(i) * time.Minute), Task: fmt.Sprintf("task %d", i), Lessons: lessons}))
	}
	runs, err := Load(path)
	require.NoError(t, err)
	require.Len(t, runs, MaxRuns, "only the newest runs are kept")
	assert.Equal(t, "task 5", runs[0].Task)
	for _, r := range runs {
		assert.Len(t, r.Lessons, MaxLessons)
		for _, l := range r.Lessons {
			assert.LessOrEqual(t, len(l), MaxLessonLen+len("…"))
		}
	}
}

func TestRenderShowsNewestFirstAndOnlyRecent(t *testing.T) {
	var runs []Run
	for i := 0; i < InjectRuns+2; i++ {
		runs = append(runs, Run{Task: fmt.Sprintf("task %d", i), Lessons: []string{fmt.Sprintf("lesson %d", i)}})
	}
	out := Render(runs)
	assert.NotContains(t, out, "task 0")
	assert.NotContains(t, out, "task 1")
	assert.Less(t, strings.Index(out, "task 6"), strings.Index(out, "task 2"))
	assert.Equal(t, "", Render(nil))
}

func TestParseIgnoresHandEdits(t *testing.T) {
	runs := Parse("# title\nrandom text\n- stray bullet\n## not-a-time — Task A\n- lesson a\nprose\n## 2026-11-22T10:00:00Z — Task B\n- lesson b\n")
	require.Len(t, runs, 2)
	assert.Equal(t, "Task A", runs[0].Task)
	assert.Equal(t, []string{"lesson b"}, runs[1].Lessons)
}

func TestClearIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.md")
	require.NoError(t, Clear(path))
	require.NoError(t, Append(path, Run{When: t0, Task: "x", Lessons: []string{"l"}}))
	require.NoError(t, Clear(path))
	runs, err := Load(path)
	require.NoError(t, err)
	assert.Empty(t, runs)
}

func TestLessons(t *testing.T) {
	f := &state.File{Loop: state.Loop{PrincipleFails: []state.PrincipleFail{{Round: 1, Principle: "P4", Note: "no rollback"}, {Round: 2, Principle: "P9"}}}}
	assert.Equal(t, []string{"P4 FAIL: no rollback", "P9 FAIL", "missed gap: FINDING-2 (high) cache"},
		Lessons(f, []string{"FINDING-2 (high) cache"}))

	open := &state.File{Loop: state.Loop{CritiqueMode: "open"}}
	open.AppendOutput(state.Output{Phase: "critique", Round: 1, Text: "Issues:\n1. Steps lack owners\n2) No rollback\nprose"})
	assert.Equal(t, []string{"critique: Steps lack owners", "critique: No rollback"}, Lessons(open, nil))
	quoted := &state.File{Loop: state.Loop{CritiqueMode: "open"}}
	quoted.AppendOutput(state.Output{Phase: "critique", Round: 1, Text: "```\n1. quoted in code\n```\n**1.** Steps lack owners"})
	assert.Equal(t, []string{"critique: Steps lack owners"}, Lessons(quoted, nil), "items in code blocks are quotes, not findings")
}

func TestOneLineCutsOnRuneBoundary(t *testing.T) {
	s := OneLine(strings.Repeat("목", 200), 10)
	assert.True(t, strings.HasSuffix(s, "…"))
	assert.True(t, len(s) <= 10+len("…"))
	assert.Equal(t, "목목목…", s)
}

// A memory file planted as a link (say to a secret) is neither read into
// the explore prompt nor written through.
func TestMemoryRefusesALink(t *testing.T) {
	p := state.Paths{Project: t.TempDir()}
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("## 2026-01-01T00:00:00Z — x\n- a secret lesson\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Dir(p.Memory()), 0o755))
	require.NoError(t, os.Symlink(secret, p.Memory()))

	runs, err := Load(p.Memory())
	var link *state.LinkError
	require.ErrorAs(t, err, &link)
	assert.Empty(t, runs)
	require.ErrorAs(t, Append(p.Memory(), Run{Task: "t", Lessons: []string{"l"}}), &link)
	data, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Contains(t, string(data), "a secret lesson")
	assert.NotContains(t, string(data), "# plansmith memory")
}

// A .claude a repository carries as a link into another project: clearing
// the memory refuses, and that project's memory stays (review P9).
func TestClearRefusesAClaudeLeadingOut(t *testing.T) {
	victim := filepath.Join(t.TempDir(), ".claude")
	require.NoError(t, os.MkdirAll(victim, 0o755))
	theirs := filepath.Join(victim, "plansmith-memory.local.md")
	require.NoError(t, os.WriteFile(theirs, []byte("their lessons\n"), 0o644))
	p := state.Paths{Project: t.TempDir()}
	require.NoError(t, os.Symlink(victim, filepath.Join(p.Project, ".claude")))

	var link *state.LinkError
	require.ErrorAs(t, Clear(p.Memory()), &link)
	assert.FileExists(t, theirs)
}

// A memory file a repository carries is held to the caps plansmith keeps
// its own under: one larger than MaxFile is not read at all, and a smaller
// one yields at most MaxRuns runs of MaxLessons lessons of MaxLessonLen
// bytes, whatever it holds.
func TestLoadHoldsAPlantedFileToTheCaps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plansmith-memory.local.md")
	var b strings.Builder
	b.WriteString("# mem\n")
	for r := 0; r < 50; r++ {
		fmt.Fprintf(&b, "\n## 2026-01-01T00:00:%02dZ — task %d\n", r, r)
		for l := 0; l < 30; l++ {
			fmt.Fprintf(&b, "- lesson %d %s\n", l, strings.Repeat("x", 500))
		}
	}
	require.Less(t, b.Len(), MaxFile)
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	runs, err := Load(path)
	require.NoError(t, err)
	require.Len(t, runs, MaxRuns)
	assert.Equal(t, "task 49", runs[len(runs)-1].Task, "the newest are kept")
	for _, r := range runs {
		require.Len(t, r.Lessons, MaxLessons)
		for _, l := range r.Lessons {
			assert.LessOrEqual(t, len(l), MaxLessonLen+len("…"))
		}
	}
	assert.Less(t, len(Render(runs)), 30<<10)

	require.NoError(t, os.WriteFile(path, []byte("# mem\n\n## 2026-01-01T00:00:00Z — t\n"+strings.Repeat("- a\n", MaxFile/4+1)), 0o644))
	_, err = Load(path)
	assert.ErrorIs(t, err, plainfile.ErrTooLarge)
}

// Append writes run into the memory file at path as a finished loop does
// (loop.keepLessons, which records the contents first): WithRun, then the
// owned write.
func Append(path string, r Run) error {
	data, err := WithRun(path, r)
	if err != nil || data == nil {
		return err
	}
	return state.WriteOwned(path, data)
}
