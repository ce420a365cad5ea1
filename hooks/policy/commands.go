package policy

import (
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// inert commands only read, whatever their arguments: none of their options
// writes a file, runs a program or assigns a shell variable.
var inert = sync.OnceValue(func() map[string]bool {
	return set(
		"cat", "head", "tail", "grep", "egrep", "fgrep", "wc", "ls", "echo", "cut", "tr",
		"diff", "cmp", "comm", "stat", "du", "df", "pwd", "basename", "dirname",
		"realpath", "readlink", "which", "whereis", "type", "uname", "id", "whoami", "groups",
		"ps", "pgrep", "printenv", "true", "false", ":", "seq", "expr", "nl", "paste", "join",
		"fold", "fmt", "column", "rev", "tac", "od", "hexdump", "strings", "md5sum", "sha1sum",
		"sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum",
		"base32", "jq", "tty", "nproc", "locale", "uptime", "free", "cal", "getconf",
		"sleep", "cd", "pushd", "popd", "dirs",
		"numfmt", "tsort", "look", "expand", "unexpand", "zcat",
		"lscpu", "logname", "users", "who", "shellcheck", "help", "shasum", "lsblk", "bc", "yes", "lsof",
	)
})

// checks hold the commands that are read-only only in some forms. Each gets
// the arguments after the command name.
var checks map[string]func(c *checker, n syntax.Node, args []arg) bool

func init() {
	checks = map[string]func(c *checker, n syntax.Node, args []arg) bool{
		"find":     checkFind,
		"fd":       optionsOnly("fd"),
		"fdfind":   optionsOnly("fd"),
		"sort":     optionsOnly("sort"),
		"base64":   optionsOnly("base64"),
		"jobs":     optionsOnly("jobs"),
		"man":      checkMan,
		"tar":      checkTar,
		"xxd":      checkXxd,
		"gofmt":    optionsOnly("gofmt"),
		"uniq":     checkUniq,
		"sed":      checkSed,
		"awk":      checkAwk,
		"gawk":     checkAwk,
		"mawk":     checkAwk,
		"nawk":     checkAwk,
		"tree":     optionsOnly("tree"),
		"date":     checkDate,
		"hostname": checkHostname,
		"arch":     checkArch,
		"tee":      checkTee,
		"git":      checkGit,
		"rg":       optionsOnly("rg"),
		"ag":       optionsOnly("ag"),
		"file":     optionsOnly("file"),
		"getent":   optionsOnly("getent"),
		"yq":       checkYq,
		"go":       checkGo,
		"npm":      checkNpm,
		"printf":   checkPrintf,
		"read":     checkRead,
		"unset":    checkUnset,
		"set":      checkSet,
		"shopt":    checkShopt,
		"test":     checkTest,
		"exit":     checkCounts,
		"return":   checkCounts,
		"break":    checkCounts,
		"continue": checkCounts,
		"shift":    checkCounts,
		"diff3":    optionsOnly("diff3"),
		"[":        checkTest,
	}
}

// awkNames are the awk implementations checkAwk judges.
var awkNames = sync.OnceValue(func() map[string]bool {
	return set("awk", "gawk", "mawk", "nawk")
})

// looseArgs are checked commands whose rule judges computed arguments
// itself, because they are common in read-only scripts ([ -f "$f" ]).
var looseArgs = sync.OnceValue(func() map[string]bool {
	return set("test", "[", "printf")
})

// denied names commands that are refused with a specific rule rather than
// the generic "not on the list" one.
var denied = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"eval": "eval", "exec": "eval", "source": "eval", ".": "eval", "trap": "eval",
		"alias": "eval", "hash": "eval", "enable": "eval", "mapfile": "eval", "readarray": "eval",
		"complete": "eval", "let": "arithmetic",
		"bash": "interpreter", "sh": "interpreter", "zsh": "interpreter", "dash": "interpreter",
		"ksh": "interpreter", "fish": "interpreter", "csh": "interpreter", "tcsh": "interpreter",
		"python": "interpreter", "python3": "interpreter", "python2": "interpreter",
		"node": "interpreter", "nodejs": "interpreter", "deno": "interpreter", "bun": "interpreter",
		"perl": "interpreter", "ruby": "interpreter", "php": "interpreter", "lua": "interpreter",
		"tclsh": "interpreter", "osascript": "interpreter", "pwsh": "interpreter", "Rscript": "interpreter",
	}
})

