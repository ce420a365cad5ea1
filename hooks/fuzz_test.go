package hooks

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/plansmith/plansmith/install"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/planmode"
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
	l := state.Loop{Active: true, SessionID: "s", Request: "r", Phases: []string{"understand", "draft", "revise"},
		MaxRetries: 1000, BlockTools: true, RequiredSections: []string{"Goal"}, CompletionPromise: "OK", Gate: true, GateRetries: 2}
	fresh, err := state.Marshal(&state.File{Loop: l})
	if err != nil {
		f.Fatal(err)
	}
	env := loop.Env{Stderr: io.Discard, Getenv: func(string) string { return "" },
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
		run(t, Events[event%len(Events)], string(input), &out, env)
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

// run is one hook call with input on stdin and the answer in out.
func run(t testing.TB, event, input string, out *bytes.Buffer, env loop.Env) {
	t.Helper()
	env.Stdin, env.Stdout = strings.NewReader(input), out
	Run(event, env)
}

// TestPlanModeMalformed: undecodable input denies only when it names
// ExitPlanMode.
func TestPlanModeMalformed(t *testing.T) {
	env := testEnv(t.TempDir())
	tests := []struct {
		name  string
		input string
		deny  bool
	}{
		{name: "broken ExitPlanMode call", input: `{"tool_name":"ExitPlanMode",`, deny: true},
		{name: "wrong type in an ExitPlanMode call", input: `{"tool_name":"ExitPlanMode","session_id":1}`, deny: true},
		{name: "broken Bash call", input: `{"tool_name":"Bash",`},
		{name: "empty", input: ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			run(t, "pretooluse", tt.input, &out, env)
			if tt.deny {
				assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
			} else {
				assert.Empty(t, out.String())
			}
		})
	}
}

func testEnv(home string) loop.Env {
	return loop.Env{
		Stderr: io.Discard,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
		Getwd: func() (string, error) { return home, nil },
		Now:   func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
}

// FuzzPlanMode feeds arbitrary input to the plan-mode gate's two hooks with
// a real plans folder: neither may panic, PostToolUse never answers (its
// writes succeed here: it answers only one that fails), and an
// ExitPlanMode answer is always a denial.
func FuzzPlanMode(f *testing.F) {
	home := f.TempDir()
	plan := filepath.Join(home, planmode.PlansDir, "p.md")
	if err := os.MkdirAll(filepath.Dir(plan), 0o755); err != nil {
		f.Fatal(err)
	}
	fixture, err := os.ReadFile("../testdata/gate/plans/valid_plan.md")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"session_id":"sess-1","permission_mode":"plan","tool_name":"Write","tool_input":{"file_path":"` + plan + `"}}`,
		`{"session_id":"sess-1","permission_mode":"plan","tool_name":"Edit","tool_response":{"filePath":"` + plan + `"}}`,
		`{"session_id":"sess-1","permission_mode":"plan","tool_name":"Write","tool_input":{"file_path":"` + plan + `/../../x.md"}}`,
		`{"session_id":"sess-1","tool_name":"ExitPlanMode","tool_input":{}}`,
		`{"session_id":"other","tool_name":"ExitPlanMode"}`,
		`{"tool_name":"ExitPlanMode"`, `{"session_id":null,"tool_name":"ExitPlanMode"}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	env := testEnv(home)
	f.Fuzz(func(t *testing.T, input []byte) {
		if err := os.WriteFile(plan, fixture, 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		run(t, "posttooluse", string(input), &out, env)
		if out.Len() != 0 {
			t.Fatalf("PostToolUse answered: %s", out.String())
		}
		in, _, err := readInput(bytes.NewReader(input))
		if err != nil || in.ToolName != "ExitPlanMode" {
			return
		}
		run(t, "pretooluse", string(input), &out, env)
		if out.Len() == 0 {
			return
		}
		var v SpecificAnswer
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", err, out.String())
		}
		if v.HookSpecificOutput.PermissionDecision != "deny" || v.HookSpecificOutput.PermissionDecisionReason == "" {
			t.Fatalf("ExitPlanMode answer is not a reasoned denial: %s", out.String())
		}
	})
}

// TestEventsMatchThePlugin: the table's events are exactly the hook
// subcommands the plugin's hooks/hooks.json runs (what install recognises).
func TestEventsMatchThePlugin(t *testing.T) {
	want := slices.Clone(Events)
	slices.Sort(want)
	assert.Equal(t, want, install.HookSubcommands())
}
