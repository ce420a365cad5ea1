package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/loop"
)

func TestLastMessagePrefersInputField(t *testing.T) {
	msg := "from the input"
	got, err := lastMessage(Input{LastAssistantMessage: &msg, TranscriptPath: "../testdata/hooks/transcript.jsonl"})
	require.NoError(t, err)
	assert.Equal(t, msg, got)
}

func TestLastMessageFallsBackToTranscript(t *testing.T) {
	got, err := lastMessage(Input{TranscriptPath: "../testdata/hooks/transcript.jsonl"})
	require.NoError(t, err)
	assert.Equal(t, "1. First point\n2. Second point", got, "joins the last message's text blocks, skipping sidechains and junk lines")
}

func TestLastMessageErrors(t *testing.T) {
	_, err := lastMessage(Input{})
	assert.ErrorContains(t, err, "neither last_assistant_message nor transcript_path")
	_, err = lastMessage(Input{TranscriptPath: "/nonexistent/t.jsonl"})
	assert.ErrorContains(t, err, "reading transcript")
}

func TestBlockCap(t *testing.T) {
	cases := map[string]int{"": 8, "3": 3, "0": 0, "-1": 0, "junk": 8}
	for v, want := range cases {
		env := loop.Env{Getenv: func(string) string { return v }}
		assert.Equal(t, want, blockCap(env), "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%q", v)
	}
}
