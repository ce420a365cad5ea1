package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Rules for commands that are read-only only in some forms. Each returns
// true when the form is allowed and otherwise records a finding.

func checkFind(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		switch a.val {
		case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
			return c.deny(n, "find-action", "find "+a.val)
		}
	}
	return true
}

func checkFd(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		v := a.val
		if longIs(v, "--exec") || longIs(v, "--exec-batch") || shortHas(v, 'x', "etdEcSo") || shortHas(v, 'X', "etdEcSo") {
			return c.deny(n, "exec-option", "fd "+v)
		}
	}
	return true
}

func checkSort(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		v := a.val
		if v == "--" {
			break
		}
		if longIs(v, "--output") || shortHas(v, 'o', "ktST") {
			return c.deny(n, "sort-output", "sort "+v)
		}
		if longIs(v, "--compress-program") {
			return c.deny(n, "exec-option", "sort "+v)
		}
	}
	return true
}

func checkUniq(c *checker, n syntax.Node, args []arg) bool {
	if len(positionals(args, "fsw", "--skip-fields", "--skip-chars", "--check-chars")) > 1 {
		return c.deny(n, "uniq-output", "")
	}
	return true
}

func checkTree(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		// tree takes bundled short options, so "-ao FILE" writes too.
		if shortHas(a.val, 'o', "PILHT") || shortHas(a.val, 'R', "PILHT") || longIs(a.val, "--output") {
			return c.deny(n, "tree-output", "tree "+a.val)
		}
	}
	return true
}

func checkDate(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		v := a.val
		if longIs(v, "--set") || shortHas(v, 's', "dfrI") {
			return c.deny(n, "date-set", "date "+v)
		}
	}
	for _, p := range positionals(args, "dfr", "--date", "--file", "--reference") {
		if !strings.HasPrefix(p.val, "+") {
			return c.deny(n, "date-set", "date "+p.val)
		}
	}
	return true
}

var hostnameReads = set("-f", "-s", "-i", "-I", "-d", "-a", "-A", "-y", "--fqdn", "--long", "--short",
	"--ip-address", "--all-ip-addresses", "--domain", "--alias", "--all-fqdns", "--nis", "--yp")

func checkHostname(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if !hostnameReads[a.val] {
			return c.deny(n, "hostname-set", "hostname "+a.val)
		}
	}
	return true
}

func checkTee(c *checker, n syntax.Node, args []arg) bool {
	for _, p := range positionals(args, "") {
		if !p.known || !sinkFile(p.val) {
			return c.deny(n, "tee", "tee "+p.val)
		}
	}
	return true
}

func checkRg(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if a.val == "--" {
			break
		}
		key, _, _ := strings.Cut(a.val, "=")
		if key == "--pre" || key == "--hostname-bin" {
			return c.deny(n, "exec-option", "rg "+key)
		}
	}
	return true
}

func checkAg(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if longIs(a.val, "--pager") {
			return c.deny(n, "exec-option", "ag --pager")
		}
	}
	return true
}

func checkFile(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if longIs(a.val, "--compile") || shortHas(a.val, 'C', "fmFeP") {
			return c.deny(n, "write-option", "file -C")
		}
	}
	return true
}

func checkYq(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		v := a.val
		if longIs(v, "--inplace") || longIs(v, "--split-exp") || shortHas(v, 'i', "IspoL") || shortHas(v, 's', "IpoL") {
			return c.deny(n, "write-option", "yq "+v)
		}
	}
	return true
}

// checkGo allows go version, go env (without -w/-u), go list and go doc.
func checkGo(c *checker, n syntax.Node, args []arg) bool {
	if len(args) == 0 {
		return true
	}
	sub := args[0].val
	switch sub {
	case "version", "doc", "help":
		return true
	case "env":
		for _, a := range args[1:] {
			// Go's flag package takes -w, --w and -w=true alike.
			if key, _, _ := strings.Cut(strings.TrimLeft(a.val, "-"), "="); strings.HasPrefix(a.val, "-") && (key == "w" || key == "u") {
				return c.deny(n, "write-option", "go env "+a.val)
			}
		}
		return true
	case "list":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a.val, "-") {
				continue
			}
			key, val, _ := strings.Cut(strings.TrimLeft(a.val, "-"), "=")
			switch key {
			case "toolexec", "exec", "o", "overlay":
				return c.deny(n, "exec-option", "go list "+a.val)
			case "mod":
				if val == "mod" {
					return c.deny(n, "write-option", "go list "+a.val)
				}
			case "modfile":
				return c.deny(n, "write-option", "go list "+a.val)
			}
		}
		return true
	}
	return c.deny(n, "unknown-command", "go "+sub)
}

var npmReads = set("ls", "list", "la", "ll", "view", "info", "show", "v", "outdated", "explain", "why", "root", "prefix", "--version", "-v")

