package codex

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

func testEnv(t testing.TB, stdin string) (loop.Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	dir := t.TempDir()
	return loop.Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return dir, nil },
		Now:    func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) },
	}, &out, &errb
}

func TestRunWithoutALoopSaysNothing(t *testing.T) {
	payloads, err := filepath.Glob("../../testdata/codex/payloads/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, payloads)
	for _, p := range payloads {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for ev := range handlers {
			env, out, errb := testEnv(t, strings.ReplaceAll(string(data), `"/project"`, `""`))
			Run(ev, env)
			assert.Empty(t, out.String(), "%s on %s", ev, p)
			if ev == "pretooluse" && !strings.Contains(string(data), `"tool_name"`) {
				// A non-tool payload fed to PreToolUse names no tool: noted, not judged.
				assert.Contains(t, errb.String(), "names no tool", p)
				continue
			}
			assert.Empty(t, errb.String(), "%s on %s", ev, p)
		}
	}
}

func TestRunReportsBadInputAndUnknownEvents(t *testing.T) {
	for _, c := range []struct{ event, in, stderr string }{
		{"stop", "", "hook input is empty"},
		{"pretooluse", "[1,2]", "not a JSON object"},
		{"posttooluse", "{}", "not used with Codex"},
	} {
		env, out, errb := testEnv(t, c.in)
		Run(c.event, env)
		assert.Empty(t, out.String())
		assert.Contains(t, errb.String(), c.stderr)
	}
}

func FuzzRun(f *testing.F) {
	f.Add("stop", `{"session_id":"s","cwd":"","last_assistant_message":null}`)
	f.Add("pretooluse", `{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch"}}`)
	f.Add("userpromptsubmit", `{"prompt":"hi"}`)
	f.Add("sessionstart", `{"session_id":"s","cwd":"","source":"resume"}`)
	f.Fuzz(func(t *testing.T, event, in string) {
		env, _, _ := testEnv(t, in)
		Run(event, env) // must not panic
	})
}

// TestPreToolUseFailsClosedWhileALoopRuns: with a loop active, a Codex tool
// call whose input cannot be judged (not JSON, a needed field of the wrong
// type, no tool named) is refused with a reason, never let through; an odd
// field the judgement does not need does not stop a read-only call from
// being judged (and allowed) or a write from being refused.
func TestPreToolUseFailsClosedWhileALoopRuns(t *testing.T) {
	for _, c := range []struct {
		name, in string
		deny     bool
	}{
		{"not json", `[1,2,3]`, true},
		{"session id of the wrong type", `{"session_id":5,"cwd":"","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`, true},
		{"tool input of the wrong type", `{"session_id":"s1","cwd":"","tool_name":"Bash","tool_input":"rm -rf build"}`, true},
		{"no tool named", `{"session_id":"s1","cwd":"","tool_input":{"command":"rm -rf build"}}`, true},
		{"odd unneeded field, writing command", `{"session_id":"s1","cwd":"","permission_mode":1,"stop_hook_active":"true","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`, true},
		{"odd unneeded field, reading command", `{"session_id":"s1","cwd":"","permission_mode":1,"tool_name":"Bash","tool_input":{"command":"ls"}}`, false},
		// Codex does not tell the hook the workdir or tty the model asked
		// for: git may run in a folder nobody looked at, or page.
		{"git, where the hook cannot see", `{"session_id":"s1","cwd":"","tool_name":"Bash","tool_input":{"command":"git log -1"}}`, true},
		{"man, whose pager takes commands", `{"session_id":"s1","cwd":"","tool_name":"Bash","tool_input":{"command":"man ls"}}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, out, _ := testEnv(t, c.in)
			p, err := env.Paths(loop.Session{})
			require.NoError(t, err)
			_, err = loop.Start(env, p, loop.Options{SessionID: "s1", Request: "plan it", Phases: []string{"understand"},
				MaxRetries: 3, BlockTools: true, Agent: "codex"})
			require.NoError(t, err)
			// Under another of plansmith's tool-call names too (review
			// BM1: pretooluse-loop let an unreadable call through).
			for _, event := range []string{"pretooluse", "pretooluse-loop"} {
				out.Reset()
				env.Stdin = strings.NewReader(c.in)
				Run(event, env)
				if !c.deny {
					assert.Empty(t, out.String(), event)
					continue
				}
				assert.Contains(t, out.String(), `"permissionDecision":"deny"`, event)
				assert.Contains(t, out.String(), `"permissionDecisionReason":"`, event)
			}
		})
	}
}

