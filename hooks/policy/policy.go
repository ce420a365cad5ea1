package policy

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/plansmith/plansmith/templates"
)

// Decision is the policy's answer for one tool call.
type Decision struct {
	Allow bool
	// Rule names the rule that refused the call; empty when allowed.
	Rule string
	// Reason is the full text shown to the model and the user on a denial:
	// what was refused, which rule refused it and a read-only alternative.
	Reason string
}

// editTools change files directly; no input makes them read-only.
// apply_patch is Codex CLI's file-editing tool (see patch.go).
var editTools = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true, "apply_patch": true}
})

// readTools are the tools that leave the project as it is: they read,
// search, fetch, plan, ask, message the user, keep the agent's own to-do
// list, or start sub-agents (whose own tool calls come back through this
// policy). Any other tool is refused while planning unless the project's
// Config names it: a new or unknown tool (an MCP server's, a skill that
// runs shell lines, a worktree or a schedule that writes files) cannot be
// judged.
var readTools = sync.OnceValue(func() map[string]bool {
	return set(
		// Claude Code
		"Read", "Grep", "Glob", "LS", "NotebookRead", "WebFetch", "WebSearch", "Agent", "Task",
		"TaskOutput", "BashOutput", "TaskStop", "KillShell", "KillBash", "TodoWrite", "TodoRead",
		"TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "ToolSearch", "AskUserQuestion",
		"EnterPlanMode", "ExitPlanMode", "ListMcpResourcesTool", "ReadMcpResourceTool",
		// brief mode's message to the user (2.1.330), and its alias
		"SendUserMessage", "Brief",
		// Codex CLI
		"update_plan", "view_image", "web_search", "tool_search", "request_user_input",
	)
})

// shellTools run their "command" input as a shell command line, judged as
// Bash: Claude Code's Monitor watches a command's output.
var shellTools = sync.OnceValue(func() map[string]bool { return set("Bash", "Monitor") })

// Tool judges one tool call by name and raw JSON input. Edit, MultiEdit,
// Write, NotebookEdit and apply_patch are denied; Bash and Monitor are
// judged by Bash; the read-only tools (readTools) and those the project's
// Config names are allowed; any other tool is denied.
func Tool(name string, input json.RawMessage, cfg Config) Decision {
	if editTools()[name] {
		var in struct {
			FilePath     string `json:"file_path"`
			NotebookPath string `json:"notebook_path"`
		}
		_ = json.Unmarshal(input, &in) // the path only improves the message
		what := name
		if p := in.FilePath + in.NotebookPath; p != "" {
			what += " " + p
		}
		if name == "apply_patch" {
			what = patchWhat(input)
		}
		return deny(finding{rule: "edit-tool", what: what})
	}
	if !shellTools()[name] {
		if (name == "Agent" || name == "Task") && !cfg.allowsTool(name) {
			if why := unguardedAgent(input, cfg.AgentDefinition); why != "" {
				return deny(finding{rule: "unknown-tool", what: name, detail: why})
			}
		}
		if readTools()[name] || cfg.allowsTool(name) {
			return Decision{Allow: true}
		}
		return deny(finding{rule: "unknown-tool", what: name})
	}
	// A map, not a struct: encoding/json matches struct fields without
	// regard to case, so {"command":"touch x","COMMAND":"ls"} would be
	// judged as ls while the shell runs the other.
	var fields map[string]json.RawMessage
	var command string
	if err := json.Unmarshal(input, &fields); err != nil || fields == nil {
		return deny(finding{rule: "bad-input", what: name, detail: "input is not a JSON object with a command string"})
	}
	for k := range fields {
		if k != "command" && strings.EqualFold(k, "command") {
			return deny(finding{rule: "bad-input", what: name, detail: "the input has a second command field, " + k})
		}
	}
	raw, ok := fields["command"]
	if ok && json.Unmarshal(raw, &command) != nil {
		return deny(finding{rule: "bad-input", what: name, detail: "input is not a JSON object with a command string"})
	}
	if strings.TrimSpace(command) == "" {
		return deny(finding{rule: "bad-input", what: name, detail: "the command is missing or empty"})
	}
	if cfg.ShellEnv != "" {
		// Even plansmith's own commands: the shell that starts them reads
		// BASH_ENV first.
		return deny(finding{rule: "shell-env", what: clip(command), detail: cfg.ShellEnv})
	}
	if cfg.SettingsEnv != nil {
		// Even plansmith's own commands, for the same reason.
		if why := cfg.SettingsEnv(); why != "" {
			return deny(finding{rule: "settings-env", what: clip(command), detail: why})
		}
	}
	return Bash(command, cfg)
}

// unguardedAgent says why a sub-agent call must be refused, or "": an
// isolation other than none in the call ("worktree" makes a git branch and
// a worktree in the project, what EnterWorktree is refused for; "remote"
// runs the agent where no hook sees its calls), input that is not an
// object, or what definition (Config.AgentDefinition, when not nil) says of
// the subagent_type named: an isolation in its frontmatter, or settings
// that start programs or write.
func unguardedAgent(input json.RawMessage, definition func(agent string) string) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil || fields == nil {
		return "the input is not a JSON object"
	}
	for k, v := range fields {
		switch {
		case strings.EqualFold(k, "isolation"):
			if !NoIsolation(v) {
				return "isolation " + string(v) + " makes a git branch and worktree in the project, or runs the agent where no hook sees it"
			}
		case strings.EqualFold(k, "subagent_type") && definition != nil:
			var agent string
			if json.Unmarshal(v, &agent) != nil {
				return "subagent_type " + string(v) + " is not a string"
			}
			if why := definition(agent); why != "" {
				return why
			}
		}
	}
	return ""
}

