package hooks

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plansmith/plansmith/state"
)

// FuzzRun feeds arbitrary bytes to every hook, against a project with an
// active loop owned by session "s". A hook must never panic, and must write
// either nothing or exactly one JSON object.
func FuzzRun(f *testing.F) {
	seeds := []string{
		`{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"1. a\n2. b\n3. c problem goal"}`,
		`{"session_id":"s","hook_event_name":"Stop","last_assistant_message":null,"transcript_path":"/nope"}`,
		`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`,
		`{"session_id":"s","tool_name":"Bash","tool_input":"not an object"}`,
		`{"session_id":"s","tool_name":"ExitPlanMode","tool_input":{}}`,
		`{"session_id":"s","tool_name":"Write","permission_mode":"plan","tool_input":{"file_path":"../../etc/passwd"}}`,
		`{"session_id":"s","prompt":"continue"}`,
		`{"session_id":7}`, `[]`, `null`, `{`, ``, "\x00\xff",
	}
	for _, s := range seeds {
		for i := range Events {
			f.Add(i, []byte(s))
		}
	}
	dir := f.TempDir()
	p := state.Paths{Project: dir}
	loop := state.Loop{Active: true, SessionID: "s", Request: "r", Phases: []string{"understand", "draft", "revise"},
		MaxRetries: 1000, BlockTools: true, RequiredSections: []string{"Goal"}, CompletionPromise: "OK", Gate: true, GateRetries: 2}
	fresh, err := state.Marshal(&state.File{Loop: loop})
	if err != nil {
		f.Fatal(err)
	}
	env := Env{Stderr: io.Discard, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return dir, nil }, Now: time.Now}
	f.Fuzz(func(t *testing.T, event int, input []byte) {
		if event < 0 {
			event = -event
		}
		// Each case starts from the same loop; the fuzzer may have ended it.
		if err := os.MkdirAll(filepath.Dir(p.State()), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p.State(), fresh, 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		Run(Events[event%len(Events)], bytes.NewReader(input), &out, env)
		if out.Len() == 0 {
			return
		}
		dec := json.NewDecoder(&out)
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("output is not a JSON object: %v\n%s", err, out.String())
		}
		if dec.More() {
			t.Fatalf("more than one JSON value written")
		}
	})
}
