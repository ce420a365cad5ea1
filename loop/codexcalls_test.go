package loop

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Codex hook notes the calls naming plansmith it judged; plan finds
// its own call among them, for its own thread only (reviews BO1–BO3).
func TestACodexCallTheHookJudgedIsFound(t *testing.T) {
	env, _ := homeEnv(t)
	home := env.Getenv("HOME")
	require.NoError(t, NoteCodexCall(env, "call_7", "thread-a", `"/opt/plansmith/bin/plansmith" plan --agent codex -- 'x'`))
	assert.True(t, CodexCallJudged(home, "call_7", "thread-a"))
	assert.False(t, CodexCallJudged(home, "call_7", "thread-b"), "another thread's call")
	assert.False(t, CodexCallJudged(home, "call_8", "thread-a"), "a call no hook judged")

	// Only calls naming plansmith are noted, and only ids that name a file.
	require.NoError(t, NoteCodexCall(env, "call_9", "thread-a", "ls -la"))
	assert.False(t, CodexCallJudged(home, "call_9", "thread-a"))
	require.NoError(t, NoteCodexCall(env, "../../evil", "thread-a", "plansmith plan x"))
	assert.NoFileExists(t, filepath.Join(home, ".claude", "evil"))
	assert.False(t, CodexCallJudged(home, "../../evil", "thread-a"))

	// Old notes are swept once there are a few.
	dir := filepath.Join(home, CodexCallsDir)
	old := testNow.Add(-2 * codexCallGrace)
	for i := 0; i < 20; i++ {
		p := filepath.Join(dir, "old_"+string(rune('a'+i)))
		require.NoError(t, os.WriteFile(p, []byte("t\n"), 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
	}
	env.Now = func() time.Time { return testNow }
	require.NoError(t, NoteCodexCall(env, "call_10", "thread-a", "plansmith status"))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Less(t, len(entries), 5)
}
