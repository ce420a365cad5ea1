package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"plansmith": func() { os.Exit(dispatch(os.Args[1:], processEnv())) },
	})
}

// TestScripts runs testdata/script/*.txtar: each is a small shell session
// against the real command, with its files inline. `go test -run
// TestScripts -update` rewrites golden outputs.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"stopinput": cmdStopInput,
			"expand":    cmdExpand,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" { // file modes do not stop root from reading
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			root, err := filepath.Abs("../..")
			if err != nil {
				return err
			}
			env.Setenv("REPO", root)
			// Under -race the plansmith the scripts run is the race-built test
			// binary, which sleeps 1 s at exit by default: hundreds of calls.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			env.Setenv("CLAUDE_CODE_SESSION_ID", "")
			env.Setenv("CLAUDE_PROJECT_DIR", "")
			env.Setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "")
			return nil
		},
	})
}

// cmdStopInput writes a Stop hook input whose last_assistant_message is a
// file's contents: stopinput SESSION MESSAGE-FILE OUTPUT-FILE.
func cmdStopInput(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: stopinput SESSION MESSAGE-FILE OUTPUT-FILE")
	}
	msg := ts.ReadFile(args[1])
	data, err := json.Marshal(map[string]any{
		"session_id":             args[0],
		"transcript_path":        "/nonexistent/transcript.jsonl",
		"hook_event_name":        "Stop",
		"stop_hook_active":       false,
		"last_assistant_message": msg,
	})
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), data, 0o644))
}

// cmdExpand copies a file with $VARS replaced by the script's environment,
// for hook inputs that must hold absolute paths: expand IN OUT.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand IN OUT")
	}
	out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}

func TestHookEvent(t *testing.T) {
	cases := []struct {
		args  []string
		event string
	}{
		{[]string{"hook", "stop"}, "stop"},
		{[]string{"hook", "pretooluse", "extra"}, "pretooluse"},
		{[]string{"hook", "userpromptsubmit"}, "userpromptsubmit"},
		{[]string{"hook", "stop", "--help"}, ""}, // cobra answers flags
		{[]string{"hook", "nosuch"}, ""},
		{[]string{"hook"}, ""},
		{[]string{"status", "stop"}, ""},
		{nil, ""},
	}
	for _, c := range cases {
		event, ok := hookEvent(c.args)
		if event != c.event || ok != (c.event != "") {
			t.Errorf("hookEvent(%q) = %q, %v; want %q", c.args, event, ok, c.event)
		}
	}
}
