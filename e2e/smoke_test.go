package e2e

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ms "github.com/plansmith/plansmith/e2e/modelserver"
)

// These tests prove the harness and pin the CLI behaviour plansmith relies
// on, with a fixture plugin whose hooks are small shell scripts
// (testdata/fixture-plugin): they log every hook input to
// <project>/.hooklog/<event>.jsonl, deny every Write, and block the first
// stop (or as many as .hooklog/stop-blocks says).

func fixtureEnv(t *testing.T, cli string, script ...ms.Reply) *Env {
	t.Helper()
	e := NewEnv(t, cli, script...)
	dir, err := filepath.Abs(filepath.Join("testdata", "fixture-plugin"))
	require.NoError(t, err)
	e.PluginDir = dir
	return e
}

// hookLog returns the inputs the fixture's hooks logged for event, in order.
func hookLog(t *testing.T, e *Env, event string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(e.ProjectFile(".hooklog/"+event+".jsonl")), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "hook log line %q", line)
		out = append(out, m)
	}
	return out
}

// hookEnv returns the KEY=VALUE facts the fixture logged for event.
func hookEnv(e *Env, event string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(e.ProjectFile(".hooklog/"+event+".env"), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

func TestFixtureHooksAndResume(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		e := fixtureEnv(t, cli,
			ms.Func(func(r ms.Request) ms.Reply {
				return ms.Tool("Write", map[string]string{"file_path": filepath.Join(e2eProject(r), "denied.txt"), "content": "x\n"})
			}),
			// Echo what the client sent back, to prove replies can react.
			ms.Func(func(r ms.Request) ms.Reply {
				if len(r.ToolResults) == 0 {
					return ms.Text("no tool result")
				}
				return ms.Text("saw: " + r.ToolResults[0].Content)
			}),
			ms.Text("done after block"),
			ms.Text("resumed answer"),
		)

		res := e.Run(`/fixture:hello world and "more"`)
		assert.Equal(t, 0, res.ExitCode)
		assert.False(t, res.IsError)
		assert.Equal(t, "done after block", res.Result)
		assert.Equal(t, 3, res.NumTurns)
		require.NotEmpty(t, res.SessionID)
		require.Len(t, res.PermissionDenials, 1)
		assert.Equal(t, "Write", res.PermissionDenials[0].ToolName)
		assert.NoFileExists(t, filepath.Join(e.Project, "denied.txt"), "the deny holds in bypassPermissions mode")

		reqs := e.Model.Requests()
		require.Len(t, reqs, 3)
		// The slash command's markdown, with $ARGUMENTS and ${CLAUDE_PLUGIN_ROOT}
		// substituted, is the first user message; the hook's context follows it.
		assert.Contains(t, reqs[0].LastUserText, "<command-name>/fixture:hello</command-name>")
		assert.Contains(t, reqs[0].LastUserText, `<command-args>world and "more"</command-args>`)
		assert.Contains(t, reqs[0].LastUserText, `FIXTURE-HELLO: greet "world and "more"" politely.`)
		assert.Contains(t, reqs[0].LastUserText, "Plugin root as the command sees it: "+e.PluginDir)
		assert.Contains(t, reqs[0].Notes, "FIXTURE-CONTEXT: the fixture hook added this.")
		// The deny reason comes back as an error tool_result.
		require.Len(t, reqs[1].ToolResults, 1)
		assert.Equal(t, ms.ToolResult{
			ToolUseID: res.PermissionDenials[0].ToolUseID, ToolName: "Write",
			Content: e.DenyPrefix("Write") + "FIXTURE-DENY: writes are denied by the fixture plugin", IsError: true,
		}, reqs[1].ToolResults[0])
		// The Stop hook's block reason is the next user message.
		assert.Equal(t, "Stop hook feedback:\nFIXTURE-STOP 1: explore the project before stopping.", reqs[2].LastUserText)
		assert.Zero(t, e.Model.Overruns())

		stops := hookLog(t, e, "Stop")
		require.Len(t, stops, 2)
		for _, s := range stops {
			assert.Equal(t, res.SessionID, s["session_id"])
			assert.Equal(t, e.Project, s["cwd"])
			assert.Equal(t, "Stop", s["hook_event_name"])
			assert.Equal(t, "bypassPermissions", s["permission_mode"])
			assert.True(t, strings.HasPrefix(s["transcript_path"].(string), filepath.Join(e.Home, ".claude", "projects")+"/"))
		}
		assert.Equal(t, false, stops[0]["stop_hook_active"])
		assert.Equal(t, "saw: "+e.DenyPrefix("Write")+"FIXTURE-DENY: writes are denied by the fixture plugin", stops[0]["last_assistant_message"])
		assert.Equal(t, true, stops[1]["stop_hook_active"])
		assert.Equal(t, "done after block", stops[1]["last_assistant_message"])

		pre := hookLog(t, e, "PreToolUse")
		require.Len(t, pre, 1)
		assert.Equal(t, "Write", pre[0]["tool_name"])
		assert.Equal(t, res.PermissionDenials[0].ToolUseID, pre[0]["tool_use_id"])
		assert.Equal(t, filepath.Join(e.Project, "denied.txt"), pre[0]["tool_input"].(map[string]any)["file_path"])
		assert.Empty(t, hookLog(t, e, "PostToolUse"), "a denied tool has no PostToolUse")

		prompts := hookLog(t, e, "UserPromptSubmit")
		require.Len(t, prompts, 1)
		assert.Equal(t, `/fixture:hello world and "more"`, prompts[0]["prompt"], "the hook sees the raw slash command")

		for _, ev := range []string{"Stop", "PreToolUse", "UserPromptSubmit"} {
			env := hookEnv(e, ev)
			assert.Equal(t, e.PluginDir, env["CLAUDE_PLUGIN_ROOT"], ev)
			assert.Equal(t, e.Project, env["CLAUDE_PROJECT_DIR"], ev)
			assert.Equal(t, e.Project, env["PWD"], ev)
		}

		// A second -p run continues the same session.
		res2 := e.Resume(res.SessionID, "and again")
		assert.Equal(t, res.SessionID, res2.SessionID)
		assert.Equal(t, "resumed answer", res2.Result)
		assert.Equal(t, 1, res2.NumTurns)
		reqs = e.Model.Requests()
		require.Len(t, reqs, 4)
		assert.Equal(t, "and again", reqs[3].LastUserText)
		assert.Greater(t, reqs[3].Messages, reqs[2].Messages, "the resumed request carries the earlier conversation")
		assert.Contains(t, string(reqs[3].Body), "FIXTURE-STOP 1")
		stops = hookLog(t, e, "Stop")
		require.Len(t, stops, 3)
		assert.Equal(t, res.SessionID, stops[2]["session_id"])
		assert.Equal(t, false, stops[2]["stop_hook_active"])
		assert.Zero(t, e.Model.Overruns())
	})
}

