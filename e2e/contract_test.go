package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readOutputs loads every *.json in dir, by file name.
func readOutputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		out[filepath.Base(f)] = b
	}
	return out
}

// TestHookOutputsMatchTheSDKTypes holds the hook outputs in
// testdata/hook-outputs (the binary's golden outputs) to the contract Claude
// Code publishes for them: SyncHookJSONOutput in the Agent SDK released with
// each tested CLI (the pinned one and the newest). The known-bad outputs in
// e2e/testdata/hook-outputs-bad must all be refused, proving the check bites.
func TestHookOutputsMatchTheSDKTypes(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		dir := HookTypes(t, cli)
		root := mustRepoRoot(t)
		good := readOutputs(t, filepath.Join(root, "testdata", "hook-outputs"))
		bad := readOutputs(t, filepath.Join("testdata", "hook-outputs-bad"))
		require.NotEmpty(t, good)
		require.NotEmpty(t, bad)

		all := map[string][]byte{}
		for name, b := range good {
			all["good/"+name] = b
		}
		for name, b := range bad {
			all["bad/"+name] = b
		}
		problems, err := CheckHookOutputs(dir, all)
		require.NoError(t, err)

		for name, b := range good {
			t.Run("good/"+name, func(t *testing.T) {
				assert.Empty(t, problems["good/"+name])
				assert.Empty(t, EventMismatch(name, b))
			})
		}
		for name := range bad {
			t.Run("bad/"+name, func(t *testing.T) {
				assert.NotEmpty(t, problems["bad/"+name], "a known-bad output passed the type check")
				t.Log(problems["bad/"+name])
			})
		}
	})
}

func TestEventMismatch(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		output string
		want   string
	}{
		{name: "matching event", file: "pretooluse-deny.json",
			output: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`},
		{name: "no specific output", file: "stop-block.json", output: `{"decision":"block","reason":"x"}`},
		{name: "name without event", file: "misc.json",
			output: `{"hookSpecificOutput":{"hookEventName":"PreToolUse"}}`},
		{name: "event of another hook", file: "stop-odd.json",
			output: `{"hookSpecificOutput":{"hookEventName":"PreToolUse"}}`,
			want:   `hookSpecificOutput.hookEventName is "PreToolUse" in a Stop output`},
		{name: "case of the file name does not matter", file: "UserPromptSubmit-x.json",
			output: `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"x"}}`},
		{name: "not JSON", file: "stop-x.json", output: `nope`,
			want: "not a JSON object: invalid character 'o' in literal null (expecting 'u')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, EventMismatch(tt.file, []byte(tt.output)))
		})
	}
}