// TestPreToolUseWithAMalformedCwdLooksFromItsFolder: Codex runs the hook in
// the folder it sends as cwd; a cwd that is not an absolute path to a
// folder is malformed, and the loop is looked for from the hook's own
// folder, so an edit is still refused (review AS2: it was let through).
func TestPreToolUseWithAMalformedCwdLooksFromItsFolder(t *testing.T) {
	for _, cwd := range []string{`sub`, `\u2028`, `\ud800`, `/no/such/folder\ny`} {
		t.Run(cwd, func(t *testing.T) {
			in := `{"session_id":"s1","cwd":"` + cwd + `","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: x.txt\n+no\n*** End Patch\n"}}`
			env, out, _ := testEnv(t, in)
			wd, err := env.Getwd()
			require.NoError(t, err)
			_, err = loop.Start(env, state.Paths{Project: wd}, loop.Options{SessionID: "s1", Request: "plan it",
				Phases: []string{"understand"}, MaxRetries: 3, BlockTools: true, Agent: "codex"})
			require.NoError(t, err)
			Run("pretooluse", env)
			assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
		})
	}
}

// Codex runs a call whose hook fails or times out, so a PreToolUse whose
// judging panics or runs past the deadline is refused while a loop runs
// (review Y, D: a panic let the call through).
func TestPreToolUseThatCannotJudgeRefuses(t *testing.T) {
	in := `{"session_id":"s1","cwd":"","tool_name":"Bash","tool_input":{"command":"ls"}}`
	setup := func(t *testing.T) (loop.Env, *bytes.Buffer) {
		env, out, _ := testEnv(t, in)
		p, err := env.Paths(loop.Session{})
		require.NoError(t, err)
		_, err = loop.Start(env, p, loop.Options{SessionID: "s1", Request: "plan it", Phases: []string{"understand"},
			MaxRetries: 3, BlockTools: true, Agent: "codex"})
		require.NoError(t, err)
		return env, out
	}
	saved := handlers["pretooluse"]
	defer func() { handlers["pretooluse"] = saved }()

	handlers["pretooluse"] = func(Input, loop.Env) any { panic("boom") }
	env, out := setup(t)
	Run("pretooluse", env)
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, out.String(), "plansmith's judging failed (boom)")
	assert.Contains(t, out.String(), "Rule: unjudged")

	// The judging is held for good, so the deadline is what ends it; a
	// second leaves the input's reading room on a loaded machine (at 20 ms
	// it ran out there first, a flaky failure with another reason).
	old := Deadline
	Deadline = time.Second
	defer func() { Deadline = old }()
	release := make(chan struct{})
	defer close(release)
	handlers["pretooluse"] = func(Input, loop.Env) any { <-release; return nil }
	env, out = setup(t)
	Run("pretooluse", env)
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, out.String(), "did not finish within 1s")
}

// An input whose pipe is held open is read within the deadline too, and
// the call refused where a loop runs, not answered whenever the pipe ends
// (review AS: a 25 s hold gave the answer at 25 s).
func TestPreToolUseWithAnInputThatDoesNotEnd(t *testing.T) {
	env, out, errb := testEnv(t, "")
	p, err := env.Paths(loop.Session{})
	require.NoError(t, err)
	_, err = loop.Start(env, p, loop.Options{SessionID: "s1", Request: "plan it", Phases: []string{"understand"},
		MaxRetries: 3, BlockTools: true, Agent: "codex"})
	require.NoError(t, err)
	old := Deadline
	Deadline = 20 * time.Millisecond
	defer func() { Deadline = old }()
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte(`{"session_id":"s1","cwd":"","tool_name":"apply_patch",`))
	env.Stdin = r
	Run("pretooluse", env)
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, errb.String(), "the hook input did not end within 20ms")
}

// A Stop input that is another event's is not judged (no retry spent on
// an answer never given), and a call with no usable session is named
// (review BK6: both passed in silence).
func TestAStopInputThatIsNotAStopIsNotJudged(t *testing.T) {
	env, out, errb := testEnv(t, "")
	p, err := env.Paths(loop.Session{})
	require.NoError(t, err)
	_, err = loop.Start(env, p, loop.Options{SessionID: "s1", Request: "plan it", Phases: []string{"understand", "draft"},
		MaxRetries: 3, BlockTools: true, Agent: "codex"})
	require.NoError(t, err)
	env.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	Run("stop", env)
	assert.Empty(t, out.String())
	assert.Contains(t, errb.String(), "the input is a PreToolUse event's, not Stop")
	f, err := state.Load(p.State())
	require.NoError(t, err)
	assert.Equal(t, 0, f.Loop.Retries)

	errb.Reset()
	env.Stdin = strings.NewReader(`{"session_id":5,"cwd":"","hook_event_name":"Stop","last_assistant_message":"x"}`)
	Run("stop", env)
	assert.Contains(t, errb.String(), "no usable session_id (fields of the wrong type: session_id)")
}