// interpreters may print their version (--version, node's and perl's -v,
// and -V where it only prints, versionV): nothing else of theirs is
// read-only enough to allow. To ruby -v is also "be verbose" and goes on to
// run its input.
var interpreters = sync.OnceValue(func() map[string]bool {
	return set("python", "python3", "node", "nodejs", "ruby", "perl", "php", "bash", "sh", "zsh", "deno", "bun", "lua")
})

// versionV are the interpreters whose -V prints the version (python) or the
// configuration (perl) and exits. To dash (Debian's sh) and zsh -V is a
// shell option, and with no script they go on to run their input (review
// CH1: echo mark | sh -V).
var versionV = sync.OnceValue(func() map[string]bool {
	return set("python", "python3", "perl")
})

// builtins are the allowed commands bash and zsh both run themselves,
// never looking them up in PATH. Not shopt or help: they are bash's alone,
// and zsh runs whatever PATH finds under those names.
var builtins = sync.OnceValue(func() map[string]bool {
	return set("echo", "printf", "pwd", "cd", "pushd", "popd", "dirs", "true", "false", ":",
		"test", "[", "read", "unset", "set", "exit", "return", "break", "continue",
		"shift", "type", "jobs", "command", "builtin")
})

// systemDirs hold the standard programs; a command named by a path inside
// them is judged as its base name. Any other path runs a script.
var systemDirs = sync.OnceValue(func() map[string]bool {
	return set("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin")
})

// call judges one simple command with its assignments.
func (c *checker) call(ce *syntax.CallExpr) {
	exported := len(ce.Args) > 0
	for _, a := range ce.Assigns {
		if a.Name != nil && a.Name.Value == "IFS" && exported && ce.Args[0].Lit() == "read" && len(ce.Assigns) == 1 {
			continue // "IFS= read -r line" only changes how read splits
		}
		if a.Name != nil && forbiddenAssign(a, exported || c.inherits(a.Name.Value)) {
			c.fail("env-var", ce, a.Name.Value)
			return
		}
	}
	if len(ce.Args) == 0 {
		return
	}
	args := analyseAll(ce.Args)
	if c.keywordOption() {
		// bash's keyword option (set -k) takes every argument written as
		// an assignment for one, exported to the command: npm ls
		// NODE_OPTIONS=--require=./x.js ran x.js (review CN8).
		for _, w := range ce.Args[1:] {
			if name, ok := assignmentWord(w); ok && forbiddenValue(name, "", false, true) {
				c.fail("env-var", ce, name+" (the user's shell has set -k, so an argument NAME=VALUE is an assignment)")
				return
			}
		}
	}
	if c.userDefined(ce, args[0], true) && c.foundOutside(ce, args[0], true) {
		c.argv(ce, args, false)
	}
}

// KeywordOption is what the policy asks Config.ShellDefines to learn
// whether the user's shell has bash's keyword option on (set -k).
const KeywordOption = "set -o keyword"

// keywordOption reports whether the user's shell takes assignments after
// the command name (Config.ShellDefines answers KeywordOption).
func (c *checker) keywordOption() bool {
	return c.shellDefines != nil && c.shellDefines(KeywordOption) != ""
}

// CommandSkipsBuiltins is what the policy asks Config.ShellDefines to
// learn whether the user's shell is zsh, whose command builtin runs only
// programs found in PATH, never a builtin (unless POSIX_BUILTINS is set):
// "command cd sub" there runs the command-not-found handler.
const CommandSkipsBuiltins = "command skips builtins"

// commandSkipsBuiltins reports whether command NAME looks NAME up in PATH
// even when it is a builtin (Config.ShellDefines answers
// CommandSkipsBuiltins).
func (c *checker) commandSkipsBuiltins() bool {
	return c.shellDefines != nil && c.shellDefines(CommandSkipsBuiltins) != ""
}

// assignmentWord reports whether w reads to bash as an assignment, NAME=
// written out at its start, and the NAME.
func assignmentWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 0 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(l.Value, "=")
	if !ok || !isName(name) {
		return "", false
	}
	return name, true
}

// userDefined reports whether name runs as itself, not as an alias or a
// function of the user's shell startup (Config.ShellDefines), failing
// otherwise. direct is false for a name run through command or builtin,
// which skip aliases and functions; zsh's chpwd still runs at every change
// of folder, whichever way cd, pushd or popd is run.
func (c *checker) userDefined(n syntax.Node, name arg, direct bool) bool {
	if c.shellDefines == nil || !name.known {
		return true
	}
	if direct {
		if why := c.shellDefines(name.val); why != "" {
			return c.deny(n, "shell-function", why)
		}
	}
	if name.val == "cd" || name.val == "pushd" || name.val == "popd" {
		if why := c.shellDefines("chpwd"); why != "" {
			return c.deny(n, "shell-function", why+", which zsh runs at every change of folder")
		}
	}
	return true
}

