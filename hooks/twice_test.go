package hooks

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
)

// The Stop hook passes when its process began to the loop, which judges
// a turn's answer once however many of plansmith's Stop hooks run for it
// (review BT1). Here the judgment's time is an hour ahead, so the second
// call began before the first wrote it, as a hook run beside it does.
func TestTheSameTurnsStopTwiceIsJudgedOnce(t *testing.T) {
	project := t.TempDir()
	env := testEnv(project)
	env.Now = func() time.Time { return time.Now().Add(time.Hour) }
	p := state.Paths{Project: project}
	_, err := loop.Start(env, p, loop.Options{Request: "add a cache", Phases: []string{"understand"}, MaxRetries: 3,
		CritiqueMode: state.CritiquePrinciples, RequiredSections: []string{"Goal"}, CompletionPromise: "OK", SessionID: "s"})
	require.NoError(t, err)
	in, err := json.Marshal(map[string]any{"session_id": "s", "cwd": project, "hook_event_name": "Stop",
		"stop_hook_active": false, "last_assistant_message": "too short"})
	require.NoError(t, err)

	var first, second bytes.Buffer
	run(t, "stop", string(in), &first, env)
	run(t, "stop", string(in), &second, env)
	assert.Contains(t, first.String(), `"decision":"block"`)
	assert.Empty(t, second.String(), "the same turn's second Stop answers nothing")
	f, err := state.Load(p.State())
	require.NoError(t, err)
	assert.Equal(t, 1, f.Loop.Retries, "the answer was judged once")
}
