package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ms "github.com/plansmith/plansmith/e2e/modelserver"
	"github.com/plansmith/plansmith/gate"
)

// The plan-mode gate in the real, interactive client. Headless `claude -p`
// does not enable ExitPlanMode, so this scenario runs the CLI in a terminal:
// a tmux session of its own (private socket), driven with send-keys, the
// screen read with capture-pane only to get past dialogs. Everything it
// asserts comes from what the scripted model received.

// tmuxWait bounds each wait for the client (a screen, a request);
// tmuxPoll is how often a wait looks again.
const (
	tmuxWait = 90 * time.Second
	tmuxPoll = 100 * time.Millisecond
)

// tmuxTerm is one CLI running in a tmux session on a private server.
type tmuxTerm struct {
	t      *testing.T
	socket string // the server's socket path
	// dialogs counts the permission dialogs approved.
	dialogs int
}

func (tt *tmuxTerm) tmux(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", tt.socket}, args...)...).CombinedOutput()
	return string(out), err
}

// screen is the visible pane as text.
func (tt *tmuxTerm) screen() string {
	out, _ := tt.tmux("capture-pane", "-p", "-t", "cli")
	return out
}

// keys sends tmux key names (Enter, Down, …).
func (tt *tmuxTerm) keys(keys ...string) {
	tt.t.Helper()
	if out, err := tt.tmux(append([]string{"send-keys", "-t", "cli"}, keys...)...); err != nil {
		tt.t.Fatalf("tmux send-keys %v: %v\n%s", keys, err, out)
	}
}

// typeLine types text literally, then Enter.
func (tt *tmuxTerm) typeLine(text string) {
	tt.t.Helper()
	if out, err := tt.tmux("send-keys", "-t", "cli", "-l", text); err != nil {
		tt.t.Fatalf("tmux send-keys %q: %v\n%s", text, err, out)
	}
	time.Sleep(500 * time.Millisecond) // let the input box settle (completion menus)
	tt.keys("Enter")
}

// waitFor polls cond until it holds, failing the test with the screen after
// tmuxWait.
func (tt *tmuxTerm) waitFor(what string, cond func() bool) {
	tt.t.Helper()
	deadline := time.Now().Add(tmuxWait)
	for !cond() {
		if time.Now().After(deadline) {
			tt.t.Fatalf("waiting for %s: timed out after %s; screen:\n%s", what, tmuxWait, tt.screen())
		}
		time.Sleep(tmuxPoll)
	}
}

// approve answers a permission dialog on screen, if any, with its first
// "Yes" option: the cursor moves down to it, then Enter. It reports whether
// a dialog was seen.
func (tt *tmuxTerm) approve() bool {
	tt.t.Helper()
	s := tt.screen()
	if !showsDialog(s) {
		return false
	}
	for _, line := range strings.Split(s, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "❯") && strings.Contains(l, "Yes") {
			tt.dialogs++
			tt.keys("Enter")
			tt.settle(func(now string) bool { return !showsDialog(now) })
			return true
		}
	}
	tt.keys("Down")
	tt.settle(func(now string) bool { return now != s })
	return true
}

func showsDialog(screen string) bool {
	return strings.Contains(screen, "Do you want to proceed?") || strings.Contains(screen, "Would you like to proceed?")
}

// settle gives a key sent to a dialog up to a second to show (done says
// when it has), so the next look does not answer the same dialog twice. A
// dialog that has not taken the key by then (drawn before it listens) is
// answered again.
func (tt *tmuxTerm) settle(done func(screen string) bool) {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline) && !done(tt.screen()); {
		time.Sleep(tmuxPoll)
	}
}

// newTmuxTerm is a tmux server of the test's own, on a socket in a folder
// of its own (short: a socket path is limited to about 100 bytes). It
// skips, saying why tmux was wanted, when tmux is not installed.
func newTmuxTerm(t *testing.T, why string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed: " + why)
	}
	sockDir, err := os.MkdirTemp("", "ps-tmux")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	return &tmuxTerm{t: t, socket: filepath.Join(sockDir, "s")}
}

// startTmux runs the CLI of e interactively with args in a tmux session,
// killed when the test ends. It skips when tmux is missing.
func startTmux(t *testing.T, e *Env, args ...string) *tmuxTerm {
	t.Helper()
	tt := newTmuxTerm(t, "the interactive plan-mode scenario needs it (ExitPlanMode is off in claude -p)")
	tt.start(e.Home, e.environ(), e.Project, append([]string{e.Claude, "--plugin-dir", e.PluginDir}, args...), nil)
	return tt
}