// e2eProject digs the project folder out of the environment section (in
// the system prompt up to 2.1.197, in a system message after the first user
// message since), so a scripted tool call can name a path inside it.
func e2eProject(r ms.Request) string {
	text := strings.Join(append([]string{r.System}, r.SystemMessages...), "\n")
	for _, line := range strings.Split(text, "\n") {
		if _, dir, ok := strings.Cut(line, "Primary working directory: "); ok {
			return strings.TrimSpace(dir)
		}
	}
	return "/nonexistent"
}

func TestFixtureCommandRunsShellBeforeTheModel(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		tests := []struct {
			name string
			args string
			want string
		}{
			{name: "plain words", args: "one two", want: "bang-args=[one two] root=[PLUGIN]"},
			// $ARGUMENTS is pasted into the shell text unquoted: a prompt can
			// break out of the quotes and run commands. A command must never put
			// user text inside !`...`.
			{name: "arguments are shell text", args: `x"; echo "INJECTED-$((6*7))`, want: "INJECTED-42"},
		}
		// One session, one prompt per case.
		e := fixtureEnv(t, cli, ms.Text("ok"), ms.Text("ok"))
		e.WriteProjectFile(".hooklog/stop-blocks", "0")
		var prompts []string
		for _, tt := range tests {
			prompts = append(prompts, "/fixture:bang "+tt.args)
		}
		turns := e.RunTurns(prompts)
		reqs := e.Model.Requests()
		require.Len(t, reqs, len(tests))
		for i, tt := range tests {
			assert.Equal(t, "ok", turns[i].Result, tt.name)
			// The !`...` line ran in -p mode and its output replaced the line.
			assert.Contains(t, reqs[i].LastUserText, strings.ReplaceAll(tt.want, "PLUGIN", e.PluginDir), tt.name)
			assert.NotContains(t, reqs[i].LastUserText, "!`echo", tt.name)
		}
	})
}

