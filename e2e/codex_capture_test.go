package e2e

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/plansmith/plansmith/e2e/codexserver"
)

// These tests pin what Codex CLI (CodexVersion) sends to hooks and which
// hook outputs it honours, with a logging hook (testdata/codex-hooks/hook.sh)
// registered for every event. docs/codex.md is the prose of what they show;
// testdata/codex/payloads/ holds the payloads (rewrite with -update-codex).

var updateCodex = flag.Bool("update-codex", false, "rewrite testdata/codex/payloads from the payloads Codex sends")

// codexEvents are the hook events Codex 0.169.0 accepts in hooks.json.
var codexEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
	"PostToolUse", "Stop", "SessionEnd", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact"}

// bypassTrust runs hooks that have not been trusted in Codex's /hooks review.
const bypassTrust = "--dangerously-bypass-hook-trust"

// codexHooksJSON is a hooks.json registering command EVENT for every event.
func codexHooksJSON(t testing.TB, command string) string {
	t.Helper()
	type handler struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	type group struct {
		Matcher string    `json:"matcher,omitempty"`
		Hooks   []handler `json:"hooks"`
	}
	hooks := map[string][]group{}
	for _, ev := range codexEvents {
		g := group{Hooks: []handler{{Type: "command", Command: command + " " + ev, Timeout: 30}}}
		if strings.Contains(ev, "ToolUse") || ev == "PermissionRequest" {
			g.Matcher = "*"
		}
		hooks[ev] = []group{g}
	}
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	require.NoError(t, err)
	return string(b)
}

// codexLoggingEnv is a CodexEnv with the logging hook in CODEX_HOME/hooks.json
// (or the project's .codex/hooks.json when project is true); its log folder
// is returned too.
func codexLoggingEnv(t *testing.T, project bool, script ...cs.Reply) (*CodexEnv, string) {
	t.Helper()
	e := NewCodexEnv(t, script...)
	hook, err := filepath.Abs(filepath.Join("testdata", "codex-hooks", "hook.sh"))
	require.NoError(t, err)
	logDir := filepath.Join(e.Home, "hooklog")
	require.NoError(t, os.MkdirAll(logDir, 0o755))
	e.ExtraEnv = append(e.ExtraEnv, "CODEX_HOOKLOG="+logDir)
	if project {
		e.WriteProjectFile(".codex/hooks.json", codexHooksJSON(t, hook))
	} else {
		e.WriteHomeFile("hooks.json", codexHooksJSON(t, hook))
	}
	return e, logDir
}

// codexHookLog returns the inputs the logging hook saw for event, in order.
func codexHookLog(t *testing.T, logDir, event string) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(logDir, event+".jsonl"))
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "hook log line %q", line)
		out = append(out, m)
	}
	return out
}

func writeLogFile(t *testing.T, logDir, name, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(logDir, name), []byte(content), 0o644))
}

const (
	patchDenied = "*** Begin Patch\n*** Add File: denied.txt\n+no\n*** End Patch\n"
	patchOK     = "*** Begin Patch\n*** Add File: ok.txt\n+fine\n*** End Patch\n"
)