// start runs argv in dir in a tmux session, from a script (written into
// home) so that its environment is exactly environ, not the tmux server's.
// When the test ends, the pane's process group and the tmux server are
// killed and waited for, so nothing writes into the temp folders as they
// are removed and no server outlives the test; then atEnd, if any, runs.
func (tt *tmuxTerm) start(home string, environ []string, dir string, argv []string, atEnd func()) {
	t := tt.t
	t.Helper()
	var sb strings.Builder
	sb.WriteString("#!/bin/sh\n")
	for _, kv := range append(environ, "TERM=xterm-256color") {
		k, v, _ := strings.Cut(kv, "=")
		if !envNameRe.MatchString(k) {
			continue // not a name sh can export
		}
		fmt.Fprintf(&sb, "export %s=%s\n", k, shellQuote(v))
	}
	sb.WriteString("cd " + shellQuote(dir) + " || exit 1\nexec")
	for _, a := range argv {
		sb.WriteString(" " + shellQuote(a))
	}
	sb.WriteString("\n")
	script := filepath.Join(home, "run-"+filepath.Base(argv[0])+".sh")
	require.NoError(t, os.WriteFile(script, []byte(sb.String()), 0o755))
	out, err := tt.tmux("new-session", "-d", "-s", "cli", "-x", "200", "-y", "50", script)
	require.NoError(t, err, "tmux new-session: %s", out)
	out, err = tt.tmux("display-message", "-p", "-t", "cli", "#{pane_pid} #{pid}")
	require.NoError(t, err, "tmux display-message: %s", out)
	var pane, server int
	_, err = fmt.Sscan(out, &pane, &server)
	require.NoError(t, err, "pane and server pids %q", out)
	// The pane's process (the program: the script execs it) leads its own
	// process group.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen at the end:\n%s", tt.screen())
		}
		_ = syscall.Kill(-pane, syscall.SIGKILL)
		_, _ = tt.tmux("kill-server")
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if syscall.Kill(pane, 0) != nil && syscall.Kill(server, 0) != nil {
				break
			}
		}
		if atEnd != nil {
			atEnd()
		}
	})
}

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// seedClaudeHome writes the user config an interactive client reads first,
// so it skips its first-run screens: onboarding (theme), the API key
// question and the project's trust dialog.
func seedClaudeHome(t *testing.T, e *Env) {
	t.Helper()
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{"test"}, "rejected": []string{}},
		"projects": map[string]any{e.Project: map[string]any{
			"hasTrustDialogAccepted":        true,
			"hasCompletedProjectOnboarding": true,
		}},
	}
	b, err := json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(e.Home, ".claude.json"), b, 0o600))
}

var planPathRe = regexp.MustCompile(`/[^"\s'` + "`" + `\\]*/\.claude/plans/[A-Za-z0-9._-]+\.md`)

// planPath is the plan file the client named to the model (plan mode's
// instructions), or "".
func planPath(r ms.Request) string {
	return planPathRe.FindString(string(r.Body))
}

// The plan the scripted model writes in plan mode: goals, steps, one gap.
const tmuxPlan = `# Rate limiting for the public API

## Goals
- Every public endpoint answers 429 past 100 requests a minute per API key.

## Steps
1. Add a token-bucket limiter keyed by API key, backed by Redis.
2. Register it after the auth middleware in cmd/api/main.go.
3. Return 429 with a Retry-After header when the bucket is empty.

<!-- rodin:gaps:start -->
### GAP-1: Redis failover behaviour
- **Severity**: medium
- **Description**: Counters reset when Redis fails over; the limiter admits a burst until they refill.
<!-- rodin:gaps:end -->
`

// What the critic and validator answer (the model server routes each
// sub-agent by its prompt's role line: criticRole, validatorRole).
const (
	tmuxFinding = "### FINDING-1: Counters reset on Redis failover\n- **Severity**: medium\n- **Description**: A failover empties the buckets, so clients get a fresh quota."
	tmuxVerdict = "### VERDICT: PASS\n**Reason**: FINDING-1 is covered by GAP-1."
)

// lastResult is the content of the request's tool_result ("" when none).
func lastResult(r ms.Request) string {
	if len(r.ToolResults) == 0 {
		return ""
	}
	return r.ToolResults[0].Content
}