func TestBashToolEnvironment(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		e := fixtureEnv(t, cli,
			ms.Tool("Bash", map[string]string{"command": `echo "cc=$CLAUDECODE sid=$CLAUDE_CODE_SESSION_ID"; echo "path=$PATH"`, "description": "env"}),
			ms.Text("done"),
		)
		e.WriteProjectFile(".hooklog/stop-blocks", "0")
		res := e.Run("show the environment")
		reqs := e.Model.Requests()
		require.Len(t, reqs, 2)
		require.Len(t, reqs[1].ToolResults, 1)
		out := reqs[1].ToolResults[0].Content
		assert.False(t, reqs[1].ToolResults[0].IsError)
		// plansmith plan, run by the agent, can tell which session owns the loop.
		assert.Contains(t, out, "cc=1 sid="+res.SessionID+"\n")
		// The plugin's bin/ folder is on the agent's PATH (appended; 2.1.330
		// appends it only when the folder exists, so the fixture has one).
		assert.True(t, strings.HasSuffix(strings.TrimSpace(out), ":"+filepath.Join(e.PluginDir, "bin")), out)
		post := hookLog(t, e, "PostToolUse")
		require.Len(t, post, 1)
		assert.Equal(t, "Bash", post[0]["tool_name"])
		assert.Contains(t, post[0], "tool_response")
	})
}

// The Bash tool does not run the system's find: both CLIs restore a
// function find that runs the bfs built into the claude binary, whose -rm
// deletes what it finds where GNU find stops at an unknown predicate. The
// read-only policy refuses -rm for that reason (review CN6); should a CLI
// stop doing this, the reason goes, not the refusal.
func TestBashToolFindIsBfs(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		e := fixtureEnv(t, cli,
			ms.Tool("Bash", map[string]string{"command": `type find | head -1; touch a.tmp b.txt; find . -name '*.tmp' -rm; ls`, "description": "find"}),
			ms.Text("done"),
		)
		e.WriteProjectFile(".hooklog/stop-blocks", "0")
		e.Run("find the temporary files")
		reqs := e.Model.Requests()
		require.Len(t, reqs, 2)
		require.Len(t, reqs[1].ToolResults, 1)
		out := reqs[1].ToolResults[0].Content
		// bash says "find is a function", zsh "find is a shell function
		// from FILE": which one the snapshot is for follows the user's SHELL.
		assert.Regexp(t, `(?m)^find is a (shell )?function\b`, out)
		assert.Contains(t, out, "b.txt", out)
		assert.NotContains(t, out, "a.tmp", "bfs -rm deleted it: "+out)
	})
}

