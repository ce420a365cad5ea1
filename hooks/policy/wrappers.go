package policy

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// wrapperSpec describes a command that runs another command: its options
// (so they can be skipped), how many operands precede the wrapped command,
// and whether it may run with no command at all.
type wrapperSpec struct {
	flags   string   // short options without a value
	valued  string   // short options with a value (glued or next word)
	long    []string // long options without a value
	longVal []string // long options with a value (--x=v or --x v)
	// longOpt are long options whose value is optional, so that getopt
	// takes one only when glued with "=": the next word is not theirs.
	longOpt []string
	refuse  string // short options that change what runs or write
	// refuseLong are long options refused for the same reason.
	refuseLong []string
	operands   int  // words before the command, e.g. timeout's duration
	noCommand  bool // allowed with no command (env prints, xargs echoes)
	assigns    bool // NAME=VALUE words before the command (env)
	numeric    bool // accepts -N (nice -5)
}

var wrappers = sync.OnceValue(func() map[string]wrapperSpec {
	return map[string]wrapperSpec{
		// env -C runs the command in another folder, where it may read that
		// folder's configuration (npm's .npmrc).
		// env -i and -u drop variables the user may have set to keep tools
		// in check (GOTOOLCHAIN=local): -u is judged as unset is, -i refused.
		"env": {flags: "0v", valued: "u", long: []string{"--null", "--debug"},
			longVal: []string{"--unset"}, refuse: "SCi", refuseLong: []string{"--split-string", "--chdir", "--ignore-environment"},
			noCommand: true, assigns: true},
		"nice":    {valued: "n", longVal: []string{"--adjustment"}, noCommand: true, numeric: true},
		"nohup":   {},
		"timeout": {flags: "vf", valued: "ks", long: []string{"--preserve-status", "--foreground", "--verbose"}, longVal: []string{"--kill-after", "--signal"}, operands: 1},
		"command": {flags: "p"},
		"builtin": {},
		"time":    {flags: "pvaq", valued: "f", long: []string{"--portability", "--verbose", "--append", "--quiet"}, longVal: []string{"--format"}, refuse: "o", refuseLong: []string{"--output"}},
		"stdbuf":  {valued: "ioe", longVal: []string{"--input", "--output", "--error"}},
		"ionice":  {flags: "t", valued: "cn", longVal: []string{"--class", "--classdata"}, refuse: "pPu", refuseLong: []string{"--pid", "--pgid", "--uid"}, noCommand: true},
		// sudo -D runs the command in another folder, as env -C does.
		"sudo": {flags: "EHnPSbkl", valued: "ugCphrtUT", long: []string{"--preserve-env", "--set-home", "--non-interactive", "--stdin", "--background", "--reset-timestamp"},
			longVal: []string{"--user", "--group", "--prompt", "--host", "--other-user"},
			refuse:  "esivKVD", refuseLong: []string{"--edit", "--shell", "--login", "--validate", "--remove-timestamp", "--chdir"}},
		"xargs": {flags: "0rtxp", valued: "adEILnPs", long: []string{"--null", "--no-run-if-empty", "--verbose", "--exit", "--interactive", "--open-tty"},
			longVal: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars"},
			// GNU xargs takes --eof[=E], --max-lines[=N] and --replace[=R]:
			// "xargs --eof mark" runs mark, it does not end the input at
			// "mark" (review CD1).
			longOpt:    []string{"--eof", "--max-lines", "--replace"},
			refuseLong: []string{"--process-slot-var"}, noCommand: true},
	}
})