// npmOptions are the options allowed with the reading subcommands. Any
// other could name a place npm writes to (--cache, --logs-dir, --prefix all
// create files there, even for "npm ls"), and npm accepts abbreviations, so
// the list is positive.
var npmOptions = set("--json", "--long", "-l", "--all", "-a", "--depth", "--parseable", "-p", "--global", "-g",
	"--omit", "--include", "--production", "--dev", "--link", "--workspace", "-w", "--workspaces", "--ws", "--offline")

func checkNpm(c *checker, n syntax.Node, args []arg) bool {
	if len(args) > 0 && npmReads[args[0].val] {
		for _, a := range args[1:] {
			if a.val == "--" {
				break
			}
			key, _, _ := strings.Cut(a.val, "=")
			if strings.HasPrefix(key, "-") && !npmOptions[key] {
				return c.deny(n, "write-option", "npm "+args[0].val+" "+a.val)
			}
		}
		return true
	}
	if len(args) > 1 && args[0].val == "config" && (args[1].val == "get" || args[1].val == "list" || args[1].val == "ls") {
		return true
	}
	sub := ""
	if len(args) > 0 {
		sub = args[0].val
	}
	return c.deny(n, "unknown-command", "npm "+sub)
}

// checkPrintf refuses printf -v, which assigns a variable, unless the name is
// a plain harmless one.
func checkPrintf(c *checker, n syntax.Node, args []arg) bool {
	if len(args) > 0 && !args[0].inert() {
		return c.deny(n, "dynamic-arg", "printf's first argument could be -v")
	}
	if len(args) > 0 && strings.HasPrefix(args[0].val, "-v") {
		name := strings.TrimPrefix(args[0].val, "-v")
		if name == "" && len(args) > 1 {
			name = args[1].val
		}
		return c.assignable(n, name)
	}
	return true
}

// checkRead allows read into plain, harmless variable names.
func checkRead(c *checker, n syntax.Node, args []arg) bool {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			last := v[len(v)-1]
			if last == 'a' {
				i++
				if i >= len(args) || !c.assignable(n, args[i].val) {
					return c.deny(n, "env-var", "")
				}
			} else if strings.IndexByte("dinNptu", last) >= 0 {
				i++
			}
			continue
		}
		if !c.assignable(n, v) {
			return false
		}
	}
	return true
}

func (c *checker) assignable(n syntax.Node, name string) bool {
	if !isName(name) || forbiddenVar(name, false) {
		return c.deny(n, "env-var", name)
	}
	return true
}

func checkUnset(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if a.val == "-v" || a.val == "-f" || a.val == "-n" {
			continue
		}
		if !c.assignable(n, a.val) {
			return false
		}
	}
	return true
}

// setOptions are the set -o names that only affect error handling, tracing
// and globbing.
var setOptions = set("errexit", "nounset", "pipefail", "xtrace", "verbose", "noglob", "noclobber", "errtrace", "functrace", "noexec")

func checkSet(c *checker, n syntax.Node, args []arg) bool {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" || v == "-" {
			return true // the rest are positional parameters
		}
		if v == "-o" || v == "+o" {
			i++
			if i < len(args) && !setOptions[args[i].val] {
				return c.deny(n, "shell-option", "set -o "+args[i].val)
			}
			continue
		}
		if len(v) > 1 && (v[0] == '-' || v[0] == '+') {
			flags := v[1:]
			if strings.HasSuffix(flags, "o") {
				flags = flags[:len(flags)-1]
				i++
				if i < len(args) && !setOptions[args[i].val] {
					return c.deny(n, "shell-option", "set -o "+args[i].val)
				}
			}
			for _, f := range flags {
				if !strings.ContainsRune("euxvfnCEBhHT", f) {
					return c.deny(n, "shell-option", "set "+v)
				}
			}
			continue
		}
		return true // positional parameters
	}
	return true
}

var shoptOptions = set("nullglob", "globstar", "extglob", "dotglob", "nocaseglob", "nocasematch", "failglob", "lastpipe", "inherit_errexit", "globasciiranges")

func checkShopt(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") {
			continue
		}
		if !shoptOptions[a.val] {
			return c.deny(n, "shell-option", "shopt "+a.val)
		}
	}
	return true
}

// checkTest refuses test -v and -R on anything but a plain name: bash
// evaluates array subscripts in the operand.
func checkTest(c *checker, n syntax.Node, args []arg) bool {
	for i, a := range args {
		if !a.single {
			return c.deny(n, "dynamic-arg", "unquoted expansion in a test")
		}
		if i+1 >= len(args) {
			break
		}
		next := args[i+1]
		if (a.val == "-v" || a.val == "-R") && a.known && !(next.known && isName(next.val)) {
			return c.deny(n, "arithmetic", "test "+a.val)
		}
		if !a.known && !next.known {
			// The first could expand to -v and make the second a subscript.
			return c.deny(n, "dynamic-arg", "two computed test operands in a row")
		}
	}
	return true
}
