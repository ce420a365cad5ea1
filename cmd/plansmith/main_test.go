package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/plansmith/plansmith/loop"
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
			"subagent":  cmdSubagent,
			"session":   cmdSession,
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
			env.Setenv("CLAUDE_CONFIG_DIR", "")
			env.Setenv("CLAUDE_CODE_PROJECT_DIR_NAME", "")
			env.Setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "")
			return nil
		},
	})
}

// cmdSession makes the script's later commands run as the agent's Bash
// tool inside Claude Code session ID would: session ID sets
// $CLAUDE_CODE_SESSION_ID and writes the session's transcript where Claude
// Code keeps it, ~/.claude/projects/<key of the project>/ID.jsonl, with
// $CLAUDE_CONFIG_DIR ($WORK/.claude-config unless set) standing for
// ~/.claude. The project is the current folder, or -project DIR.
func cmdSession(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: session [-project DIR] ID"
	project := ts.MkAbs(".")
	if len(args) == 3 && args[0] == "-project" {
		project, args = ts.MkAbs(args[1]), args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf(usage)
	}
	config := ts.Getenv("CLAUDE_CONFIG_DIR")
	if config == "" {
		config = filepath.Join(ts.Getenv("WORK"), ".claude-config")
		ts.Setenv("CLAUDE_CONFIG_DIR", config)
	}
	transcript := filepath.Join(config, "projects", loop.ProjectKey(project), args[0]+".jsonl")
	ts.Check(os.MkdirAll(filepath.Dir(transcript), 0o755))
	ts.Check(os.WriteFile(transcript, []byte(`{"type":"user"}`+"\n"), 0o644))
	ts.Setenv("CLAUDE_CODE_SESSION_ID", args[0])
}

// cmdStopInput writes a Stop hook input whose last_assistant_message is a
// file's contents: stopinput [-reports] [-running AGENT-ID] SESSION
// MESSAGE-FILE OUTPUT-FILE. Without flags it is an input from a client that
// reports no sub-agent runs; -reports adds Claude Code 2.1.330's
// background_tasks (empty), -running lists one sub-agent still running.
func cmdStopInput(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: stopinput [-reports] [-running AGENT-ID] SESSION MESSAGE-FILE OUTPUT-FILE"
	var tasks []any
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-reports":
			tasks = []any{}
			args = args[1:]
		case args[0] == "-running" && len(args) > 1:
			tasks = append(tasks, map[string]any{"id": args[1], "type": "subagent", "status": "running",
				"description": "sub-agent", "agent_type": "general-purpose"})
			args = args[2:]
		default:
			ts.Fatalf(usage)
		}
	}
	if neg || len(args) != 3 {
		ts.Fatalf(usage)
	}
	msg := ts.ReadFile(args[1])
	in := map[string]any{
		"session_id":             args[0],
		"transcript_path":        "/nonexistent/transcript.jsonl",
		"hook_event_name":        "Stop",
		"stop_hook_active":       false,
		"last_assistant_message": msg,
	}
	if tasks != nil {
		in["background_tasks"] = tasks
	}
	data, err := json.Marshal(in)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), data, 0o644))
}

