package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const session = "bench"

// fixtures are the projects and homes the variants run in.
type fixtures struct {
	work, root, bin string
	plugin          string // CLAUDE_PLUGIN_ROOT of the "plugin" variants
	noLoop          string // a project with no loop
	loop            string // a project with an active loop at understand
	bigLoop         string // the same with a 50 MiB answer in the state's body
	original        string // a project with the bash original's state file
	home10, home10k string // homes with 10 and 10,000 plan-mode plan files
	homeSnap        string // a home with one 300 KiB zsh snapshot of Claude Code's
	loopState       []byte
	originalState   []byte
}

func newFixtures(work, root, bin string) (*fixtures, error) {
	fx := &fixtures{work: work, root: root, bin: bin}
	for _, d := range []*string{&fx.noLoop, &fx.loop, &fx.bigLoop, &fx.original, &fx.home10, &fx.home10k, &fx.homeSnap} {
		var err error
		if *d, err = os.MkdirTemp(work, "d"); err != nil {
			return nil, err
		}
	}
	var err error
	if fx.loopState, err = fx.startLoop(fx.loop); err != nil {
		return nil, err
	}
	big, err := fx.startLoop(fx.bigLoop)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(fx.bigLoop, ".claude", "plansmith.local.md"), append(big, bigAnswer(50<<20)...), 0o644); err != nil {
		return nil, err
	}
	fx.originalState = []byte(originalState)
	if err := writeFile(filepath.Join(fx.original, ".claude", "plansmith.local.md"), fx.originalState); err != nil {
		return nil, err
	}
	if err := fx.plans(fx.home10, 10); err != nil {
		return nil, err
	}
	if err := fx.plans(fx.home10k, 10000); err != nil {
		return nil, err
	}
	snapshot := filepath.Join(fx.homeSnap, ".claude", "shell-snapshots", "snapshot-zsh-1764000000000-bench.sh")
	if err := writeFile(snapshot, zshSnapshot(300<<10, os.Getenv("PATH"))); err != nil {
		return nil, err
	}
	return fx, nil
}

// zshSnapshot is a shell snapshot as Claude Code writes one of a zsh with a
// framework's functions loaded, of about n bytes: functions (their bodies
// most of it), aliases, options, and the PATH last. Every user has one per
// running session, and a PreToolUse on a Bash command reads them all.
func zshSnapshot(n int, path string) []byte {
	var b bytes.Buffer
	b.WriteString("# Snapshot file\n# Unset all aliases to avoid conflicts with functions\nunalias -a 2>/dev/null || true\n# Functions\n")
	for i := 0; b.Len() < n*9/10; i++ {
		fmt.Fprintf(&b, "_prompt_part_%d () {\n\tlocal ret=$? dir=\"${PWD/#$HOME/~}\"\n\tif [[ -n \"$VIRTUAL_ENV\" ]]; then\n\t\tprint -n \"(${VIRTUAL_ENV:t}) \"\n\tfi\n\tgit rev-parse --abbrev-ref HEAD 2>/dev/null | read -r branch && print -n \"$branch\"\n\treturn $ret\n}\n", i)
	}
	b.WriteString("# Shell Options\nsetopt alwaystoend\nsetopt autocd\nsetopt autopushd\nsetopt extendedhistory\nsetopt interactivecomments\n# Aliases\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "alias -- g%d='git log --oneline -%d'\n", i, i+1)
	}
	fmt.Fprintf(&b, "# Check for rg availability\nif ! command -v rg >/dev/null 2>&1; then\n  alias rg='/opt/claude --ripgrep'\nfi\nexport PATH=%s\n", path)
	return b.Bytes()
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// startLoop runs `plansmith plan` in dir and returns the state file it wrote.
func (fx *fixtures) startLoop(dir string) ([]byte, error) {
	cmd := exec.Command(fx.bin, "plan", "--no-memory", "Add rate limiting to the public API")
	cmd.Dir = dir
	cmd.Env = append(fx.env(dir, fx.home10), "CLAUDE_CODE_SESSION_ID="+session)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("plansmith plan: %w: %s", err, out)
	}
	return os.ReadFile(filepath.Join(dir, ".claude", "plansmith.local.md"))
}

// bigAnswer is an explore answer of about n bytes, as the state body keeps it.
func bigAnswer(n int) []byte {
	var b bytes.Buffer
	b.WriteString("\n## Output: explore\n\n")
	for b.Len() < n {
		b.WriteString("- `internal/limit/bucket.go`: the token bucket keeps one counter per key; refills on read.\n")
	}
	return b.Bytes()
}