// NoIsolation reports whether an isolation setting (JSON) asks for none:
// null, "" or "none".
func NoIsolation(v json.RawMessage) bool {
	var mode string
	return string(v) == "null" || json.Unmarshal(v, &mode) == nil && (mode == "" || mode == "none")
}

// Guarded reports whether tool is one the policy refuses or judges: any
// tool but the read-only ones, and a call whose tool cannot be named ("").
func Guarded(tool string) bool {
	return tool == "" || !readTools()[tool]
}

// Unreadable is the answer for a guarded tool call that cannot be judged
// while a loop may be running: the hook input or the loop's state could not
// be read. It fails closed; why says what could not be read.
func Unreadable(tool, why string) Decision {
	what := tool
	if what == "" {
		what = "a tool call"
	}
	return deny(finding{rule: "unreadable", what: what, detail: why})
}

// Unjudged is the refusal of a call whose judging ran out of time or
// failed (a panic): unlike Unreadable, the input and the loop were read,
// and the advice is about the call itself (review CK).
func Unjudged(tool, why string) Decision {
	what := tool
	if what == "" {
		what = "a tool call"
	}
	return deny(finding{rule: "unjudged", what: what, detail: why})
}

// Bash judges a bash command line. It is allowed only when every simple
// command in it, at any depth, is on the read-only list (or the project's
// Config allows it) in a read-only form, and no redirect writes a file.
// Commands that cannot be parsed are denied.
func Bash(command string, cfg Config) (d Decision) {
	defer func() {
		// The hook must answer even if a rule has a bug: fail closed.
		if r := recover(); r != nil {
			d = deny(finding{rule: "internal", what: clip(command), detail: fmt.Sprint(r)})
		}
	}()
	if f := judgeAs(syntax.LangBash, command, cfg); f != nil {
		return deny(*f)
	}
	if cfg.Blind {
		// Codex runs a command with whatever shell the model names
		// (exec_command's shell), falling back to /bin/sh for one it does
		// not know, and its hook is not told which: the line must be
		// read-only to sh as well. zsh is judged by the bash reading's
		// own rules, as for Claude Code.
		if f := judgeAs(syntax.LangPOSIX, command, cfg); f != nil {
			return deny(finding{rule: "blind-shell", what: f.what, detail: "read by sh (dash): " + f.detail})
		}
		// Nor PowerShell, which Codex runs for shell "pwsh" (pwsh.go).
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(command), "")
		if err != nil {
			return deny(finding{rule: "parse", what: clip(command), detail: err.Error()})
		}
		if f := pwshDiverges(command, file); f != nil {
			return deny(*f)
		}
		// Nor cmd.exe, which Codex runs for shell "cmd" (cmdexe.go).
		if f := cmdDiverges(command, file); cfg.CmdExe && f != nil {
			return deny(*f)
		}
	}
	return Decision{Allow: true}
}

// judgeAs parses command as lang reads it and returns the first reason to
// refuse it, or nil.
func judgeAs(lang syntax.LangVariant, command string, cfg Config) *finding {
	file, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true)).Parse(strings.NewReader(command), "")
	if err != nil {
		return &finding{rule: "parse", what: clip(command), detail: err.Error()}
	}
	c := &checker{src: command, file: file, allow: parseAllow(cfg), ours: cfg.Ours, npmrc: cfg.NpmConfig, gitRepo: cfg.GitRepository, gitShowsSignatures: cfg.GitShowsSignatures, blind: cfg.Blind, goToolchain: cfg.GoToolchain, goVCS: cfg.GoVCS, inherited: cfg.Inherited, cancelAsked: cfg.CancelAsked, pathLookup: cfg.PathLookup, shellDefines: cfg.ShellDefines}
	syntax.Walk(file, c.visit)
	if c.found == nil {
		c.splitsAlike()
	}
	return c.found
}

// finding is one reason to refuse, with the source text it is about.
type finding struct {
	rule   string
	what   string
	detail string
	// words, when set, names the table entry whose texts word the refusal
	// in place of the rule's own (a case of the rule that needs other
	// advice); the refusal still names rule.
	words string
}

func deny(f finding) Decision {
	key := f.rule
	if f.words != "" {
		key = f.words
	}
	r, ok := rules()[key]
	if !ok {
		r = rules()["internal"]
	}
	alt := r.alt
	if r.altFor != nil {
		if a := r.altFor(); a != "" {
			alt = a
		}
	}
	why := r.why
	if r.whyFor != nil {
		if w := r.whyFor(); w != "" {
			why = w
		}
	}
	text := templates.Show("policy/deny.md", map[string]string{
		"What":        f.what,
		"Detail":      f.detail,
		"Rule":        f.rule,
		"Why":         why,
		"Alternative": alt,
	})
	return Decision{Rule: f.rule, Reason: strings.TrimSpace(text)}
}

// clip keeps quoted source short enough for a message.
func clip(s string) string {
	s = strings.TrimSpace(s)
	const max = 160
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