// cmdSubagent writes the hook inputs Claude Code 2.1.330 sends for one
// sub-agent run, shaped as the payloads captured from it
// (testdata/hooks/claude-code-2.1.330): subagent [-bg] [-plan] SESSION
// AGENT-ID PROMPT-FILE OUTPUT-FILE PREFIX writes PREFIX-pre.json (the Agent
// tool's PreToolUse), PREFIX-post.json (its PostToolUse: a background
// launch with -bg, else the completed run with its output) and
// PREFIX-stop.json (the sub-agent's SubagentStop with its output). -plan
// sets permission_mode "plan"; -model the model the call asks for (else
// the captured call's: opus in the background, haiku in the foreground).
// The cwd is the script's current folder.
func cmdSubagent(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: subagent [-bg] [-plan] [-model MODEL] SESSION AGENT-ID PROMPT-FILE OUTPUT-FILE PREFIX"
	bg, mode, model := false, "", ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-bg":
			bg = true
		case args[0] == "-plan":
			mode = "plan"
		case args[0] == "-model" && len(args) > 1:
			model, args = args[1], args[1:]
		default:
			ts.Fatalf(usage)
		}
		args = args[1:]
	}
	if neg || len(args) != 5 {
		ts.Fatalf(usage)
	}
	session, agentID, prompt, output, prefix := args[0], args[1], ts.ReadFile(args[2]), ts.ReadFile(args[3]), args[4]
	captured := func(name string) map[string]any {
		b, err := os.ReadFile(filepath.Join(ts.Getenv("REPO"), "testdata", "hooks", "claude-code-2.1.330", name))
		ts.Check(err)
		var m map[string]any
		ts.Check(json.Unmarshal(b, &m))
		m["session_id"], m["cwd"] = session, ts.MkAbs(".")
		if mode != "" {
			m["permission_mode"] = mode
		}
		return m
	}
	write := func(suffix string, m map[string]any) {
		data, err := json.Marshal(m)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(prefix+suffix), data, 0o644))
	}
	post := captured("posttooluse-agent-foreground.json")
	if bg {
		post = captured("posttooluse-agent-background.json")
	}
	input, response := post["tool_input"].(map[string]any), post["tool_response"].(map[string]any)
	input["prompt"], response["prompt"], response["agentId"] = prompt, prompt, agentID
	if model != "" {
		input["model"] = model
	}
	if !bg {
		response["content"] = []any{map[string]any{"type": "text", "text": output}}
	}
	write("-post.json", post)
	pre := captured("posttooluse-agent-foreground.json")
	pre["hook_event_name"], pre["tool_input"] = "PreToolUse", input
	delete(pre, "tool_response")
	delete(pre, "duration_ms")
	write("-pre.json", pre)
	stop := captured("subagentstop-foreground.json")
	stop["agent_id"], stop["last_assistant_message"] = agentID, output
	stop["agent_transcript_path"] = "/nonexistent/subagents/agent-" + agentID + ".jsonl"
	write("-stop.json", stop)
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
		args         []string
		event, agent string
	}{
		{[]string{"hook", "stop"}, "stop", "claude"},
		{[]string{"hook", "pretooluse", "extra"}, "pretooluse", "claude"},
		{[]string{"hook", "userpromptsubmit"}, "userpromptsubmit", "claude"},
		{[]string{"hook", "pretooluse", "--agent", "codex"}, "pretooluse", "codex"},
		{[]string{"hook", "stop", "--agent=codex"}, "stop", "codex"},
		{[]string{"hook", "stop", "--agent", "other"}, "stop", "other"}, // answered as cobra would: unknown agent, ignored
		{[]string{"hook", "stop", "--help"}, "", ""},                    // cobra answers flags
		{[]string{"hook", "stop", "--agent"}, "", ""},
		{[]string{"hook", "stop", "--agent="}, "", ""},
		{[]string{"hook", "stop", "--agent", "--help"}, "", ""},
		{[]string{"hook", "stop", "--verbose", "--agent", "codex"}, "", ""},
		{[]string{"hook", "PreToolUse"}, "pretooluse", "claude"}, // Claude Code's spelling
		{[]string{"hook", "Stop", "--agent", "codex"}, "stop", "codex"},
		{[]string{"hook", "nosuch"}, "", ""},
		{[]string{"hook"}, "", ""},
		{[]string{"status", "stop"}, "", ""},
		{nil, "", ""},
	}
	for _, c := range cases {
		event, agent, ok := hookEvent(c.args)
		if event != c.event || agent != c.agent || ok != (c.event != "") {
			t.Errorf("hookEvent(%q) = %q, %q, %v; want %q, %q", c.args, event, agent, ok, c.event, c.agent)
		}
	}
}