// plans fills home's ~/.claude/plans with n plan files: n-1 belong to other
// sessions, and this session's own is written and then maintained by the
// PostToolUse hook, as in a real plan-mode session.
func (fx *fixtures) plans(home string, n int) error {
	dir := filepath.Join(home, ".claude", "plans")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old := time.Now().Add(-time.Hour)
	for i := 1; i < n; i++ {
		path := filepath.Join(dir, fmt.Sprintf("other-plan-%05d.md", i))
		content := fmt.Sprintf("%s\n<!-- rodin:session=other-%d -->\n", planText, i)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(path, old, old); err != nil {
			return err
		}
	}
	own := filepath.Join(dir, "bench-session-plan.md")
	if err := os.WriteFile(own, []byte(planText), 0o644); err != nil {
		return err
	}
	in, err := json.Marshal(map[string]any{
		"session_id": session, "cwd": fx.noLoop, "hook_event_name": "PostToolUse", "permission_mode": "plan",
		"tool_name": "Write", "tool_input": map[string]string{"file_path": own, "content": planText},
		"tool_response": map[string]any{"filePath": own},
	})
	if err != nil {
		return err
	}
	cmd := exec.Command(fx.bin, "hook", "posttooluse")
	cmd.Dir = fx.noLoop
	cmd.Env = fx.env(fx.noLoop, home)
	cmd.Stdin = bytes.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("posttooluse: %w: %s", err, out)
	}
	data, err := os.ReadFile(own)
	if err != nil {
		return err
	}
	if !strings.Contains(string(data), "rodin:session="+session) {
		return fmt.Errorf("the PostToolUse hook did not mark %s", own)
	}
	return nil
}

func (fx *fixtures) env(project, home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"CLAUDE_PROJECT_DIR=" + project,
	}
}

func hookInput(dir string, fields map[string]any) []byte {
	in := map[string]any{"session_id": session, "transcript_path": "", "cwd": dir}
	for k, v := range fields {
		in[k] = v
	}
	data, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	return data
}

// understandAnswer fails understand's checks in both implementations (two
// numbered items, one analysis keyword), so each call does a retry's whole
// work: load, validate, record, block.
const understandAnswer = "1. The API has no rate limiting.\n2. Constraint: keep latency low.\n"

// readOnlyCommand is allowed by both implementations' policies.
const readOnlyCommand = "grep -rn TODO src"

// gitCommand is the commonest kind of command a planning session runs.
const gitCommand = "git log --oneline -5 -- src | head -3"