// plansmith registered twice for Codex (in the user's hooks and the
// project's) runs two Stop hooks for one turn: the turn's answer is judged
// once, as for Claude Code (review BT1), whether or not the answer is in
// the input (Codex may send last_assistant_message null). Here the
// judgment's time is an hour ahead, so the second call began before the
// first wrote it, as a hook run beside it does (review CB8).
func TestTheSameTurnsCodexStopTwiceIsJudgedOnce(t *testing.T) {
	for name, input := range map[string]string{
		"with the answer":  `{"session_id":"s1","turn_id":"t1","cwd":"","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"too short"}`,
		"answer null":      `{"session_id":"s1","turn_id":"t1","cwd":"","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":null}`,
		"no answer at all": `{"session_id":"s1","turn_id":"t1","cwd":"","hook_event_name":"Stop","stop_hook_active":false}`,
	} {
		t.Run(name, func(t *testing.T) {
			env, out, _ := testEnv(t, "")
			p, err := env.Paths(loop.Session{})
			require.NoError(t, err)
			_, err = loop.Start(env, p, loop.Options{SessionID: "s1", Request: "plan it", Phases: []string{"understand", "draft"},
				MaxRetries: 3, Agent: "codex"})
			require.NoError(t, err)
			now := time.Now().Add(time.Hour)
			env.Now = func() time.Time { return now }

			env.Stdin = strings.NewReader(input)
			Run("stop", env)
			assert.Contains(t, out.String(), `"decision":"block"`)
			out.Reset()
			env.Stdin = strings.NewReader(input)
			Run("stop", env)
			assert.Empty(t, out.String(), "the same turn's second Stop answers nothing")
			f, err := state.Load(p.State())
			require.NoError(t, err)
			assert.Equal(t, 1, f.Loop.Retries, "the answer was judged once")
		})
	}
}

// A PreToolUse that fails outside the judging itself (here, in finding the
// project for an input it could not decode) is refused as well, as the
// Claude Code adapter's is: Codex runs a call whose hook says nothing
// (review CI3: the panic was noted and the call let through).
func TestPreToolUseThatFailsBeforeJudgingRefuses(t *testing.T) {
	env, out, errb := testEnv(t, `{"session_id":"s1","tool_name":"Write"`)
	p, err := env.Paths(loop.Session{})
	require.NoError(t, err)
	_, err = loop.Start(env, p, loop.Options{SessionID: "s1", Request: "plan it", Phases: []string{"understand"},
		MaxRetries: 3, BlockTools: true, Agent: "codex"})
	require.NoError(t, err)
	env.Getwd = func() (string, error) { panic("boom") }
	Run("pretooluse", env)
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, errb.String(), "internal error in the Codex pretooluse hook: boom")

	env, out, _ = testEnv(t, `{"session_id":"s1","last_assistant_message":"x"`)
	env.Getwd = func() (string, error) { panic("boom") }
	Run("stop", env)
	assert.Empty(t, out.String(), "other hooks still answer nothing")
}

// TestPreToolUseWithAWorkdirElsewhereFindsTheLoop: Codex sends a tool call's
// workdir as the hook's cwd and runs the hook in the thread's own folder
// (0.169.0, seen in e2e). A workdir outside the project, or in a checkout
// nested in it, named no loop, and `touch <project>/x` with workdir /tmp
// ran while planning (review CL1); the hook's own folder is looked from too.
func TestPreToolUseWithAWorkdirElsewhereFindsTheLoop(t *testing.T) {
	outside := t.TempDir()
	for _, c := range []struct{ name, cwd, cmd string }{
		{"outside the project", outside, "touch PROJECT/escaped"},
		{"the root folder", "/", "touch PROJECT/escaped"},
		{"a checkout nested in the project", "", "touch ../escaped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, out, _ := testEnv(t, "")
			wd, err := env.Getwd()
			require.NoError(t, err)
			fakeCheckout(t, wd)
			cwd := c.cwd
			if c.name == "a checkout nested in the project" {
				cwd = filepath.Join(wd, "vendor", "lib")
				fakeCheckout(t, cwd)
			}
			_, err = loop.Start(env, state.Paths{Project: wd}, loop.Options{SessionID: "s1", Request: "plan it",
				Phases: []string{"understand"}, MaxRetries: 3, BlockTools: true, Agent: "codex"})
			require.NoError(t, err)
			cmd := strings.ReplaceAll(c.cmd, "PROJECT", wd)
			env.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"` + cwd + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"}}`)
			Run("pretooluse", env)
			assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
			out.Reset()
			env.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"` + cwd + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
			Run("pretooluse", env)
			assert.Empty(t, out.String(), "a read-only command still runs")
		})
	}
}

