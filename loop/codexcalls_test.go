package loop

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Codex hook notes the calls running plansmith plan it judged, with
// what it found of Codex's other hooks; plan finds its own call among
// them, for its own thread, moments after (reviews BO1–BO3, BQ1–BQ4).
func TestACodexCallTheHookJudgedIsFound(t *testing.T) {
	env, _ := homeEnv(t)
	home := env.Getenv("HOME")
	now := time.Now()
	plan := `"/opt/plansmith/bin/plansmith" plan --agent codex -- 'x'`
	require.NoError(t, NoteCodexCall(env, "call_7", "thread-a", plan, ""))
	judged, others := CodexCallJudged(home, "call_7", "thread-a", now)
	assert.True(t, judged)
	assert.Empty(t, others)
	judged, _ = CodexCallJudged(home, "call_7", "thread-b", now)
	assert.False(t, judged, "another thread's call")
	judged, _ = CodexCallJudged(home, "call_8", "thread-a", now)
	assert.False(t, judged, "a call no hook judged")
	judged, _ = CodexCallJudged(home, "call_7", "thread-a", now.Add(codexCallFresh+time.Second))
	assert.False(t, judged, "a note from long before is no note of this call (review BQ3)")

	// What the hook found of the other hooks comes with it (review BQ1).
	require.NoError(t, NoteCodexCall(env, "call_11", "thread-a", plan, "Codex reports plansmith's Stop hook as modified"))
	judged, others = CodexCallJudged(home, "call_11", "thread-a", now)
	assert.True(t, judged)
	assert.Equal(t, "Codex reports plansmith's Stop hook as modified", others)

	// Only calls running plansmith plan are noted, and only ids that name a
	// file.
	require.NoError(t, NoteCodexCall(env, "call_9", "thread-a", "plansmith status", ""))
	judged, _ = CodexCallJudged(home, "call_9", "thread-a", now)
	assert.False(t, judged)
	require.NoError(t, NoteCodexCall(env, "../../evil", "thread-a", plan, ""))
	assert.NoFileExists(t, filepath.Join(home, ".claude", "evil"))

	// Old notes are swept once there are a few.
	dir := filepath.Join(home, CodexCallsDir)
	old := now.Add(-2 * codexCallGrace)
	for i := 0; i < 20; i++ {
		p := filepath.Join(dir, "old_"+string(rune('a'+i)))
		require.NoError(t, os.WriteFile(p, []byte("t\n"), 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
	}
	env.Now = time.Now
	require.NoError(t, NoteCodexCall(env, "call_10", "thread-a", plan, ""))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Less(t, len(entries), 6)
}

// A notes folder that is a link is neither written through nor swept
// (review BQ2: the sweep deleted old files where the link led).
func TestCodexCallNotesNeverFollowALink(t *testing.T) {
	env, _ := homeEnv(t)
	home := env.Getenv("HOME")
	elsewhere := t.TempDir()
	old := time.Now().Add(-2 * codexCallGrace)
	for i := 0; i < 20; i++ {
		p := filepath.Join(elsewhere, "doc"+string(rune('a'+i)))
		require.NoError(t, os.WriteFile(p, []byte("keep\n"), 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".claude", "plansmith"), 0o755))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(home, CodexCallsDir)))
	env.Now = time.Now
	assert.Error(t, NoteCodexCall(env, "call_1", "thread-a", "plansmith plan x", ""))
	entries, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	assert.Len(t, entries, 20, "nothing where the link leads was touched")
}

// A Codex record is read only as a regular file, its first line its
// thread's session_meta: a FIFO holds no hook (review BO7), and a fork
// is told by forked_from_id and when it was made.
func TestACodexRecordIsReadOnlyAsAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rollout.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	done := make(chan string, 1)
	go func() { parent, _ := CodexForkedFrom(fifo, "t2"); done <- parent }()
	select {
	case parent := <-done:
		assert.Empty(t, parent)
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO as a record did not return")
	}

	record := filepath.Join(dir, "fork.jsonl")
	require.NoError(t, os.WriteFile(record, []byte(`{"type":"session_meta","payload":{"id":"t2","forked_from_id":"t1","timestamp":"2026-11-26T16:01:11.147Z","cwd":"/p"}}`+"\n"), 0o644))
	parent, at := CodexForkedFrom(record, "t2")
	assert.Equal(t, "t1", parent)
	assert.Equal(t, time.Date(2026, 11, 26, 16, 1, 11, 147e6, time.UTC), at.UTC())
	parent, _ = CodexForkedFrom(record, "t3")
	assert.Empty(t, parent, "another thread's record")
}
