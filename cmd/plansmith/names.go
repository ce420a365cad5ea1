package main

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/plansmith/plansmith/install"
	"github.com/plansmith/plansmith/templates"
)

// installNames finds how this install names plansmith's commands, for every
// text that names one (templates.Slash, templates.CLI):
//   - the kind: Codex's when the model runs it in Codex (insideCodex);
//     else $PLANSMITH_INSTALL when the launcher (plugin) or a settings
//     install's hook command sets it; else a plugin when Claude Code runs us
//     as one ($CLAUDE_PLUGIN_ROOT); else a settings install when its command
//     files exist in the project or the user's .claude/commands (command
//     files cannot set a variable: the read-only policy refuses assignments);
//     else the plugin's names;
//   - the shell spelling: `plansmith` when that name on PATH is this very
//     binary, else the binary's absolute path, quoted.
func installNames(getenv func(string) string, getwd func() (string, error)) templates.Names {
	n := templates.Names{Kind: templates.KindPlugin, CLI: shellName()}
	if insideCodex(getenv) {
		// The model runs it in Codex (plansmith status, plans show): it
		// relays the text to a user who has no slash commands (review FA2).
		n.Kind = templates.KindCodex
		return n
	}
	switch getenv(install.KindEnv) {
	case templates.KindSettings:
		n.Kind = templates.KindSettings
	case templates.KindPlugin:
	default:
		if getenv("CLAUDE_PLUGIN_ROOT") == "" && settingsCommands(getenv, getwd) {
			n.Kind = templates.KindSettings
		}
	}
	return n
}

// insideCodex reports whether this process is a command the model runs in
// Codex CLI: Codex gives each one its thread's id and its tool call's (a
// shell that merely inherited the thread's id has no call, review BO8), and
// Claude Code's Bash tool gives its own session's id.
func insideCodex(getenv func(string) string) bool {
	return getenv("CODEX_THREAD_ID") != "" && getenv("CODEX_TOOL_CALL_ID") != "" && getenv("CLAUDE_CODE_SESSION_ID") == ""
}

// settingsCommands reports whether a settings install's command files are
// in the project's or the user's .claude/commands.
func settingsCommands(getenv func(string) string, getwd func() (string, error)) bool {
	var dirs []string
	if p := getenv("CLAUDE_PROJECT_DIR"); p != "" {
		dirs = append(dirs, p)
	} else if wd, err := getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	if h := getenv("HOME"); h != "" {
		dirs = append(dirs, h)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, ".claude", "commands", install.CommandPrefix+"cancel.md")); err == nil {
			return true
		}
	}
	return false
}

// shellName is how a shell runs this binary.
func shellName() string {
	exe, err := os.Executable()
	if err != nil {
		return "plansmith"
	}
	if p, err := exec.LookPath("plansmith"); err == nil {
		a, errA := os.Stat(p)
		b, errB := os.Stat(exe)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return "plansmith"
		}
	}
	if bin, err := selfBinary(exe); err == nil {
		return install.Quote(bin) // a plugin tree's launcher, not its placed binary
	}
	return install.Quote(exe)
}