// planModeScript is the scripted model of the plan-mode scenario: it writes
// the plan file the client names, tries to leave plan mode (refused), then,
// after /plansmith:gate, follows commands/gate.md step by step and leaves
// plan mode again. plugin is the --plugin-dir the command names. The critic
// and validator run in the background (the interactive 2.1.330 starts a
// sub-agent in the background even when asked for a foreground run): the
// model ends its turn to wait, and each completion wakes it. criticDone and
// validatorDone are closed when it waits; the routes answer only then.
func planModeScript(plugin string, criticDone, validatorDone chan struct{}) []ms.Reply {
	ps := `"` + plugin + `/bin/plansmith"`
	plan := make(chan string, 1) // the plan file's path, from the first request
	planFilePath := sync.OnceValue(func() string { return <-plan })
	read := func() string {
		b, _ := os.ReadFile(planFilePath())
		return string(b)
	}
	signal := make(chan string, 1)
	return []ms.Reply{
		// The user's request: write the plan, then try to leave plan mode.
		ms.Func(func(r ms.Request) ms.Reply {
			p := planPath(r)
			plan <- p
			return ms.Tool("Write", map[string]string{"file_path": p, "content": tmuxPlan})
		}),
		ms.Tool("ExitPlanMode", map[string]any{}),
		ms.Text("plansmith refused to leave plan mode; the plan needs /plansmith:gate first."),
		// /plansmith:gate, step by step.
		ms.Func(func(ms.Request) ms.Reply { return bash(ps + " gate check-plan '" + planFilePath() + "'") }),
		ms.Func(func(ms.Request) ms.Reply { return bash(ps + " gate leakage --gaps '" + planFilePath() + "'") }),
		ms.Func(func(ms.Request) ms.Reply { return bash(ps + " gate critic-prompt '" + planFilePath() + "'") }),
		ms.Func(func(r ms.Request) ms.Reply {
			return ms.Tool("Agent", map[string]any{"description": "plan critic", "subagent_type": "general-purpose",
				"model": "opus", "run_in_background": true, "prompt": lastResult(r)})
		}),
		releasing(criticDone, "Waiting for the critic."),
		// Woken by the critic's completion.
		bash(ps + " gate check-findings - <<'PLANSMITH_CRITIC'\n" + tmuxFinding + "\nPLANSMITH_CRITIC"),
		ms.Func(func(ms.Request) ms.Reply { return bash(ps + " gate validator-prompt '" + planFilePath() + "'") }),
		ms.Func(func(r ms.Request) ms.Reply {
			return ms.Tool("Agent", map[string]any{"description": "gap validator", "subagent_type": "general-purpose",
				"model": "haiku", "run_in_background": true, "prompt": lastResult(r) + "\n\n" + tmuxFinding})
		}),
		releasing(validatorDone, "Waiting for the validator."),
		// Woken by the validator's completion.
		ms.Func(func(ms.Request) ms.Reply {
			return bash(ps + " gate check-verdict --plan '" + planFilePath() + "' - <<'PLANSMITH_OUTPUTS'\n" +
				wrapped(tmuxFinding, tmuxVerdict) + "\nPLANSMITH_OUTPUTS")
		}),
		bash(ps + " gate signal pass - <<'PLANSMITH_REASON'\nFINDING-1 is covered by GAP-1.\nPLANSMITH_REASON"),
		ms.Func(func(r ms.Request) ms.Reply {
			signal <- strings.TrimSpace(lastResult(r))
			return ms.Tool("Read", map[string]string{"file_path": planFilePath()})
		}),
		ms.Func(func(ms.Request) ms.Reply {
			return ms.Tool("Write", map[string]string{"file_path": planFilePath(),
				"content": strings.TrimRight(read(), "\n") + "\n" + <-signal + "\n"})
		}),
		{Text: "The assessment passed; the plan may leave plan mode.", ToolUse: &ms.ToolUse{Name: "ExitPlanMode", Input: map[string]any{}}},
		ms.Text("Plan approved."),
	}
}

// exitResults are the tool_results of the model's ExitPlanMode calls, in order.
func exitResults(reqs []ms.Request) []ms.ToolResult {
	var out []ms.ToolResult
	for _, r := range reqs {
		for _, tr := range r.ToolResults {
			if tr.ToolName == "ExitPlanMode" {
				out = append(out, tr)
			}
		}
	}
	return out
}

