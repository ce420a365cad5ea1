package templates

import (
	"strings"
	"sync"
)

// How plansmith is installed decides how its texts name its commands: a
// plugin has /plansmith:cancel, a settings install (`plansmith install`)
// writes /plansmith-cancel, and a shell runs the binary as `plansmith` only
// when that name on PATH is this binary. Every text names commands through
// Slash and CLI (the templates' `slash` and `cli`), so no message sends a
// user to a command that does not exist where it runs.

// Install kinds.
const (
	KindPlugin   = "plugin"
	KindSettings = "settings"
	// KindCodex is a Codex CLI hook's process: Codex has no slash
	// commands. A loop starts with the plansmith-plan skill (install's
	// CodexSkill), and everything else is the binary's own command, which
	// the agent may run there or the user in a terminal.
	KindCodex = "codex"
)

// Names is how texts name plansmith's commands in one install.
type Names struct {
	Kind string // KindPlugin or KindSettings
	CLI  string // how a shell runs the binary: "plansmith", or its quoted path
}

var (
	namesMu   sync.Mutex
	namesFunc = func() Names { return Names{Kind: KindPlugin, CLI: "plansmith"} }
	names     func() Names
)

// SetNames tells the texts how commands are named in this process's
// install. find is called once, the first time a text names a command, so
// a process that shows no such text (most hook calls) pays nothing for it.
func SetNames(find func() Names) {
	namesMu.Lock()
	defer namesMu.Unlock()
	namesFunc = find
	names = nil
}

func currentNames() Names {
	namesMu.Lock()
	defer namesMu.Unlock()
	if names == nil {
		names = sync.OnceValue(namesFunc)
	}
	return names()
}

// Slash is the slash command that runs plansmith's command name (plan,
// cancel, gate, implement, status, memory, help) in this install; in
// Codex, the skill or the command line that does.
func Slash(name string) string {
	switch currentNames().Kind {
	case KindSettings:
		return "/plansmith-" + name
	case KindCodex:
		if name == "plan" {
			return "$plansmith-plan"
		}
		return "`" + CLI(name) + "`"
	}
	return "/plansmith:" + name
}

// Codex reports whether the texts are for a Codex CLI hook's process, where
// some of plansmith's commands have no counterpart: /plansmith:implement is
// a Claude Code command, and the binary has no implement command either.
func Codex() bool { return currentNames().Kind == KindCodex }

// CLI is a shell command line running plansmith with args, spelled so that
// it works where it is shown: `plansmith ARGS` only when that is this
// binary, else by its path.
func CLI(args string) string {
	return strings.TrimSpace(currentNames().CLI + " " + args)
}