// TestPreToolUseWithAWorkdirAtAnotherLoopFindsItsOwn: a workdir pointed at
// another folder holding a loop's state file (another session's, or a
// finished one) must not stand in for the thread's own folder, where its
// loop is kept (review CL1).
func TestPreToolUseWithAWorkdirAtAnotherLoopFindsItsOwn(t *testing.T) {
	for _, other := range []string{"s2", ""} {
		t.Run("held by "+other, func(t *testing.T) {
			env, out, _ := testEnv(t, "")
			wd, err := env.Getwd()
			require.NoError(t, err)
			decoy := t.TempDir()
			_, err = loop.Start(env, state.Paths{Project: decoy}, loop.Options{SessionID: other, Request: "other",
				Phases: []string{"understand"}, MaxRetries: 3, BlockTools: true, Agent: "codex"})
			require.NoError(t, err)
			_, err = loop.Start(env, state.Paths{Project: wd}, loop.Options{SessionID: "s1", Request: "plan it",
				Phases: []string{"understand"}, MaxRetries: 3, BlockTools: true, Agent: "codex"})
			require.NoError(t, err)
			env.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"` + decoy + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch ` + wd + `/escaped"}}`)
			Run("pretooluse", env)
			assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
		})
	}
}

// TestPreToolUseWithProjectShellVariablesRefusesTheShell: Codex starts every
// command with the variables a trusted repository's .codex/config.toml sets
// (shell_environment_policy), which the hook does not see: a BASH_ENV there
// ran a project script with every `ls` while planning (review CL3). While
// such a layer is there, from the checkout's root down, shell commands are
// refused; without a loop nothing is said.
func TestPreToolUseWithProjectShellVariablesRefusesTheShell(t *testing.T) {
	for _, c := range []struct {
		name, where, config string
		deny                bool
	}{
		{"none", "", "", false},
		{"unrelated settings", ".", "model = \"gpt-5.5\"\n", false},
		{"set at the root", ".", "[shell_environment_policy]\nset = { BASH_ENV = \"./tools/x\" }\n", true},
		{"dotted key", ".", "shell_environment_policy.set.PATH = \"./bin\"\n", true},
		{"escaped quoted key", ".", "[\"shell_environment\\u005fpolicy\"]\nset = { BASH_ENV = \"x\" }\n", true},
		// Codex reads \x escapes in quoted keys too (review DA3).
		{"x-escaped quoted key", ".", "[\"shell_environment_polic\\x79\"]\nset = { BASH_ENV = \"x\" }\n", true},
		{"long-escaped dotted key", ".", "\"\\U00000073hell_environment_policy\".set.PATH = \"./bin\"\n", true},
		{"x-escaped key in a table", ".", "[profiles.p]\n\"shell_env\\x69ronment_policy\" = { set = { PATH = \"./bin\" } }\n", true},
		// Hex digits in either case, as TOML reads them.
		{"x-escaped with upper-case hex", ".", "[\"shell_environment\\x5Fpolicy\"]\nset = { BASH_ENV = \"x\" }\n", true},
		{"x-escaped with a lower-case hex letter", ".", "[\"shell_environment\\x5fpolicy\"]\nset = { BASH_ENV = \"x\" }\n", true},
		{"u-escaped with upper-case hex", ".", "[\"shell_environment\\u005Fpolicy\"]\nset = { BASH_ENV = \"x\" }\n", true},
		{"U-escaped with upper-case hex", ".", "[\"shell_environment\\U0000005Fpolicy\"]\nset = { BASH_ENV = \"x\" }\n", true},
		// Escapes and backslashes that spell no such key leave the shell
		// alone (review CL: every \u refused it).
		{"escapes elsewhere", ".", "model = \"caf\\u00e9\"\nnotify = ['C:\\Users\\me\\x.exe']\n", false},
		{"in a subfolder Codex runs in", "sub", "[shell_environment_policy]\nset = { LD_PRELOAD = \"./x.so\" }\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, out, errb := testEnv(t, "")
			root, err := env.Getwd()
			require.NoError(t, err)
			fakeCheckout(t, root)
			wd := root
			if c.where == "sub" {
				wd = filepath.Join(root, "sub")
				require.NoError(t, os.Mkdir(wd, 0o755))
				env.Getwd = func() (string, error) { return wd, nil }
			}
			if c.config != "" {
				dir := filepath.Join(root, c.where, ".codex")
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(c.config), 0o644))
			}
			in := `{"session_id":"s1","cwd":"` + wd + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
			env.Stdin = strings.NewReader(in)
			Run("pretooluse", env)
			assert.Empty(t, out.String(), "no loop, nothing said")
			_, err = loop.Start(env, state.Paths{Project: root}, loop.Options{SessionID: "s1", Request: "plan it",
				Phases: []string{"understand"}, MaxRetries: 3, BlockTools: true, Agent: "codex"})
			require.NoError(t, err)
			env.Stdin = strings.NewReader(in)
			Run("pretooluse", env)
			if !c.deny {
				assert.Empty(t, out.String())
				return
			}
			assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
			assert.Contains(t, out.String(), "Rule: shell-env", errb.String())
		})
	}
}