func (fx *fixtures) variants(commands map[string]string) ([]*variant, error) {
	var vs []*variant
	add := func(v *variant) { vs = append(vs, v) }
	plugin := func(project, home string) []string {
		return append(fx.env(project, home), "CLAUDE_PLUGIN_ROOT="+fx.plugin)
	}
	add(&variant{name: "floor", cmd: "/bin/true", dir: fx.noLoop, env: plugin(fx.noLoop, fx.home10)})

	// Each hook as hooks.json registers it ("plugin") and as the binary
	// itself ("binary"), so the cost of what stands between is visible.
	type flavour struct{ name, stop, pre string }
	flavours := []flavour{
		{"plugin", commands["Stop"], commands["PreToolUse"]},
		{"binary", "GOMAXPROCS=1 exec " + shellQuote(fx.bin) + " hook stop", "GOMAXPROCS=1 exec " + shellQuote(fx.bin) + " hook pretooluse"},
	}
	resetLoop := func() error {
		return os.WriteFile(filepath.Join(fx.loop, ".claude", "plansmith.local.md"), fx.loopState, 0o644)
	}
	bash := hookInput(fx.noLoop, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": readOnlyCommand}})
	for _, f := range flavours {
		add(&variant{name: f.name + " pretooluse no-loop", cmd: f.pre, dir: fx.noLoop, env: plugin(fx.noLoop, fx.home10),
			stdin: bash, check: silent})
		add(&variant{name: f.name + " stop no-loop", cmd: f.stop, dir: fx.noLoop, env: plugin(fx.noLoop, fx.home10),
			stdin: hookInput(fx.noLoop, map[string]any{"hook_event_name": "Stop", "last_assistant_message": understandAnswer}), check: silent})
		add(&variant{name: f.name + " pretooluse loop", cmd: f.pre, dir: fx.loop, env: plugin(fx.loop, fx.home10),
			stdin: hookInput(fx.loop, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
				"tool_input": map[string]string{"command": readOnlyCommand}}),
			reset: resetLoop, check: silent})
		add(&variant{name: f.name + " stop loop", cmd: f.stop, dir: fx.loop, env: plugin(fx.loop, fx.home10),
			stdin: hookInput(fx.loop, map[string]any{"hook_event_name": "Stop", "last_assistant_message": understandAnswer}),
			reset: resetLoop, check: wants(`"decision":"block"`)})
	}
	// A git command: the rule reads git's option grammars, which are built
	// per command on first use (compare with "plugin pretooluse loop").
	add(&variant{name: "plugin pretooluse loop git", cmd: commands["PreToolUse"], dir: fx.loop, env: plugin(fx.loop, fx.home10),
		stdin: hookInput(fx.loop, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]string{"command": gitCommand}}),
		reset: resetLoop, check: silent})
	// What a user's shell snapshot costs a Bash command: the benchmark's
	// other homes have none, every user's has one per running session
	// (compare with "plugin pretooluse loop").
	add(&variant{name: "plugin pretooluse loop zsh-snapshot", cmd: commands["PreToolUse"], dir: fx.loop, env: plugin(fx.loop, fx.homeSnap),
		stdin: hookInput(fx.loop, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]string{"command": readOnlyCommand}}),
		reset: resetLoop, check: silent})
	// What the read path costs with a 50 MiB answer in the state (compare
	// with "plugin pretooluse loop").
	add(&variant{name: "plugin pretooluse loop 50MiB-state", cmd: commands["PreToolUse"], dir: fx.bigLoop, env: plugin(fx.bigLoop, fx.home10),
		stdin: hookInput(fx.bigLoop, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]string{"command": readOnlyCommand}}),
		check: silent})
	// ExitPlanMode with 10 and 10,000 plan files: the session's plan is
	// found, and it has not been assessed yet, so the call is refused.
	for _, h := range []struct{ name, home string }{{"10", fx.home10}, {"10000", fx.home10k}} {
		add(&variant{name: "plugin pretooluse ExitPlanMode " + h.name + "-plans", cmd: commands["PreToolUse:ExitPlanMode"], dir: fx.noLoop,
			env: plugin(fx.noLoop, h.home),
			stdin: hookInput(fx.noLoop, map[string]any{"hook_event_name": "PreToolUse", "permission_mode": "plan",
				"tool_name": "ExitPlanMode", "tool_input": map[string]string{"plan": planText}}),
			check: wants("pending")})
	}

	// The bash original on the same inputs.
	orig := filepath.Join(fx.root, "bench", "original")
	origEnv := func(project string) []string {
		return append(fx.env(project, fx.home10), "CLAUDE_PLUGIN_ROOT="+orig)
	}
	origStop := `"${CLAUDE_PLUGIN_ROOT}/hooks/stop-hook.sh"`
	origPre := `"${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse-hook.sh"`
	resetOrig := func() error {
		return os.WriteFile(filepath.Join(fx.original, ".claude", "plansmith.local.md"), fx.originalState, 0o644)
	}
	add(&variant{name: "original pretooluse no-loop", cmd: origPre, dir: fx.noLoop, env: origEnv(fx.noLoop), stdin: bash, check: silent})
	add(&variant{name: "original pretooluse loop", cmd: origPre, dir: fx.original, env: origEnv(fx.original),
		stdin: hookInput(fx.original, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]string{"command": readOnlyCommand}}),
		reset: resetOrig, check: silent})
	add(&variant{name: "original stop loop", cmd: origStop, dir: fx.original, env: origEnv(fx.original),
		stdin: hookInput(fx.original, map[string]any{"hook_event_name": "Stop", "last_assistant_message": understandAnswer}),
		reset: resetOrig, check: wants(`"decision": "block"`)})
	return vs, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// originalState is the bash original's state file, as its setup script
// writes it (the frontmatter of the seed's example).
const originalState = `---
active: true
phase: understand
phase_index: 0
max_phases: 10
phases: "understand,explore,alternatives,draft,critique,revise,critique,revise"
refine_iterations: 2
critique_mode: "principles"
use_memory: true
completion_promise: "PLAN_OK"
block_tools: true
required_sections: "Goal,Scope,Non-Scope,Steps,Verification,Risks,Open Questions"
started_at: "2025-01-01T00:00:00Z"
---

## Request
Add rate limiting to the public API

## Rubric
A plan is ready to start when every step names the files it changes and how it is verified.
`

const planText = `# Plan: add CSV export

## Goals
- Users can download their orders as CSV from the orders page.

## Steps
1. Add an export endpoint that streams rows.
2. Add a download button to the orders page.

## Verification
- An integration test downloads a 10 000-row export.

<!-- rodin:gaps:start -->
### GAP-1: Large exports
- **Severity**: medium
- **Description**: Exports over 100 000 rows were not measured; memory use is unknown.
<!-- rodin:gaps:end -->
`
