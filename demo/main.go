// Command demo drives a complete scripted planning session through the real
// plansmith binary in a temporary project, the way Claude Code would: the
// slash command's `plansmith plan`, then a Stop hook call for every answer
// the agent gives, PreToolUse calls for the tools it tries, and the gate.
// It prints each transition so a newcomer can see what plansmith does.
//
// Usage: go run ./demo [path/to/plansmith]   (make demo)
package main

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed session/*.md
var session embed.FS

const (
	sessionID = "demo-session"
	request   = "Add rate limiting to the public API"
)

func main() {
	bin := "build/plansmith"
	if len(os.Args) > 1 {
		bin = os.Args[1]
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		fail(err)
	}
	project, err := os.MkdirTemp("", "plansmith-demo-")
	if err != nil {
		fail(err)
	}
	d := &demo{bin: abs, project: project}
	d.run()
}

type demo struct {
	bin     string
	project string
}

func (d *demo) run() {
	say("plansmith demo — a scripted planning session in %s\n", d.project)
	say("The user types:  /plansmith:plan %s", request)
	say("and the agent runs the slash command's Bash line:\n")
	out := d.exec(nil, "plan", request)
	say("%s", indent(firstLines(out, 11)))
	say("    … (followed by the understand phase's instructions)\n")

	d.answer("01-understand.md", "understand")
	d.tool("Read", map[string]any{"file_path": "internal/auth/middleware.go"}, "reads a file while exploring")
	d.tool("Bash", map[string]any{"command": "grep -rn 'func.*Middleware' internal | head -20"}, "searches with a read-only pipeline")
	d.tool("Write", map[string]any{"file_path": "internal/ratelimit/limiter.go", "content": "package ratelimit\n"}, "tries to write code too early")
	d.tool("Bash", map[string]any{"command": "sed -i 's/100/200/' internal/config/config.go"}, "tries an in-place edit through the shell")
	d.answer("02-explore.md", "explore")
	d.answer("03-alternatives-weak.md", "alternatives (a weak answer: no recommendation, no trade-offs)")
	d.answer("03-alternatives.md", "alternatives (fixed)")
	d.tool("Read", map[string]any{"file_path": "internal/store/redis.go"}, "checks one more file before drafting")
	d.answer("04-draft.md", "draft")
	d.answer("05-critique.md", "critique, round 1")
	d.answer("06-revise.md", "revise, round 1")
	d.answer("07-critique.md", "critique, round 2")
	if gate := d.answer("08-final.md", "the final revise, with the completion promise"); gate {
		d.gate()
	}

	say("\nThe saved plan, .claude/plansmith-output.local.md (its frontmatter and first lines):\n")
	saved, err := os.ReadFile(filepath.Join(d.project, ".claude", "plansmith-output.local.md"))
	if err != nil {
		fail(err)
	}
	front, body, _ := strings.Cut(strings.TrimPrefix(string(saved), "---\n"), "\n---\n")
	if !strings.Contains(front, `evidence: "observed"`) {
		fail(fmt.Errorf("the saved plan does not rest on observed sub-agent runs:\n%s", front))
	}
	say("%s", indent("---\n"+front+"\n---\n"+firstLines(body, 8)))
	say("    …\n")
	say("Reflexion memory for the next run (plansmith memory show):\n")
	say("%s", indent(d.exec(nil, "memory", "show")))
	say("plansmith status now:\n")
	say("%s", indent(d.exec(nil, "status")))
	say("Done. The project is left in %s for you to look at.", d.project)
}

// answer sends one agent answer to the Stop hook and prints what plansmith
// decided. It reports whether plansmith asked for the gate's sub-agents.
func (d *demo) answer(file, what string) bool {
	text, err := session.ReadFile("session/" + file)
	if err != nil {
		fail(err)
	}
	say("\n▶ The agent answers %s (%d lines) and stops.", what, strings.Count(string(text), "\n"))
	return d.stop(string(text), nil)
}

// stop sends one Stop to the hook, as Claude Code 2.1.330 does: with the
// background work still in flight (none: an empty list, which also tells
// plansmith that this client reports its sub-agent runs). It prints what
// plansmith decided and reports whether plansmith asked for the gate's
// sub-agents.
func (d *demo) stop(message string, running []task) bool {
	if running == nil {
		running = []task{}
	}
	in := map[string]any{
		"session_id": sessionID, "cwd": d.project, "hook_event_name": "Stop",
		"stop_hook_active": false, "last_assistant_message": message,
		"background_tasks": running, "session_crons": []any{},
	}
	out := d.hook("stop", in)
	var res struct {
		Decision      string `json:"decision"`
		Reason        string `json:"reason"`
		SystemMessage string `json:"systemMessage"`
	}
	if out == "" && len(running) > 0 {
		say("  plansmith lets the stop happen without judging it: a sub-agent is still running, so the turn is no answer and spends no retry.")
		return false
	}
	if out == "" {
		say("  plansmith lets the stop happen.")
		return false
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		fail(fmt.Errorf("stop hook answered %q: %w", out, err))
	}
	if res.Decision == "block" {
		say("  plansmith blocks the stop and tells the agent:")
		say("%s", indent(summary(res.Reason)))
	}
	if res.SystemMessage != "" {
		say("  plansmith tells the user:")
		say("%s", indent(res.SystemMessage))
	}
	return res.Decision == "block" && strings.Contains(res.Reason, "critic")
}

// tool sends one tool call to the PreToolUse hook and prints the verdict.
func (d *demo) tool(name string, input map[string]any, what string) {
	detail := name
	if c, ok := input["command"].(string); ok {
		detail = fmt.Sprintf("%s: %s", name, c)
	} else if p, ok := input["file_path"].(string); ok {
		detail = fmt.Sprintf("%s %s", name, p)
	} else if m, ok := input["model"].(string); ok {
		detail = fmt.Sprintf("%s, model %s", name, m)
	}
	say("\n▶ The agent %s (%s).", what, detail)
	d.preToolUse(name, input)
}

// preToolUse sends a tool call to the PreToolUse hook and prints the verdict.
func (d *demo) preToolUse(name string, input map[string]any) {
	in := map[string]any{
		"session_id": sessionID, "cwd": d.project, "hook_event_name": "PreToolUse",
		"tool_name": name, "tool_input": input, "tool_use_id": "toolu_demo",
	}
	out := d.hook("pretooluse", in)
	if out == "" {
		say("  plansmith allows it.")
		return
	}
	var res struct {
		Specific struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		fail(fmt.Errorf("pretooluse hook answered %q: %w", out, err))
	}
	say("  plansmith answers %s:", res.Specific.Decision)
	say("%s", indent(res.Specific.Reason))
}

func (d *demo) hook(event string, in map[string]any) string {
	data, err := json.Marshal(in)
	if err != nil {
		fail(err)
	}
	return strings.TrimSpace(d.exec(data, "hook", event))
}

func (d *demo) exec(stdin []byte, args ...string) string {
	cmd := exec.Command(d.bin, args...)
	cmd.Dir = d.project
	cmd.Env = append(os.Environ(), "CLAUDE_CODE_SESSION_ID="+sessionID, "CLAUDE_PROJECT_DIR="+d.project)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("plansmith %s: %v\n%s", strings.Join(args, " "), err, stderr.String()))
	}
	if stderr.Len() > 0 {
		say("  (stderr: %s)", strings.TrimSpace(stderr.String()))
	}
	return stdout.String()
}

// summary keeps the head of a block reason: its verdict line, what is
// missing, and the phase heading, not the whole instructions.
func summary(reason string) string {
	lines := strings.Split(reason, "\n")
	var keep []string
	for _, l := range lines {
		if len(keep) >= 9 {
			keep = append(keep, "…")
			break
		}
		if strings.TrimSpace(l) == "" && len(keep) > 0 && keep[len(keep)-1] == "" {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

func say(format string, a ...any) { fmt.Printf(format+"\n", a...) }

func fail(err error) {
	fmt.Fprintf(os.Stderr, "demo: %v\n", err)
	os.Exit(1)
}
