package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"plansmith": func() { os.Exit(run(os.Args[1:], processEnv())) },
	})
}

// TestScripts runs testdata/script/*.txtar: each is a small shell session
// against the real command, with its files inline. `go test -run
// TestScripts -update` rewrites golden outputs.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("CLAUDE_CODE_SESSION_ID", "")
			env.Setenv("CLAUDE_PROJECT_DIR", "")
			env.Setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "")
			return nil
		},
	})
}