// foundOutside reports whether the program a command runs, and those it
// starts by name, can only be found outside the project
// (Config.PathLookup), failing otherwise. That holds for a program named by
// its path too (/usr/bin/zcat runs gzip by name), except plansmith's own
// binary, which starts none. The shell runs its builtins itself; a program
// run by env, xargs, find -exec and the like is always a program, whatever
// its name (/usr/bin/echo).
func (c *checker) foundOutside(n syntax.Node, name arg, shell bool) bool {
	if c.pathLookup == nil || !name.known || name.val == "" || shell && builtins()[name.val] ||
		strings.Contains(name.val, "/") && c.isPlansmith(name) {
		return true
	}
	if why := c.pathLookup(name.val); why != "" {
		if shim, ok := strings.CutPrefix(why, shimMark); ok {
			return c.deny(n, "version-shim", shim)
		}
		if missing, ok := strings.CutPrefix(why, missingMark); ok {
			return c.deny(n, "not-installed", missing)
		}
		if unknown, ok := strings.CutPrefix(why, unknownMark); ok {
			if c.found == nil {
				c.found = &finding{rule: "path-lookup", words: "path-unknown", what: c.text(n), detail: unknown}
			}
			return false
		}
		return c.deny(n, "path-lookup", why)
	}
	return true
}

