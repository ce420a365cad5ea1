package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// ConfigFile is where a project extends the read-only allow-list, relative to
// the project directory.
const ConfigFile = ".claude/plansmith-policy.yaml"

// Config is a project's extension of the policy.
//
// The file .claude/plansmith-policy.yaml holds two keys, allow and tools:
//
//	allow:
//	  - tokei
//
// Each entry is a command name followed by an optional fixed prefix of its
// arguments, separated by spaces. A command is allowed when its name and its
// first arguments equal an entry's words; its remaining arguments are free.
// Everything else still applies: redirects must not write files, command
// substitutions inside it are judged on their own, and wrappers such as env
// or xargs are looked through. An entry is checked before the built-in
// rules, so it can allow anything, including a wrapper with whatever it runs
// ("xargs" would allow "xargs rm"): name the real command. Such a file
// counts only once the user has approved it as it stands (trust.go): a
// repository can carry one.
//
// A second key, tools, names tools other than the built-in read-only ones
// that may run while planning, such as a read-only MCP server's: an exact
// name, or a prefix ending in "*" (mcp__docs__*). The editing tools stay
// refused and Bash stays judged whatever it lists.
type Config struct {
	Allow []string `yaml:"allow"`
	Tools []string `yaml:"tools"`
	// Ours reports whether an absolute path names plansmith itself (the
	// binary judging the call, or the plugin's launcher), whose read-only
	// commands may run. A file named plansmith anywhere else (a project may
	// carry one) is judged like any other program. Set by the caller, not
	// the file; nil allows only the name alone and the plugin form.
	Ours func(path string) bool `yaml:"-"`
	// NpmConfig returns the path of an .npmrc that npm would read as the
	// project's configuration where the call runs, or "" when there is
	// none. npm takes settings from that file that the command line cannot
	// see (cache, logs-dir, git: the program it runs for git specs), and a
	// repository can carry one, so npm is refused where there is one. Set
	// by the caller, who looks lazily (only for an npm command); nil means
	// none was looked for, as in the policy's own tests.
	NpmConfig func() string `yaml:"-"`
	// GitRepository says why git started in dir would take a folder the
	// project carries as plain files for its repository (a bare
	// repository: HEAD and objects, whose config names programs git runs),
	// or "" when it would find the .git of a real checkout or nothing.
	// dir is where git's -C options lead, joined as chdir takes them, ""
	// for none; a relative dir is from the session's folder. Set by the
	// caller, who looks only for a git command; nil means none was looked
	// for, as in the policy's own tests.
	GitRepository func(dir string) string `yaml:"-"`
	// GitShowsSignatures reports whether the user's own git configuration
	// turns signature display on (log.showSignature): git log and git show
	// then run the verifier each signature's armour names, as with
	// --show-signature. Set by the caller, who looks only for a git
	// command; nil means none was looked for.
	GitShowsSignatures func() bool `yaml:"-"`
	// GoToolchain says why go, run where the call starts, would download
	// and run a toolchain other than the one installed (a go.mod's or
	// go.work's go or toolchain line newer than it, with GOTOOLCHAIN=auto,
	// Go's default), or "". Set by the caller, who looks only for a go
	// command; nil means none was looked for.
	GoToolchain func() string `yaml:"-"`
	// GoVCS says why go list, run where the call starts, would run a
	// version control program on a repository whose configuration may
	// name programs it runs, or "": for a main package go stamps version
	// control information into the build info (git status and git log, or
	// hg, svn, bzr, fossil), in the repository found from where it starts
	// (review AQ1). Set by the caller, who looks only for a go list that
	// stamps; nil means none was looked for.
	GoVCS func() string `yaml:"-"`
	// Inherited reports whether the shell the command runs in may already
	// export name: the hook's own environment holds it (Claude Code and
	// Codex start the shell and the hooks from one environment). A plain
	// assignment to such a name (X=v; cmd) reaches the programs cmd starts
	// as an export does, and is judged as one (review AQ2:
	// PYENV_VERSION=../..$PWD/evil; python3 --version ran a project file
	// where pyenv shell had exported it). nil means none is.
	Inherited func(name string) bool `yaml:"-"`
	// Blind is set when the command may run in a folder other than the
	// session's and with a terminal, neither of which the caller is told
	// (Codex's exec_command: its workdir and tty reach no hook). git and
	// npm, which take settings from the folder they run in, and man, whose
	// pager runs commands typed into it, are then refused; so is git for
	// its pager too.
	Blind bool `yaml:"-"`
	// AgentDefinition says why the sub-agent named (an Agent or Task call's
	// subagent_type) would not run as a read-only sub-agent, from its
	// definition's frontmatter (isolation: worktree; mcpServers, hooks,
	// skills or any setting not known to be inert), or "". Set by the
	// caller, who reads the definitions; nil means none were read.
	AgentDefinition func(agent string) string `yaml:"-"`
	// CancelAsked is set when the user's own last prompt asked to end the
	// loop (/plansmith:cancel): only then may plansmith cancel run. Text
	// the agent reads (a README, a web page, a sub-agent's reply) can tell
	// it to cancel and then write; the user's prompt is the one thing it
	// cannot forge. Set by the caller from the loop's state.
	CancelAsked bool `yaml:"-"`
	// PathLookup says why a command run by name (not a shell builtin) could
	// run a file the project carries: the PATH it is looked up in has a
	// relative or empty entry (".", "node_modules/.bin") that comes before
	// the folder the program is found in, or the program is found in no
	// absolute folder, or in a version manager's shims, which run the
	// version a file of the project names (VersionShim), or in no folder
	// at all, when the shell would run the user's command-not-found
	// handler (NotInstalled). "" when the name can only find
	// a program outside the project. Set by the caller, who knows the PATH;
	// nil means none was looked for, as in the policy's own tests.
	PathLookup func(name string) string `yaml:"-"`
	// ShellDefines says why name, run as a command by the shell, would run
	// something the user's shell startup defines rather than the command
	// judged: an alias that runs another program (cd=cdnvm, cat=bat) or a
	// function by that name, as Claude Code's shell snapshot restores them
	// before every command (review CN5). Asked with "chpwd" too: zsh runs a
	// function of that name at every change of folder, so cd, pushd and
	// popd are refused while one is defined; and with KeywordOption, to
	// learn whether bash's set -k makes NAME=VALUE arguments assignments;
	// with CommandSkipsBuiltins, whether the shell is zsh, whose command
	// runs only programs (command cd looks for a program cd).
	// "" when nothing is. Set by the
	// caller, who reads the snapshots; nil means none were read.
	ShellDefines func(name string) string `yaml:"-"`
	// ShellEnv says why the environment a shell command runs in may not be
	// the hook's own, or "": Codex sets variables for every command from
	// a config file the repository can carry (shell_environment_policy in
	// .codex/config.toml, review CL3), so BASH_ENV, PATH or LD_PRELOAD may
	// name a project file that any command, however read-only, starts.
	// While it is set, every shell command is refused.
	ShellEnv string `yaml:"-"`
	// SettingsEnv says why a shell command may run with variables that a
	// settings file the repository carries sets, or "": Claude Code starts
	// every Bash command with the env of the project's
	// .claude/settings.json and .claude/settings.local.json, so BASH_ENV,
	// CLAUDE_ENV_FILE, ZDOTDIR or an exported function there runs a
	// program of the project with any command, however read-only (review
	// FD1). While it says so, every shell command is refused. Set by the
	// caller, who reads the files only for a shell command; nil means none
	// were read, as in the policy's own tests.
	SettingsEnv func() string `yaml:"-"`
	// CmdExe is set when Codex would run a command with a program named
	// cmd, found on PATH, for the shell "cmd" the model may name (cmd /c
	// <text>; always there on Windows): cmd.exe reads quotes and operators
	// otherwise than bash (cmdexe.go). Only with Blind.
	CmdExe bool `yaml:"-"`
}