// resultOf returns the tool_result the model received for its call of tool
// whose result contains marker, or fails.
func resultOf(t *testing.T, reqs []ms.Request, tool, marker string) ms.ToolResult {
	t.Helper()
	for _, r := range reqs {
		for _, tr := range r.ToolResults {
			if tr.ToolName == tool && strings.Contains(tr.Content, marker) {
				return tr
			}
		}
	}
	t.Fatalf("no %s result containing %q", tool, marker)
	return ms.ToolResult{}
}

// TestPlanModeGateInTmux proves the plan-mode gate in the interactive
// client: the plan written in plan mode, ExitPlanMode refused,
// /plansmith:gate followed (critic and validator as real sub-agents, seen by
// the hooks), ExitPlanMode allowed and approved by the user.
//
// It is the suite's longest test and mostly waits on the interactive CLI, so
// it starts first: its file sorts first (tests start in file order) and its
// versions run at once in its own slot (EachCLIAtOnce).
func TestPlanModeGateInTmux(t *testing.T) {
	t.Parallel()
	EachCLIAtOnce(t, func(t *testing.T, cli string) {
		criticDone, validatorDone := make(chan struct{}), make(chan struct{})
		e := plansmithEnv(t, cli, planModeScript(mustRepoRoot(t), criticDone, validatorDone)...)
		e.Model.Route(criticRole, after(criticDone, tmuxFinding))
		e.Model.Route(validatorRole, after(validatorDone, tmuxVerdict))
		seedClaudeHome(t, e)
		tt := startTmux(t, e, "--permission-mode", "plan")
		tt.waitFor("the input box in plan mode", func() bool { return strings.Contains(tt.screen(), "plan mode on") })

		// The plan is written; leaving plan mode is refused.
		tt.typeLine("Plan rate limiting for the public API")
		tt.waitFor("the refused ExitPlanMode", func() bool {
			tt.approve()
			return len(e.Model.Requests()) >= 3
		})
		reqs := e.Model.Requests()
		path := planPath(reqs[0])
		require.NotEmpty(t, path, "plan mode names the plan file")
		exits := exitResults(reqs)
		require.Len(t, exits, 1, "requests: %v", reqs)
		assert.True(t, exits[0].IsError, "plansmith refuses to leave plan mode")
		assert.True(t, strings.HasPrefix(exits[0].Content, e.DenyPrefix("ExitPlanMode")+"[plansmith gate]"), exits[0].Content)
		assert.Contains(t, exits[0].Content, "/plansmith:gate")

		// /plansmith:gate: the model follows the command to a pass signal,
		// then leaves plan mode; the user approves the plan.
		tt.typeLine("/plansmith:gate")
		tt.waitFor("the approved ExitPlanMode", func() bool {
			tt.approve()
			return e.Model.Remaining() == 0 && len(exitResults(e.Model.Requests())) == 2
		})
		reqs = e.Model.Requests()
		assert.Zero(t, e.Model.Overruns())
		assert.Contains(t, reqs[3].LastUserText, "<command-name>/plansmith:gate</command-name>")
		assert.Contains(t, reqs[3].LastUserText, `"`+e.PluginDir+`/bin/plansmith" gate check-plan`)
		assert.Contains(t, resultOf(t, reqs, "Bash", "plan ok").Content, "1 gap(s)")
		assert.Contains(t, resultOf(t, reqs, "Bash", "critic output ok").Content, "FINDING-1 [medium]")
		assert.Contains(t, resultOf(t, reqs, "Bash", "verdict:").Content, "verdict: PASS")

		assertGapsSeenByTheValidatorOnly(t, e.Model, criticRole, validatorRole)

		// The pass signal stood (the hooks saw both runs) and became the
		// plan's verdict; ExitPlanMode went through to the user's approval.
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		m, err := gate.ParseMeta(string(b))
		require.NoError(t, err)
		require.NotNil(t, m.Validation, "plan file:\n%s", b)
		assert.Equal(t, "pass", m.Validation.Status, "plan file:\n%s", b)
		exits = exitResults(reqs)
		require.Len(t, exits, 2)
		assert.False(t, exits[1].IsError, "the assessed plan leaves plan mode: %s", exits[1].Content)
		assert.Contains(t, exits[1].Content, "User has approved your plan")
	})
}