// wrapper skips a wrapper's own options and judges the command it runs.
func (c *checker) wrapper(n syntax.Node, name string, w wrapperSpec, args []arg, tail bool) {
	if name == "nohup" {
		// nohup appends the output to ./nohup.out (or ~/nohup.out) when its
		// standard output is a terminal, as under Codex's PTY sessions.
		c.fail("wrapper-option", n, "nohup writes nohup.out when its output is a terminal")
		return
	}
	replace := ""
	// GNU xargs drops -I's replace string when -L, -l, -n, --max-lines or
	// --max-args comes after it, and appends the input instead: with any
	// of them the command is judged as one that gets more arguments.
	limited := false
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if !a.inert() {
			c.fail("dynamic-arg", n, c.computed(a))
			return
		}
		v := a.val
		if !a.known || v == "" || v[0] != '-' || v == "-" {
			break
		}
		if name == "command" && (v == "-v" || v == "-V") {
			return // prints what a name would run
		}
		if v == "--" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			key, _, hasVal := strings.Cut(v, "=")
			switch {
			case contains(w.refuseLong, key):
				c.fail("wrapper-option", n, name+" "+key)
				return
			case contains(w.long, key):
			case contains(w.longOpt, key):
				if name == "xargs" && key == "--max-lines" {
					limited = true
				}
				if name == "xargs" && key == "--replace" {
					replace = "{}"
					if hasVal {
						_, replace, _ = strings.Cut(v, "=")
					}
				}
			case contains(w.longVal, key):
				if name == "xargs" && key == "--max-args" {
					limited = true
				}
				val := ""
				if hasVal {
					_, val, _ = strings.Cut(v, "=")
				} else {
					i++
					if i < len(args) && !oneWord(args[i]) {
						c.fail("dynamic-arg", n, manyWordsValue)
						return
					}
					if i < len(args) {
						if !args[i].known {
							val = "$"
						} else {
							val = args[i].val
						}
					}
				}
				if name == "env" && key == "--unset" && !unsettable(val) {
					c.fail("env-var", n, "env --unset "+val)
					return
				}
			default:
				c.fail("wrapper-option", n, name+" "+key)
				return
			}
			continue
		}
		if w.numeric && isNumber(v[1:]) {
			continue
		}
		// A bundle of short options, the last of which may take a value.
		for j := 1; j < len(v); j++ {
			f := v[j]
			switch {
			case strings.IndexByte(w.refuse, f) >= 0:
				c.fail("wrapper-option", n, name+" -"+string(f))
				return
			case name == "xargs" && f == 'i':
				replace = "{}"
				if j+1 < len(v) {
					replace = v[j+1:]
				}
				j = len(v)
			case name == "xargs" && (f == 'e' || f == 'l'):
				limited = limited || f == 'l'
				j = len(v) // optional glued value
			case strings.IndexByte(w.flags, f) >= 0:
			case strings.IndexByte(w.valued, f) >= 0:
				val := v[j+1:]
				if val == "" {
					i++
					if i < len(args) {
						if !oneWord(args[i]) {
							c.fail("dynamic-arg", n, manyWordsValue)
							return
						}
						val = args[i].val
					}
				}
				if name == "xargs" && f == 'I' {
					replace = val
				}
				if name == "env" && f == 'u' && (!unsettable(val) || val == "" && !(i < len(args) && args[i].known)) {
					c.fail("env-var", n, "env -u "+val)
					return
				}
				if name == "xargs" && (f == 'L' || f == 'n') {
					limited = true
				}
				j = len(v)
			default:
				c.fail("wrapper-option", n, name+" -"+string(f))
				return
			}
		}
	}
	if w.assigns {
		for ; i < len(args) && args[i].known && strings.Contains(args[i].val, "="); i++ {
			key, val, _ := strings.Cut(args[i].val, "=")
			if !isName(key) || forbiddenValue(key, val, true, true) {
				c.fail("env-var", n, key)
				return
			}
		}
	}
	i += w.operands
	if i >= len(args) {
		if tail {
			// Under xargs the input would supply the command itself
			// ("xargs env" runs whatever the input names).
			c.fail("dynamic-command", n, "xargs input would name the command "+name+" runs")
			return
		}
		if w.noCommand {
			return
		}
		c.fail("wrapper-option", n, name+" without a command")
		return
	}
	inner := append([]arg(nil), args[i:]...)
	if name == "xargs" {
		tail = true
		if replace != "" && !limited {
			tail = false // with -I the input replaces the marker instead
			for k := range inner {
				if strings.Contains(inner[k].val, replace) {
					inner[k].known = false
					inner[k].val, _, _ = strings.Cut(inner[k].val, replace)
				}
			}
		}
	}
	// command and builtin are the shell's own: what they run may be a
	// builtin, and zsh's chpwd runs for their cd too. zsh's command runs
	// programs only: "command cd sub" looks for a program cd, and where
	// none is installed zsh runs the command-not-found handler of the
	// user's shell startup with "cd sub" (review CR1).
	shellRuns := name == "builtin" || name == "command" && !c.commandSkipsBuiltins()
	if name == "command" && !shellRuns && inner[0].known && builtins()[inner[0].val] && c.pathLookup != nil {
		if missing, ok := strings.CutPrefix(c.pathLookup(inner[0].val), missingMark); ok {
			c.fail("not-installed", n, "zsh's command runs only a program named "+inner[0].val+", never the shell's own, and "+
				missing+": write "+inner[0].val+" without command (builtin "+inner[0].val+" runs the shell's own)")
			return
		}
	}
	if (name != "command" && name != "builtin" || c.userDefined(n, inner[0], false)) &&
		c.foundOutside(n, inner[0], shellRuns) {
		c.argv(n, inner, tail)
	}
}

// unsettable reports whether env -u may drop the variable name: a name
// written out that a command could not set either (GOTOOLCHAIN, GIT_*,
// LESS*: a user may have set them to keep tools in check).
func unsettable(name string) bool {
	return isName(name) && !forbiddenVar(name, false)
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