// VersionShim marks a PathLookup answer that blames a version manager's
// shim, not the PATH: it is refused under its own rule (version-shim), whose
// advice fits (the PATH needs no change; the version files can be read).
func VersionShim(why string) string { return shimMark + why }

const shimMark = "\x1fversion-shim\x1f"

// NotInstalled marks a PathLookup answer for a program found in no folder
// of PATH: the shell would run its command-not-found handler instead, whose
// advice is not the PATH's (rule not-installed).
func NotInstalled(why string) string { return missingMark + why }

const missingMark = "\x1fnot-installed\x1f"

// PathUnknown marks a PathLookup answer given because the PATH the
// commands run with could not be read (a snapshot unreadable, a relative
// CLAUDE_CONFIG_DIR or CODEX_HOME): still rule path-lookup, but worded for
// a PATH nobody knows, not one shown to search the project (review FI4).
func PathUnknown(why string) string { return unknownMark + why }

const unknownMark = "\x1fpath-unknown\x1f"

func parseConfig(path string, data []byte) (Config, error) {
	var raw struct {
		Allow []yaml.Node `yaml:"allow"`
		Tools []yaml.Node `yaml:"tools"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	var cfg Config
	for _, n := range append(append([]yaml.Node(nil), raw.Allow...), raw.Tools...) {
		// The user reads the entries before trusting them: a control
		// character (a terminal escape) could hide one.
		if strings.IndexFunc(n.Value, unicode.IsControl) >= 0 {
			return Config{}, fmt.Errorf("%s: line %d: an entry holds a control character", path, n.Line)
		}
	}
	for _, n := range raw.Allow {
		if n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
			return Config{}, fmt.Errorf("%s: line %d: allow entries must be non-empty strings such as \"tokei\"", path, n.Line)
		}
		cfg.Allow = append(cfg.Allow, n.Value)
	}
	for _, n := range raw.Tools {
		if n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" || strings.ContainsAny(n.Value, " \t") {
			return Config{}, fmt.Errorf("%s: line %d: tools entries must be tool names such as mcp__docs__search, or a prefix ending in * such as mcp__docs__*", path, n.Line)
		}
		cfg.Tools = append(cfg.Tools, n.Value)
	}
	return cfg, nil
}

// parseAllow splits the Config entries into words once per judgement.
func parseAllow(cfg Config) [][]string {
	out := make([][]string, 0, len(cfg.Allow))
	for _, e := range cfg.Allow {
		if f := strings.Fields(e); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// allowsTool reports whether the project's Config names tool.
func (c Config) allowsTool(tool string) bool {
	for _, t := range c.Tools {
		if prefix, ok := strings.CutSuffix(t, "*"); ok && prefix != "" && strings.HasPrefix(tool, prefix) || t == tool {
			return true
		}
	}
	return false
}
