package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plansmith/plansmith/hooks"
	"github.com/plansmith/plansmith/state"
)

// The benchmarks measure what Claude Code pays per hook call: a whole
// process (start, read stdin, decide, write, exit) on the real binary, and
// the same call in-process. `make bench` runs them with -count and prints
// medians (and measures peak memory separately); the design's targets are a
// few milliseconds per call, under 100 ms for a 1 MiB answer, and under
// 30 MiB peak memory.

// builtBinary is build/plansmith, the binary users run (make bench builds
// it first); the process benchmarks skip, saying why, when it is missing.
func builtBinary(b *testing.B) string {
	path, err := filepath.Abs("../../build/plansmith")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		b.Skip("build/plansmith is missing: run make build (make bench does) first")
	}
	return path
}

// benchProject makes a project with an active loop at phase index, owned by
// session "bench", and returns its directory and a function restoring the
// state file to that starting point.
func benchProject(b *testing.B, index int) (string, func()) {
	dir := b.TempDir()
	env := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(k string) string {
			switch k {
			case "CLAUDE_PROJECT_DIR":
				return dir
			case "CLAUDE_CODE_SESSION_ID":
				return "bench"
			}
			return ""
		},
		Getwd: func() (string, error) { return dir, nil },
		Now:   time.Now,
	}
	if code := run([]string{"plan", "--no-memory", "Add rate limiting to the public API"}, env); code != 0 {
		b.Fatalf("plan exited %d", code)
	}
	p := state.Paths{Project: dir}
	f, err := state.Load(p.State())
	if err != nil {
		b.Fatal(err)
	}
	f.Loop.PhaseIndex = index
	f.Loop.Phase = f.Loop.Phases[index]
	if err := state.Save(p.State(), f); err != nil {
		b.Fatal(err)
	}
	orig, err := os.ReadFile(p.State())
	if err != nil {
		b.Fatal(err)
	}
	return dir, func() {
		if err := os.WriteFile(p.State(), orig, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func stopInput(b *testing.B, dir, msg string) []byte {
	data, err := json.Marshal(map[string]any{
		"session_id": "bench", "cwd": dir, "hook_event_name": "Stop",
		"stop_hook_active": false, "last_assistant_message": msg,
	})
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// understandAnswer fails understand's check (too few items), so every call
// does the full work of a retry: lock, load, validate, record, save, block.
const understandAnswer = "1. The API has no rate limiting.\n2. Constraint: keep latency low.\n"

func oneMiBDraft() string {
	var b strings.Builder
	b.WriteString("## Goal\nRate limiting.\n## Scope\nAPI.\n## Non-Scope\nUI.\n## Steps\n")
	for b.Len() < 1<<20 {
		b.WriteString("1. Edit `internal/limit/bucket.go` to add a token bucket; verify with `go test ./internal/limit`.\n")
	}
	b.WriteString("## Verification\nRun the tests.\n## Risks\nHot keys.\n## Open Questions\nNone.\n")
	return b.String()
}

// runProcess runs one hook call. Peak memory is measured by bench/run.sh
// with /usr/bin/time instead: the child's rusage here would include the
// benchmark process it was forked from.
func runProcess(b *testing.B, bin, event string, input []byte) {
	cmd := exec.Command(bin, "hook", event)
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout = io.Discard
	cmd.Stderr = io.Discard
	if err := cmd.Run(); err != nil {
		b.Fatalf("hook %s: %v", event, err)
	}
}

func benchProcess(b *testing.B, event string, input []byte, reset func(), binary ...string) {
	bin := builtBinary(b)
	if len(binary) > 0 {
		bin = binary[0]
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if reset != nil {
			b.StopTimer()
			reset()
			b.StartTimer()
		}
		runProcess(b, bin, event, input)
	}
}

func BenchmarkHookProcess(b *testing.B) {
	b.Run("stop/no-loop", func(b *testing.B) {
		dir := b.TempDir()
		benchProcess(b, "stop", stopInput(b, dir, "hello"), nil)
	})
	b.Run("stop/no-loop-via-launcher", func(b *testing.B) {
		// What the plugin's hooks run: bin/plansmith, which execs build/plansmith
		// (make bench builds it), which checks its sources are not newer.
		builtBinary(b)
		launcher, err := filepath.Abs("../../bin/plansmith")
		if err != nil {
			b.Fatal(err)
		}
		dir := b.TempDir()
		benchProcess(b, "stop", stopInput(b, dir, "hello"), nil, launcher)
	})
	b.Run("stop/understand-retry", func(b *testing.B) {
		dir, reset := benchProject(b, 0)
		benchProcess(b, "stop", stopInput(b, dir, understandAnswer), reset)
	})
	b.Run("stop/draft-1MiB", func(b *testing.B) {
		dir, reset := benchProject(b, 3)
		benchProcess(b, "stop", stopInput(b, dir, oneMiBDraft()), reset)
	})
	b.Run("pretooluse/bash-pipeline", func(b *testing.B) {
		dir, _ := benchProject(b, 1)
		in, _ := json.Marshal(map[string]any{"session_id": "bench", "cwd": dir, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]string{"command": "grep -rn TODO src | sort | head -20"}})
		benchProcess(b, "pretooluse", in, nil)
	})
}

func benchInProcess(b *testing.B, event string, input []byte, reset func()) {
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" },
		Getwd: os.Getwd, Now: time.Now}
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if reset != nil {
			b.StopTimer()
			reset()
			b.StartTimer()
		}
		env.Stdin = bytes.NewReader(input)
		hooks.Run(event, env)
	}
}

func BenchmarkHookInProcess(b *testing.B) {
	b.Run("stop/understand-retry", func(b *testing.B) {
		dir, reset := benchProject(b, 0)
		benchInProcess(b, "stop", stopInput(b, dir, understandAnswer), reset)
	})
	b.Run("stop/draft-1MiB", func(b *testing.B) {
		dir, reset := benchProject(b, 3)
		benchInProcess(b, "stop", stopInput(b, dir, oneMiBDraft()), reset)
	})
	b.Run("stop/draft-256KiB", func(b *testing.B) {
		dir, reset := benchProject(b, 3)
		benchInProcess(b, "stop", stopInput(b, dir, oneMiBDraft()[:256<<10]), reset)
	})
}