// hasDotDot reports whether the path p has a ".." component.
func hasDotDot(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// argv judges a command line given as words: args[0] is the command. tail is
// true when more arguments of unknown value will be appended (xargs).
func (c *checker) argv(n syntax.Node, args []arg, tail bool) {
	if c.isPlansmith(args[0]) {
		c.plansmith(n, args[1:], tail)
		return
	}
	name := args[0]
	if !name.known || hasGlob(name.word) || name.val == "" {
		c.fail("dynamic-command", n, "")
		return
	}
	cmd := name.val
	if strings.Contains(cmd, "/") {
		// A ".." is resolved by the kernel from where the links before it
		// lead, not from the folder the text names: /p/l/../../usr/bin/cat
		// runs the project's usr/bin/cat when l is a link into it (review
		// BJ1), though path.Dir cleans it to /usr/bin.
		if !systemDirs()[path.Dir(cmd)] || hasDotDot(cmd) {
			c.fail("script", n, cmd)
			return
		}
		cmd = path.Base(cmd)
	}
	if c.configAllows(cmd, args[1:]) {
		return
	}
	if w, ok := wrappers()[cmd]; ok {
		c.wrapper(n, cmd, w, args, tail)
		return
	}
	if inert()[cmd] {
		return
	}
	check, ok := checks[cmd]
	if !ok {
		if interpreters()[cmd] && len(args) == 2 && args[1].known && (args[1].val == "--version" ||
			args[1].val == "-V" && versionV()[cmd] || args[1].val == "-v" && (cmd == "node" || cmd == "nodejs" || cmd == "perl")) {
			return
		}
		if r, ok := denied()[cmd]; ok && r != "" {
			detail := cmd
			if interpreters()[cmd] && len(args) == 2 && args[1].known && (args[1].val == "-V" || args[1].val == "-v") {
				// What looks like a version option is not one to this
				// interpreter (review CH1): say so, or the agent retries.
				detail = cmd + " " + args[1].val + " is not a version option to " + cmd + ": it sets an option, then runs its standard input as code"
			}
			c.fail(r, n, detail)
			return
		}
		c.fail("unknown-command", n, cmd+" is not on the read-only list")
		return
	}
	// These commands change meaning with their options, so every argument
	// must be known or unable to become an option, unless the rule itself
	// deals with computed values.
	if !looseArgs()[cmd] {
		judged := args[1:]
		if awkNames()[cmd] {
			// awk reads no options after its program: the words after it
			// are files or assignments, whatever a glob makes of them.
			if end := grammarOf("awk").parse(judged, reading{on: gnuOnly}).end; end < len(judged) {
				judged = judged[:end+1]
			}
		}
		for i, a := range judged {
			if !a.inert() && !(cmd == "git" && longValue(a)) && !c.operandFrom(cmd, judged, i) {
				c.fail("dynamic-arg", n, c.computed(a))
				return
			}
		}
	}
	if tail {
		c.fail("dynamic-arg", n, "xargs appends arguments read from its input")
		return
	}
	check(c, n, args[1:])
}

// readsOperands maps the commands judged by their options alone whose
// operands are only read (files, folders, patterns) to their grammar.
var readsOperands = sync.OnceValue(func() map[string]string {
	return map[string]string{"file": "file", "sort": "sort", "rg": "rg", "ag": "ag", "fd": "fd", "fdfind": "fd",
		"tree": "tree", "base64": "base64", "diff3": "diff3"}
})

// operandFrom reports whether cmd reads args[i] as an operand however it
// expands, so that a computed word there is only something to read: the
// options have ended before it in every build (sort -- *, file -- "$f").
func (c *checker) operandFrom(cmd string, args []arg, i int) bool {
	key, ok := readsOperands()[cmd]
	return ok && grammarOf(key).optionsOver(args, i)
}

// configAllows reports whether a project entry allows cmd with args.
func (c *checker) configAllows(cmd string, args []arg) bool {
next:
	for _, entry := range c.allow {
		if entry[0] != cmd || len(args) < len(entry)-1 {
			continue
		}
		for i, want := range entry[1:] {
			if !args[i].known || args[i].val != want {
				continue next
			}
		}
		return true
	}
	return false
}

// isPlansmith recognises the plansmith binary: by its name alone (found on
// PATH, which a command may not change), in the plugin form
// "${CLAUDE_PLUGIN_ROOT}/bin/plansmith", or at one of the Config's
// absolute paths. ./plansmith or tools/plansmith would run a file of the
// project.
func (c *checker) isPlansmith(a arg) bool {
	if a.known {
		if hasGlob(a.word) {
			return false
		}
		return a.val == "plansmith" ||
			path.IsAbs(a.val) && path.Base(a.val) == "plansmith" && c.ours != nil && c.ours(a.val)
	}
	parts := a.word.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 2 {
		return false
	}
	p := plainParam(parts[0])
	if p == nil || p.Short || p.Param.Value != "CLAUDE_PLUGIN_ROOT" {
		return false
	}
	l, ok := parts[1].(*syntax.Lit)
	return ok && l.Value == "/bin/plansmith"
}

// plansmith allows exactly the binary's read-only commands, and cancel when
// the user asked for it (Config.CancelAsked).
func (c *checker) plansmith(n syntax.Node, args []arg, tail bool) {
	words := make([]string, len(args))
	for i, a := range args {
		if !a.known {
			words[i] = "\x00" // an unknown value, allowed only as a file operand
			if !a.single {
				words[i] = "\x01"
			}
			continue
		}
		words[i] = a.val
	}
	form := strings.Join(words, " ")
	if !tail {
		switch form {
		case "cancel":
			if !c.cancelAsked {
				c.fail("plansmith-cancel", n, "")
			}
			return
		case "status", "status --json", "memory show", "memory path", "version", "policy",
			"gate check-findings", "gate check-verdict",
			"plans", "plans --json", "plans show", "plans show --name-from-stdin":
			return
		}
		if len(words) == 3 && words[0] == "plans" && words[1] == "show" && words[2] != "\x01" && !strings.HasPrefix(words[2], "-") {
			return
		}
		if len(words) == 3 && words[0] == "gate" && gateReader[words[1]] && words[2] != "\x01" {
			return
		}
	}
	c.fail("plansmith", n, "")
}

// gateReader are the gate subcommands that read the plan file they are
// given and print; they write nothing.
var gateReader = set("critic-prompt", "validator-prompt", "critic-input", "leakage")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// computed names the argument a dynamic-arg refusal is about, so that the
// agent knows which word to write out.
func (c *checker) computed(a arg) string {
	if a.word == nil {
		return ""
	}
	if a.glob {
		return c.text(a.word) + " expands to file names, and one the project carries could read as an option"
	}
	return c.text(a.word) + " is computed at run time"
}

func (c *checker) deny(n syntax.Node, rule, detail string) bool {
	c.fail(rule, n, detail)
	return false
}

// literal gives a word that names a subcommand (or a variable, or a config
// key) when the word is written out in full. A value computed at run time
// is refused: its known start would match a name ("diff" of "diff$x") that
// the whole word is not ("difftool").
func (c *checker) literal(n syntax.Node, a arg, what string) (string, bool) {
	if a.known {
		return a.val, true
	}
	return "", c.deny(n, "dynamic-arg", what+" computed at run time: "+c.text(a.word))
}

// longValue reports whether a is "--name=" followed by a computed value: the
// value cannot become another option, and the name is still checked.
func longValue(a arg) bool {
	name, _, ok := strings.Cut(a.val, "=")
	return ok && a.single && len(name) > 2 && strings.HasPrefix(name, "--") && isOptionName(name[2:])
}

func isOptionName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return s != ""
}