// TestCodexHookPayloads runs one session through every common event and
// checks each payload against testdata/codex/payloads: the same keys, and
// the values the adapter relies on.
func TestCodexHookPayloads(t *testing.T) {
	t.Parallel()
	e, logDir := codexLoggingEnv(t, false,
		cs.Exec("ls -a"),
		cs.Patch(patchDenied),
		cs.Patch(patchOK),
		cs.Text("first answer"),
		cs.Func(func(r cs.Request) cs.Reply { return cs.Text("saw: " + strings.Join(r.HookPrompts, "|")) }),
	)
	writeLogFile(t, logDir, "deny-pattern", "denied\\.txt")
	writeLogFile(t, logDir, "stop-blocks", "1")

	res := e.Run("capture every hook", bypassTrust, "-s", "danger-full-access")
	require.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "saw: FIXTURE-STOP 1: keep going.", res.LastMessage)
	assert.Equal(t, []string{"first answer", "saw: FIXTURE-STOP 1: keep going."}, res.Messages)
	assert.Equal(t, "fine\n", e.ProjectFile("ok.txt"), "the allowed patch ran")
	assert.Empty(t, e.ProjectFile("denied.txt"), "the denied patch did not run")

	reqs := e.Model.Requests()
	require.Len(t, reqs, 5)
	assert.Contains(t, reqs[0].Tools, "exec_command")
	assert.Contains(t, reqs[0].Tools, "apply_patch")
	require.Len(t, reqs[2].Outputs, 1)
	assert.Equal(t, "Command blocked by PreToolUse hook: FIXTURE-DENY: refused by the capture hook. Command: "+patchDenied,
		reqs[2].Outputs[0].Output, "a deny reaches the model as the tool's output")
	assert.Equal(t, []string{"FIXTURE-STOP 1: keep going."}, reqs[4].HookPrompts, "a Stop block reaches the model as a hook prompt")

	pre := codexHookLog(t, logDir, "PreToolUse")
	require.Len(t, pre, 3)
	post := codexHookLog(t, logDir, "PostToolUse")
	require.Len(t, post, 2, "a denied call gets no PostToolUse")
	stops := codexHookLog(t, logDir, "Stop")
	require.Len(t, stops, 2)
	captured := map[string]map[string]any{
		"sessionstart":            one(t, codexHookLog(t, logDir, "SessionStart")),
		"userpromptsubmit":        one(t, codexHookLog(t, logDir, "UserPromptSubmit")),
		"pretooluse-bash":         pre[0],
		"pretooluse-apply-patch":  pre[1],
		"posttooluse-bash":        post[0],
		"posttooluse-apply-patch": post[1],
		"stop":                    stops[0],
		"stop-after-block":        stops[1],
		"sessionend":              one(t, codexHookLog(t, logDir, "SessionEnd")),
	}

	assert.Equal(t, "Bash", pre[0]["tool_name"], "exec_command is reported as Bash")
	assert.Equal(t, map[string]any{"command": "ls -a"}, pre[0]["tool_input"])
	assert.Equal(t, "apply_patch", pre[1]["tool_name"])
	assert.Equal(t, map[string]any{"command": patchDenied}, pre[1]["tool_input"], "the patch text is tool_input.command")
	assert.Equal(t, false, stops[0]["stop_hook_active"])
	assert.Equal(t, "first answer", stops[0]["last_assistant_message"])
	assert.Equal(t, true, stops[1]["stop_hook_active"])
	assert.Equal(t, stops[0]["turn_id"], stops[1]["turn_id"], "the block continues the same turn")
	assert.Equal(t, "capture every hook", captured["userpromptsubmit"]["prompt"])
	for name, p := range captured {
		assert.Equal(t, e.Project, p["cwd"], name)
		assert.Equal(t, res.ThreadID, p["session_id"], name)
	}
	for _, ev := range []string{"SessionStart", "PreToolUse", "Stop"} {
		env, _ := os.ReadFile(filepath.Join(logDir, ev+".env"))
		assert.Contains(t, string(env), "PWD="+e.Project+"\n", "%s hooks run in the project", ev)
		assert.NotContains(t, string(env), "CLAUDE_PROJECT_DIR", "Codex sets no CLAUDE_PROJECT_DIR")
	}
	checkCodexPayloads(t, e, captured)
}