// fakeCheckout makes dir a checkout's root, as loop tells one: a .git
// folder with objects, refs and HEAD.
func fakeCheckout(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{"objects", "refs"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
}

// TestSessionStartTellsOfAnotherThreadsLoop: a Codex thread that begins in
// a project whose loop another thread holds is told so, with how to go on
// with it (codex resume) or end it (review DA2: a loop whose Codex session
// had ended stayed active, and the thread started next heard nothing). The
// planning thread resumed gets its phase back as context; a thread forked
// from it is part of the loop and is told nothing; without a loop, nothing.
func TestSessionStartTellsOfAnotherThreadsLoop(t *testing.T) {
	const holder = "01a21c95-788d-7a21-9d41-82e13f20189d"
	// As the binary names commands for a Codex hook (cmd/plansmith).
	templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindCodex, CLI: "plansmith"} })
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	env, out, _ := testEnv(t, "")
	home := t.TempDir()
	env.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	wd, err := env.Getwd()
	require.NoError(t, err)
	run := func(thread, source, rollout string) string {
		out.Reset()
		env.Stdin = strings.NewReader(`{"session_id":"` + thread + `","transcript_path":"` + rollout + `","cwd":"` + wd +
			`","hook_event_name":"SessionStart","model":"gpt-5.5","permission_mode":"bypassPermissions","source":"` + source + `"}`)
		Run("sessionstart", env)
		return out.String()
	}
	assert.Empty(t, run("01a21c96-0000-7000-8000-000000000001", "startup", ""), "no loop: nothing")

	p, err := env.Paths(loop.Session{Cwd: wd})
	require.NoError(t, err)
	_, err = loop.Start(env, p, loop.Options{SessionID: holder, Request: "plan it", Phases: []string{"understand", "explore"},
		MaxRetries: 3, BlockTools: true, Agent: "codex"})
	require.NoError(t, err)

	for _, source := range []string{"startup", "resume", "clear"} {
		got := run("01a21c96-0000-7000-8000-000000000002", source, "")
		assert.Contains(t, got, `"systemMessage":"plansmith: a planning loop another session started is active in this project (understand [1/2])`, source)
		assert.Contains(t, got, "`codex resume "+holder+"` goes on with the loop, and `plansmith cancel` ends it", source)
		assert.NotContains(t, got, "hookSpecificOutput", source)
	}

	got := run(holder, "resume", "")
	assert.Contains(t, got, `"hookEventName":"SessionStart"`)
	assert.Contains(t, got, `"additionalContext":"plansmith: this session is in a planning loop, at understand [1/2]`)
	assert.NotContains(t, got, "systemMessage")

	// A thread forked from the planning thread after the loop began.
	rollout := filepath.Join(t.TempDir(), "rollout.jsonl")
	require.NoError(t, os.WriteFile(rollout, []byte(`{"timestamp":"2026-11-23T12:05:00Z","type":"session_meta","payload":{"id":"01a21c96-0000-7000-8000-000000000003","forked_from_id":"`+holder+`","timestamp":"2026-11-23T12:05:00Z","cwd":"`+wd+`"}}`+"\n"), 0o644))
	assert.Empty(t, run("01a21c96-0000-7000-8000-000000000003", "startup", rollout), "a fork of the planning thread is part of its loop")
}

