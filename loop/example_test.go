package loop_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
)

// One planning loop, as the hooks drive it: Start writes the loop's state
// in the project; each time the agent ends its turn, Stop judges the answer
// against the phase's checks and either sends it back (Block, with what is
// missing) or moves it on (Block, with the next phase's instructions), until
// the last phase passes (Finish) and the plan is saved. The hooks package
// maps each outcome to Claude Code's answer ({"decision":"block",…}); the
// Codex adapter to Codex's.
func ExampleStop() {
	dir, err := os.MkdirTemp("", "plansmith-example")
	if err != nil { // no dir: the loop would be started in the working directory
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	env := loop.Env{Stderr: os.Stderr, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return dir, nil }, Now: func() time.Time { return now }}
	paths := state.Paths{Project: dir}

	var started loop.Started
	started, err = loop.Start(env, paths, loop.Options{Request: "add a cache to the API", Phases: []string{"understand", "draft", "revise"},
		MaxRetries: 2, CritiqueMode: state.CritiquePrinciples, RequiredSections: []string{"Goal"}, CompletionPromise: "OK"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("started:", started.Label)

	kinds := map[loop.StopKind]string{loop.LetStop: "let stop", loop.Block: "block", loop.Pause: "pause", loop.Finish: "finish"}
	turn := func(answer string) {
		out := loop.Stop(env, loop.StopEvent{Session: loop.Session{ID: "s1", Cwd: dir},
			LastMessage: func() (string, error) { return answer, nil }})
		first, _, _ := strings.Cut(out.Reason+out.Message, "\n")
		fmt.Printf("%s: %s\n", kinds[out.Kind], first)
	}
	turn("I will look into it.")
	turn("1. The problem: every request hits the database.\n2. Constraint: responses must stay fresh within a minute.\n3. Success criteria: p95 latency halves.\n4. Assumption: reads outnumber writes.\n")
	turn("# Plan: a cache for the API\n\n## Goal\nHalve p95 latency of reads.\n\n## Steps\n1. Add a read-through cache with a 60 s TTL.\n2. Invalidate on writes.\n3. Measure p95 before and after.\n\nOK\n")
	turn("# Plan: a cache for the API\n\n## Goal\nHalve p95 latency of reads.\n\n## Steps\n1. Add a read-through cache with a 60 s TTL.\n2. Invalidate on writes.\n3. Measure p95 before and after.\n4. Roll back by turning the cache off with a flag.\n\n<promise>OK</promise>\n")
	saved, _ := os.ReadFile(filepath.Join(dir, ".claude", "plansmith-output.local.md"))
	fmt.Println("saved:", strings.Contains(string(saved), "## Goal\nHalve p95 latency of reads."))
	// Output:
	// started: understand [1/3]
	// block: ✗ understand [1/3]: this answer did not pass the phase's checks (attempt 1; 1 more try before the loop stops).
	// block: ✓ understand [1/3] passed its checks. Now: draft [2/3].
	// block: ✓ draft [2/3] passed its checks. Now: revise [3/3].
	// finish: plansmith: plan saved to .claude/plansmith-output.local.md (3 phases, 1 failed check on the way).
	// saved: true
}

// The example starts its loop in a directory of its own: with no temporary
// directory to make (TMPDIR unusable), it says so and writes nothing, where
// it started a loop in the working directory, the package's source, and
// left its .claude there (review FF5).
func TestExampleStopWritesOnlyInItsOwnDir(t *testing.T) {
	cwd := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^ExampleStop$", "-test.count=1")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Join(cwd, "missing"))
	out, _ := cmd.CombinedOutput() // the example fails: it cannot run there
	entries, err := os.ReadDir(cwd)
	require.NoError(t, err)
	assert.Empty(t, entries, "the example wrote into the working directory:\n%s", out)
	assert.Contains(t, string(out), filepath.Join(cwd, "missing"), "the example says what failed")
}