// TestCodexPermissionRequest: an escalated command asks for approval (here
// routed to automatic review, as exec has no user to ask); the hook sees it
// as Bash with the justification as description, and its deny is final.
func TestCodexPermissionRequest(t *testing.T) {
	t.Parallel()
	e, logDir := codexLoggingEnv(t, false,
		cs.Reply{Call: &cs.Call{Name: "exec_command", Input: map[string]string{
			"cmd": "touch escalated.txt", "sandbox_permissions": "require_escalated", "justification": "needs to write"}}},
		cs.Text("done"),
	)
	writeLogFile(t, logDir, "PermissionRequest.out",
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"FIXTURE-PR-DENY"}}}`)

	res := e.Run("escalate", bypassTrust, "--approve-for-me")
	require.Equal(t, 0, res.ExitCode)
	assert.Empty(t, e.ProjectFile("escalated.txt"))
	reqs := e.Model.Requests()
	require.Len(t, reqs, 2, "no automatic-review request: the hook decided")
	require.Len(t, reqs[1].Outputs, 1)
	assert.Contains(t, reqs[1].Outputs[0].Output, "FIXTURE-PR-DENY")
	pr := one(t, codexHookLog(t, logDir, "PermissionRequest"))
	assert.Equal(t, "Bash", pr["tool_name"])
	assert.Equal(t, map[string]any{"command": "touch escalated.txt", "description": "needs to write"}, pr["tool_input"])
	assert.Equal(t, "default", pr["permission_mode"])
	checkCodexPayloads(t, e, map[string]map[string]any{"permissionrequest-bash": pr})
}

// TestCodexStopBlocksHaveNoCap: Codex obeys every consecutive Stop block;
// unlike Claude Code (8), it has no cap that would end the turn.
func TestCodexStopBlocksHaveNoCap(t *testing.T) {
	t.Parallel()
	const blocks = 12
	var script []cs.Reply
	for i := 0; i <= blocks; i++ {
		script = append(script, cs.Text("answer "+string(rune('a'+i))))
	}
	e, logDir := codexLoggingEnv(t, false, script...)
	writeLogFile(t, logDir, "stop-blocks", "12")

	res := e.Run("keep answering", bypassTrust)
	require.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "answer m", res.LastMessage, "the 13th answer ends the turn")
	assert.Len(t, res.Messages, blocks+1)
	assert.Len(t, codexHookLog(t, logDir, "Stop"), blocks+1)
	reqs := e.Model.Requests()
	require.Len(t, reqs, blocks+1)
	assert.Equal(t, []string{"FIXTURE-STOP 12: keep going."}, reqs[blocks].HookPrompts)
	assert.Equal(t, 0, e.Model.Overruns())
}

// TestCodexPreToolUseOutputs pins which PreToolUse answers refuse a call.
func TestCodexPreToolUseOutputs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, out, exit, stderr string
		refused                 bool
		reason                  string
	}{
		{name: "deny", out: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R-DENY"}}`, refused: true, reason: "R-DENY"},
		{name: "legacy-block", out: `{"decision":"block","reason":"R-BLOCK"}`, refused: true, reason: "R-BLOCK"},
		{name: "exit-2", exit: "2", stderr: "R-EXIT2", refused: true, reason: "R-EXIT2"},
		// Codex rejects allow as unsupported and runs the call ("hook: PreToolUse Failed").
		{name: "allow-unsupported", out: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok"}}`},
		{name: "deny-without-reason", out: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`},
		{name: "not-json", out: "not json {"},
		{name: "exit-1", exit: "1", stderr: "R-EXIT1"},
	}
	// One session, one call per case: the hook answers its Nth call as
	// case N says.
	var script []cs.Reply
	for _, c := range cases {
		script = append(script, cs.Exec("touch made-"+c.name+".txt"))
	}
	e, logDir := codexLoggingEnv(t, false, append(script, cs.Text("done"))...)
	for i, c := range cases {
		n := strconv.Itoa(i + 1)
		if c.out != "" {
			writeLogFile(t, logDir, "PreToolUse."+n+".out", c.out)
		}
		if c.exit != "" {
			writeLogFile(t, logDir, "PreToolUse."+n+".exit", c.exit)
			writeLogFile(t, logDir, "PreToolUse."+n+".stderr", c.stderr)
		}
	}
	res := e.Run("touch", bypassTrust, "-s", "danger-full-access")
	require.Equal(t, 0, res.ExitCode)
	require.Len(t, codexHookLog(t, logDir, "PreToolUse"), len(cases))
	reqs := e.Model.Requests()
	require.Len(t, reqs, len(cases)+1)
	for i, c := range cases {
		made := "made-" + c.name + ".txt"
		require.Len(t, reqs[i+1].Outputs, 1, c.name)
		if c.refused {
			assert.NoFileExists(t, filepath.Join(e.Project, made), "%s: refused", c.name)
			assert.Equal(t, "Command blocked by PreToolUse hook: "+c.reason+". Command: touch "+made, reqs[i+1].Outputs[0].Output, c.name)
		} else {
			assert.FileExists(t, filepath.Join(e.Project, made), "%s: the call ran: Codex fails open on this answer", c.name)
		}
	}
}

// TestCodexHookTrust: hooks Codex has not been told to trust do not run in
// exec mode, silently; project hooks are not even read in an untrusted
// project. --trust trusts the project, and --dangerously-bypass-hook-trust
// runs untrusted hooks for one invocation.
func TestCodexHookTrust(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		project bool
		args    []string
		ran     bool
	}{
		{name: "user-hooks-untrusted", args: nil},
		{name: "user-hooks-bypass", args: []string{bypassTrust}, ran: true},
		{name: "project-hooks-untrusted-project", project: true, args: []string{bypassTrust}},
		{name: "project-hooks-trusted-project", project: true, args: []string{"--trust"}},
		{name: "project-hooks-trusted-project-bypass", project: true, args: []string{"--trust", bypassTrust}, ran: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e, logDir := codexLoggingEnv(t, c.project, cs.Text("hi"))
			res := e.Run("hello", c.args...)
			require.Equal(t, 0, res.ExitCode)
			assert.Equal(t, "hi", res.LastMessage)
			if c.ran {
				assert.Len(t, codexHookLog(t, logDir, "Stop"), 1)
			} else {
				assert.Empty(t, codexHookLog(t, logDir, "Stop"))
				assert.Empty(t, codexHookLog(t, logDir, "SessionStart"))
			}
		})
	}
}

func one(t *testing.T, calls []map[string]any) map[string]any {
	t.Helper()
	require.Len(t, calls, 1)
	return calls[0]
}

// checkCodexPayloads compares each captured payload's keys with its fixture
// in testdata/codex/payloads (repository root), or rewrites the fixtures
// with -update-codex, paths neutralised.
func checkCodexPayloads(t *testing.T, e *CodexEnv, captured map[string]map[string]any) {
	t.Helper()
	dir := filepath.Join(mustRepoRoot(t), "testdata", "codex", "payloads")
	for name, p := range captured {
		file := filepath.Join(dir, name+".json")
		if *updateCodex {
			b, err := json.MarshalIndent(p, "", "  ")
			require.NoError(t, err)
			s := strings.ReplaceAll(string(b), e.Project, "/project")
			s = strings.ReplaceAll(s, e.Home, "/home/user/.codex")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(file, []byte(s+"\n"), 0o644))
			continue
		}
		b, err := os.ReadFile(file)
		require.NoError(t, err, "fixture for %s (run with -update-codex)", name)
		var want map[string]any
		require.NoError(t, json.Unmarshal(b, &want), file)
		assert.Equal(t, sortedKeys(want), sortedKeys(p), "%s: keys differ from %s", name, file)
		assert.Equal(t, want["hook_event_name"], p["hook_event_name"], name)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestCodexWriteStdinIsNotHooked: typing into a running exec_command
// session (write_stdin) does not reach PreToolUse, so no hook can judge it;
// only the exec_command that started the process was seen.
func TestCodexWriteStdinIsNotHooked(t *testing.T) {
	t.Parallel()
	e, logDir := codexLoggingEnv(t, false,
		cs.Reply{Call: &cs.Call{Name: "exec_command", Input: map[string]any{"cmd": "read x; echo got-$x", "yield_time_ms": 500, "tty": true}}},
		cs.Func(func(r cs.Request) cs.Reply {
			var id int
			if len(r.Outputs) == 1 {
				if _, rest, ok := strings.Cut(r.Outputs[0].Output, "session ID "); ok {
					fmt.Sscanf(rest, "%d", &id)
				}
			}
			return cs.Reply{Call: &cs.Call{Name: "write_stdin", Input: map[string]any{"session_id": id, "chars": "hello\n", "yield_time_ms": 1000}}}
		}),
		cs.Text("done"),
	)
	res := e.Run("type into it", bypassTrust, "-s", "danger-full-access")
	require.Equal(t, 0, res.ExitCode)
	reqs := e.Model.Requests()
	require.Len(t, reqs, 3)
	require.Len(t, reqs[1].Outputs, 1)
	assert.Contains(t, reqs[1].Outputs[0].Output, "Process running with session ID")
	require.Len(t, reqs[2].Outputs, 1)
	assert.Contains(t, reqs[2].Outputs[0].Output, "got-hello", "the typed line reached the process")
	pre := codexHookLog(t, logDir, "PreToolUse")
	require.Len(t, pre, 1, "only exec_command reached PreToolUse")
	assert.Equal(t, "Bash", pre[0]["tool_name"])
}