func TestStopHookBlockCap(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		texts := func(n int) []ms.Reply {
			var out []ms.Reply
			for i := 1; i <= n; i++ {
				out = append(out, ms.Text("answer "+strconv.Itoa(i)))
			}
			return out
		}
		bash := ms.Tool("Bash", map[string]string{"command": "true", "description": "nothing"})
		tests := []struct {
			name   string
			env    []string
			script []ms.Reply
			// blocks is how many block reasons reach the model.
			blocks int
		}{
			{
				name:   "default cap obeys eight blocks",
				script: texts(9),
				blocks: 8,
			},
			{
				// The cap comes from the environment (with the default of
				// eight, five blocks would reach the model and the script
				// would run out), and a tool call starts the count again.
				name:   "a cap from the environment, reset by a tool call",
				env:    []string{"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=2"},
				script: append(append(texts(2), bash), texts(3)...),
				blocks: 4,
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				e := fixtureEnv(t, cli, tt.script...)
				e.ExtraEnv = tt.env
				e.WriteProjectFile(".hooklog/stop-blocks", "100")
				res := e.Run("keep going")
				assert.False(t, res.IsError)
				assert.Empty(t, res.Result, "a turn ended by the cap reports an empty result")
				assert.Zero(t, e.Model.Overruns())
				assert.Zero(t, e.Model.Remaining())
				var reasons int
				for _, r := range e.Model.Requests() {
					if strings.HasPrefix(r.LastUserText, "Stop hook feedback:") {
						reasons++
					}
				}
				assert.Equal(t, tt.blocks, reasons)
				// The hook blocked once more than the client obeyed, and was not told.
				assert.Equal(t, strconv.Itoa(tt.blocks+1), strings.TrimSpace(e.ProjectFile(".hooklog/stop-blocked")))
				assert.Len(t, hookLog(t, e, "Stop"), tt.blocks+1)
			})
		}
	})
}

// TestHooksFollowTheBashCd pins where hooks run once the agent changes
// directory: a `cd` in the Bash tool persists for the session's later
// calls, and from then on Claude Code sends hooks that folder as the
// payload's cwd and runs them in it, while $CLAUDE_PROJECT_DIR in the
// hook's environment still names the project. The Bash tool's own commands
// do not see $CLAUDE_PROJECT_DIR at all (so `plansmith plan`, run there,
// knows the project only as its working directory).
func TestHooksFollowTheBashCd(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		show := `echo "pwd=$(pwd) project=${CLAUDE_PROJECT_DIR-<unset>}"`
		e := fixtureEnv(t, cli,
			ms.Tool("Bash", map[string]string{"command": "cd sub", "description": "cd"}),
			ms.Tool("Bash", map[string]string{"command": show, "description": "show"}),
			ms.Text("done"),
		)
		e.WriteProjectFile(".hooklog/stop-blocks", "0")
		e.WriteProjectFile("sub/keep.txt", "x\n")
		sub := filepath.Join(e.Project, "sub")
		res := e.Run("look around")
		assert.Equal(t, "done", res.Result)
		reqs := e.Model.Requests()
		require.Len(t, reqs, 3)
		require.Len(t, reqs[2].ToolResults, 1)
		assert.Equal(t, "pwd="+sub+" project=<unset>", strings.TrimSpace(reqs[2].ToolResults[0].Content))

		pre := hookLog(t, e, "PreToolUse")
		require.Len(t, pre, 2)
		assert.Equal(t, e.Project, pre[0]["cwd"], "before the cd")
		assert.Equal(t, sub, pre[1]["cwd"], "after the cd")
		stops := hookLog(t, e, "Stop")
		require.Len(t, stops, 1)
		assert.Equal(t, sub, stops[0]["cwd"])
		for _, ev := range []string{"PreToolUse", "Stop"} {
			env := hookEnv(e, ev) // the event's last call
			assert.Equal(t, sub, env["PWD"], ev)
			assert.Equal(t, e.Project, env["CLAUDE_PROJECT_DIR"], ev)
		}
		assert.Equal(t, e.Project, hookLog(t, e, "UserPromptSubmit")[0]["cwd"], "the prompt came before the cd")
	})
}
