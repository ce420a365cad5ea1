package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/loop"
)

func testEnv(t testing.TB, stdin string) (loop.Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	dir := t.TempDir()
	return loop.Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return dir, nil },
		Now:    func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) },
	}, &out, &errb
}

func TestRunWithoutALoopSaysNothing(t *testing.T) {
	payloads, err := filepath.Glob("../../testdata/codex/payloads/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, payloads)
	for _, p := range payloads {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, ev := range Events {
			env, out, errb := testEnv(t, strings.ReplaceAll(string(data), `"/project"`, `""`))
			Run(ev, env)
			assert.Empty(t, out.String(), "%s on %s", ev, p)
			assert.Empty(t, errb.String(), "%s on %s", ev, p)
		}
	}
}

func TestRunReportsBadInputAndUnknownEvents(t *testing.T) {
	for _, c := range []struct{ event, in, stderr string }{
		{"stop", "", "hook input is empty"},
		{"pretooluse", "[1,2]", "not a JSON object"},
		{"posttooluse", "{}", "not used with Codex"},
	} {
		env, out, errb := testEnv(t, c.in)
		Run(c.event, env)
		assert.Empty(t, out.String())
		assert.Contains(t, errb.String(), c.stderr)
	}
}

func FuzzRun(f *testing.F) {
	f.Add("stop", `{"session_id":"s","cwd":"","last_assistant_message":null}`)
	f.Add("pretooluse", `{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch"}}`)
	f.Add("userpromptsubmit", `{"prompt":"hi"}`)
	f.Fuzz(func(t *testing.T, event, in string) {
		env, _, _ := testEnv(t, in)
		Run(event, env) // must not panic
	})
}