// TestUserPromptSubmitShowsTheUserWhatIsForThem: what the loop says to the
// user on a prompt (here: its state file was unreadable and is moved aside)
// is Codex's systemMessage, which its TUI shows, and still the agent's
// context, which codex exec users see only through the agent (review DA5:
// only the agent was told). A running loop's reminder is for the agent only.
func TestUserPromptSubmitShowsTheUserWhatIsForThem(t *testing.T) {
	env, out, _ := testEnv(t, "")
	wd, err := env.Getwd()
	require.NoError(t, err)
	prompt := `{"session_id":"s1","turn_id":"t1","cwd":"` + wd + `","hook_event_name":"UserPromptSubmit","prompt":"go on"}`
	p, err := env.Paths(loop.Session{Cwd: wd})
	require.NoError(t, err)
	_, err = loop.Start(env, p, loop.Options{SessionID: "s1", Request: "plan it", Phases: []string{"understand"},
		MaxRetries: 3, BlockTools: true, Agent: "codex"})
	require.NoError(t, err)
	env.Stdin = strings.NewReader(prompt)
	Run("userpromptsubmit", env)
	assert.Contains(t, out.String(), `"additionalContext":"plansmith: a planning loop is active in this session`)
	assert.NotContains(t, out.String(), "systemMessage", "the reminder is the agent's")

	require.NoError(t, os.WriteFile(p.State(), []byte("---\nactive: [unclosed\n---\n"), 0o644))
	out.Reset()
	env.Stdin = strings.NewReader(prompt)
	Run("userpromptsubmit", env)
	var got struct {
		SystemMessage      string `json:"systemMessage"`
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	assert.Contains(t, got.SystemMessage, "plansmith:")
	assert.Equal(t, got.SystemMessage, got.HookSpecificOutput.AdditionalContext)
}

// TestOnPathFindsCmd: whether a program named cmd is where Codex would run
// it for the shell "cmd" (review DA6); a relative PATH entry may hold one
// wherever the command runs.
func TestOnPathFindsCmd(t *testing.T) {
	with, without := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(with, "cmd"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(without, "cmd"), 0o755)) // a folder is no program
	assert.True(t, onPath(without+string(os.PathListSeparator)+with, "cmd"))
	assert.False(t, onPath(without, "cmd"))
	assert.True(t, onPath(without+string(os.PathListSeparator)+"bin", "cmd"), "a relative entry")
	exe := t.TempDir() // Windows names it cmd.exe (review EB)
	require.NoError(t, os.WriteFile(filepath.Join(exe, "cmd.exe"), []byte("#!/bin/sh\n"), 0o755))
	assert.True(t, onPath(without+string(os.PathListSeparator)+exe, "cmd"), "cmd.exe")
}

// TestPreToolUseWithCmdOnPathJudgesAsCmdExeReads: the hook tells the policy
// whether a cmd is on the PATH it shares with Codex, so that a line cmd.exe
// would read with an operator where bash reads text is refused there and
// only there (review DA6; review EB: a mutant that never told the policy,
// in either hooks/codex or loop, let every such line through with no test
// failing but the slow e2e one).
func TestPreToolUseWithCmdOnPathJudgesAsCmdExeReads(t *testing.T) {
	withCmd, without := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(withCmd, "cmd"), []byte("#!/bin/sh\n"), 0o755))
	for _, c := range []struct {
		path string
		deny bool
	}{{withCmd, true}, {without, false}} {
		env, out, _ := testEnv(t, "")
		root, err := env.Getwd()
		require.NoError(t, err)
		fakeCheckout(t, root)
		env.Getenv = func(k string) string {
			if k == "PATH" {
				return c.path
			}
			return ""
		}
		_, err = loop.Start(env, state.Paths{Project: root}, loop.Options{SessionID: "s1", Request: "plan it",
			Phases: []string{"understand"}, MaxRetries: 3, BlockTools: true, Agent: "codex"})
		require.NoError(t, err)
		env.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"` + root + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo 'a & del x'"}}`)
		Run("pretooluse", env)
		if c.deny {
			assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
			assert.Contains(t, out.String(), "blind-cmd")
		} else {
			assert.NotContains(t, out.String(), "blind-cmd")
		}
	}
}
