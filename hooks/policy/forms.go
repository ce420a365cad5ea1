package policy

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Rules for commands that are read-only only in some forms. Each returns
// true when the form is allowed and otherwise records a finding.

// options judges args by the grammar named key and records the refusal;
// it returns every reading of args, or nil when they are refused.
func (c *checker) options(n syntax.Node, key string, args []arg) []parsed {
	r, readings := grammarOf(key).judge(key, args)
	if r != nil {
		c.fail(r.rule, n, r.detail)
		return nil
	}
	return readings
}

// optionsOnly is a rule for commands whose options alone decide.
func optionsOnly(key string) func(c *checker, n syntax.Node, args []arg) bool {
	return func(c *checker, n syntax.Node, args []arg) bool {
		return c.options(n, key, args) != nil
	}
}

// checkYq judges yq by its grammar, and refuses any bundle of short options
// with an i in it: kislyuk's yq turns on in-place editing for a word such as
// -Iyi before passing it on to jq, whatever the grammar reads -I as.
func checkYq(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if a.known && a.val == "--" {
			break
		}
		if a.known && strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.Contains(a.val[1:], "i") {
			return c.deny(n, "write-option", "yq "+a.val+" may edit in place")
		}
	}
	return c.options(n, "yq", args) != nil
}

// checkFind allows find's tests and printing actions, and -exec or -execdir
// with a command that is read-only itself: the words up to ";" or "+" are
// judged as a command line of their own, "{}" standing for a path (several
// paths with "+", as under xargs). The rest goes through find's grammar,
// which refuses -delete, -ok, -fprint and the like.
func checkFind(c *checker, n syntax.Node, args []arg) bool {
	// A path find hands to -exec starts with its starting point, and a
	// starting point never starts with a dash: unless GNU find reads them
	// from a file (-files0-from, where a repository's file named -o is one),
	// or BSD find is given one by -f, or -execdir hands over a bare name
	// (BSD). Then "{}" may be an option of the command (review AC1: sort's
	// -o wrote any file). A word whose start is not known may be either.
	dashPaths := false
	for _, a := range args {
		if a.known && (a.val == "-files0-from" || bsdFindPath(a.val)) || !a.known && (a.val == "" || strings.HasPrefix(a.val, "-")) {
			dashPaths = true
		}
	}
	var rest []arg
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if !args[i].known || v != "-exec" && v != "-execdir" {
			rest = append(rest, args[i])
			continue
		}
		// The command ends at ";", or at "+" right after "{}"; any other
		// "+" is one of its arguments, as find reads it.
		j := i + 1
		for j < len(args) && !(args[j].known && (args[j].val == ";" ||
			args[j].val == "+" && args[j-1].known && args[j-1].val == "{}")) {
			j++
		}
		for k, a := range args[i+1 : j] {
			// BSD and macOS find end the command at any word starting with
			// ";", or starting with "+" right after "{}": the words after
			// it would be find's own expression there (-delete).
			if a.val != ";" && strings.HasPrefix(a.val, ";") {
				return c.deny(n, "find-action", "find "+v+" ends at "+a.val+" on BSD and macOS")
			}
			// A computed word may be ";" and end the command there, making
			// the words after it find's own: an action among them would go
			// unjudged (review AP1: ";$x" -exec sh -c … ";").
			if !a.known && (a.val == "" || a.val == ";") {
				for _, b := range args[i+1+k+1 : j] {
					if b.known && findAction(b.val) {
						return c.deny(n, "find-action", "find "+v+" may end at "+c.text(a.word)+", before "+b.val)
					}
				}
			}
		}
		for k := i + 2; k < j; k++ {
			if args[k-1].val == "{}" && strings.HasPrefix(args[k].val, "+") {
				return c.deny(n, "find-action", "find "+v+" ends at {} "+args[k].val+" on BSD and macOS")
			}
		}
		if j >= len(args) || j == i+1 {
			return c.deny(n, "find-action", "find "+v+" without a command ending in ; or +")
		}
		inner := append([]arg(nil), args[i+1:j]...)
		for k := range inner {
			if before, _, ok := strings.Cut(inner[k].val, "{}"); ok && inner[k].known {
				inner[k].known, inner[k].val = false, before+"."
				if dashPaths || v == "-execdir" {
					inner[k].val = before
				}
			}
		}
		// -execdir runs the command in the folder of each file found.
		elsewhere := c.elsewhere
		c.elsewhere = elsewhere || v == "-execdir"
		if c.foundOutside(n, inner[0], false) {
			c.argv(n, inner, args[j].val == "+")
		}
		c.elsewhere = elsewhere
		if c.found != nil {
			return false
		}
		i = j
	}
	return c.options(n, "find", rest) != nil
}

// findAction reports whether word is one of find's actions that run a
// program, delete or write.
func findAction(word string) bool {
	switch word {
	case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-rm", "-fprint", "-fprint0", "-fprintf", "-fls":
		return true
	}
	return false
}

// bsdFindPath reports whether word gives BSD find a starting point with its
// -f option, alone or bundled as getopt reads BSD find's options
// ("EHLPXdf:sx"): -f, -sf, -xdf, -f-o (review AF6). GNU find's primaries
// that start so are left out.
func bsdFindPath(word string) bool {
	if !strings.HasPrefix(word, "-") || strings.HasPrefix(word, "--") {
		return false
	}
	flags := strings.TrimLeft(word[1:], "EHLPXdsx")
	if !strings.HasPrefix(flags, "f") {
		return false
	}
	switch word {
	case "-follow", "-fstype", "-false", "-fprint", "-fprint0", "-fprintf", "-fls", "-files0-from":
		return false
	}
	return true
}

func checkUniq(c *checker, n syntax.Node, args []arg) bool {
	readings := c.options(n, "uniq", args)
	for _, p := range readings {
		if len(p.operands) == 1 && !p.operands[0].single {
			return c.deny(n, "uniq-output", "uniq "+p.operands[0].val+"… may name a second file, its output")
		}
		if len(p.operands) > 1 {
			return c.deny(n, "uniq-output", "uniq "+p.operands[1].val+" is its output file")
		}
	}
	return readings != nil
}

func checkDate(c *checker, n syntax.Node, args []arg) bool {
	readings := c.options(n, "date", args)
	for _, p := range readings {
		if len(p.operands) > 1 {
			// BSD date takes the first +operand as the format and sets
			// the clock from the next: date -f +%s +x +1600000000.
			return c.deny(n, "date-set", "date with a second operand")
		}
		for _, o := range p.operands {
			if !strings.HasPrefix(o.val, "+") {
				return c.deny(n, "date-set", "date "+o.val)
			}
		}
	}
	return readings != nil
}

// checkArch allows arch alone: on macOS "arch [-x86_64] [-e VAR=v] prog"
// runs prog (Linux's arch only prints).
func checkArch(c *checker, n syntax.Node, args []arg) bool {
	if len(args) > 0 {
		return c.deny(n, "unknown-command", "arch with arguments runs a program on macOS")
	}
	return true
}

func checkHostname(c *checker, n syntax.Node, args []arg) bool {
	readings := c.options(n, "hostname", args)
	for _, p := range readings {
		if len(p.operands) > 0 {
			return c.deny(n, "hostname-set", "hostname "+p.operands[0].val)
		}
	}
	return readings != nil
}

func checkTee(c *checker, n syntax.Node, args []arg) bool {
	readings := c.options(n, "tee", args)
	for _, p := range readings {
		for _, o := range p.operands {
			if !o.known || !sinkFile(o.val) {
				return c.deny(n, "tee", "tee "+o.val)
			}
		}
	}
	return readings != nil
}

// checkTar allows tar only to list an archive: a bundle of t, v, z, j and
// J ending in f (-tzf, or tvf in the old style), or the same as separate
// words (-t -f FILE, --list --file=FILE, --gzip, --verbose), then the
// archive, then member names. Every other option of GNU tar or bsdtar is
// refused: some run programs even while listing (--checkpoint-action=exec,
// -I, --use-compress-program, --rsh-command, -F, --to-command), some write
// (--index-file, --volno-file), and a later word may be one, since GNU tar
// reads options after the old-style bundle too. Long options are taken
// only as spelled out in full: GNU tar's abbreviations are not followed. An
// archive named HOST:FILE is on another machine, reached through rsh or
// ssh.
func checkTar(c *checker, n syntax.Node, args []arg) bool {
	usage := "tar may only list an archive, with t, v, z, j, J and f"
	lists, i := 0, 0
	var archive *arg
	for ; archive == nil && i < len(args); i++ {
		a := args[i]
		if !a.known {
			return c.deny(n, "tar", usage)
		}
		switch w := a.val; {
		case tarLong[w] != "":
			if tarLong[w] == "t" {
				lists++
			}
		case strings.HasPrefix(w, "--file="):
			v := args[i]
			v.val = strings.TrimPrefix(w, "--file=")
			archive = &v
		case w == "--file" || (i == 0 || strings.HasPrefix(w, "-")) && !strings.HasPrefix(w, "--") && tarBundle(w):
			lists += strings.Count(w, "t")
			if w == "--file" || strings.HasSuffix(w, "f") {
				if i+1 >= len(args) {
					return c.deny(n, "tar", usage)
				}
				i++
				archive = &args[i]
			}
		default:
			return c.deny(n, "tar", usage)
		}
	}
	if archive == nil || lists != 1 {
		return c.deny(n, "tar", usage)
	}
	if !archive.known || archive.val == "" || archive.val[0] == '-' || strings.Contains(archive.val, ":") {
		return c.deny(n, "tar", usage+" (a file name without a colon, which names a remote archive)")
	}
	for _, a := range args[i:] {
		if a.val == "" || a.val[0] == '-' {
			return c.deny(n, "tar", usage+" (member names do not start with a dash: tar reads them as options)")
		}
	}
	return true
}

// tarLong maps the long options checkTar takes, in full, to their letters.
var tarLong = map[string]string{"--list": "t", "--verbose": "v", "--gzip": "z", "--gunzip": "z", "--bzip2": "j", "--xz": "J"}

// tarBundle reports whether w is a bundle of t, v, z, j and J, with at
// most one f, last (it takes the next word).
func tarBundle(w string) bool {
	w = strings.TrimPrefix(w, "-")
	if w == "" || strings.Count(w, "f") > 1 || strings.Contains(w, "f") && !strings.HasSuffix(w, "f") {
		return false
	}
	return strings.Trim(w, "tvzjJf") == ""
}

// checkXxd allows xxd to dump one file (or its input) to its output, in
// a small form: the flag words and numeric values listed below, spelled
// exactly, then at most one file. xxd writes its second operand (and with
// -r turns a dump back into bytes there), and its own parser takes any word
// that starts like an option as that option (-cols, -c8, -capitalize), so
// nothing outside that form is read.
func checkXxd(c *checker, n syntax.Node, args []arg) bool {
	usage := "xxd may only dump one file to its output"
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known && !(a.single && !a.glob && (a.val != "" && a.val[0] != '-' || a.absolute)):
			// A computed word that is one file, not an option ("./$f"),
			// is the file; anything else could be two, or an option.
			return c.deny(n, "xxd", usage)
		case !a.known:
			operands++
			if operands > 1 || i+1 < len(args) {
				return c.deny(n, "xxd", usage+" (nothing may follow the file)")
			}
		case xxdFlags[a.val]:
		case xxdValued[a.val]:
			if i+1 >= len(args) || !args[i+1].known || !xxdNumber(args[i+1].val) {
				return c.deny(n, "xxd", usage+" ("+a.val+" takes a number)")
			}
			i++
		case a.val == "" || a.val[0] == '-':
			return c.deny(n, "xxd", usage+" (xxd "+a.val+" is not an option the policy knows)")
		default:
			operands++
			if operands > 1 {
				return c.deny(n, "xxd", usage+" (xxd writes its second file, "+a.val+")")
			}
			if i+1 < len(args) {
				return c.deny(n, "xxd", usage+" (nothing may follow the file)")
			}
		}
	}
	return true
}

// xxdFlags and xxdValued are the options checkXxd takes, as written.
var (
	xxdFlags  = map[string]bool{"-a": true, "-b": true, "-C": true, "-e": true, "-i": true, "-p": true, "-ps": true, "-u": true}
	xxdValued = map[string]bool{"-c": true, "-g": true, "-l": true, "-s": true, "-o": true}
)

// xxdNumber reports whether w is a count or offset xxd reads with strtol:
// decimal, octal or hex, with a sign (for -s, + or -).
func xxdNumber(w string) bool {
	w = strings.TrimLeft(w, "+-")
	w = strings.TrimPrefix(strings.TrimPrefix(w, "0x"), "0X")
	return w != "" && strings.Trim(w, "0123456789abcdefABCDEF") == ""
}

// checkMan allows man with page names only: no options, and no path, which
// would format a local file.
func checkMan(c *checker, n syntax.Node, args []arg) bool {
	if c.blind {
		return c.deny(n, "blind", "man")
	}
	readings := c.options(n, "man", args)
	for _, p := range readings {
		for _, o := range p.operands {
			if !o.known || strings.Contains(o.val, "/") {
				return c.deny(n, "man-option", "man "+o.val+" names a file")
			}
		}
	}
	return readings != nil
}

// checkGo allows go version, go env (without -w/-u), go list and go doc,
// where go would run the toolchain installed: a go.mod or go.work can ask
// for a newer one, which go downloads and runs (Config.GoToolchain, looked
// for where the command starts; so go after a change of folder, or with
// -C, is refused).
func checkGo(c *checker, n syntax.Node, args []arg) bool {
	if c.blind {
		return c.deny(n, "blind", "go")
	}
	if c.changesFolderBefore(n) {
		return c.deny(n, "go-toolchain", "go after a change of folder")
	}
	for _, a := range args {
		// -C DIR, -C=DIR, --C DIR: Go's flags take one or two dashes.
		name, _, _ := strings.Cut(strings.TrimLeft(a.val, "-"), "=")
		if a.known && strings.HasPrefix(a.val, "-") && name == "C" {
			return c.deny(n, "go-toolchain", "go "+a.val+" runs in another folder")
		}
	}
	if c.goToolchain != nil {
		if why := c.goToolchain(); why != "" {
			return c.deny(n, "go-toolchain", why)
		}
	}
	if len(args) == 0 {
		return true
	}
	sub, ok := c.literal(n, args[0], "a go subcommand")
	if !ok {
		return false
	}
	switch sub {
	case "version", "help":
		return true
	case "doc", "env":
		return c.options(n, "go "+sub, args[1:]) != nil
	case "list":
		return goList(c, n, args[1:])
	case "mod":
		// go mod graph and go mod why read the module graph and the
		// packages' imports, as go list -m all and go list -deps do; the
		// other go mod commands edit go.mod, go.sum or vendor/.
		if len(args) > 1 {
			if what, ok := c.literal(n, args[1], "a go mod subcommand"); !ok {
				return false
			} else if what == "graph" || what == "why" {
				return c.options(n, "go mod "+what, args[2:]) != nil
			} else {
				sub += " " + what
			}
		}
	}
	// Name what is allowed: the agent reaches for go test or go build,
	// which compile and run the project's code (review CK).
	return c.deny(n, "unknown-command", "go "+sub+" builds, runs or edits; go list, go doc, go env, go version, go mod graph and go mod why only read")
}

// goList judges go list by its grammar and refuses the listings that build
// the packages to fill in Stale and StaleReason (cmd/go list.go): -json
// with every field or with those, and a -f template that names .Stale.
// With -m it lists modules, which builds nothing. A listing of packages
// that stamps version control information runs git (or hg, svn, ...) in
// the repository go finds, and is judged as git is there (Config.GoVCS).
func goList(c *checker, n syntax.Node, args []arg) bool {
	readings := c.options(n, "go list", args)
	if readings == nil {
		return false
	}
	for _, p := range readings {
		modules := false
		for _, u := range p.opts {
			if u.o.long == "m" {
				modules = goFlagOn(u) // the last one wins
			}
		}
		for _, u := range p.opts {
			switch {
			case u.o.long == "f" && (u.computed || strings.Contains(u.value, ".Stale")):
				return c.deny(n, "write-option", "go list -f "+u.value+" builds the packages to tell whether they are stale")
			case u.o.long == "json" && !modules && !jsonFields(u):
				return c.deny(n, "write-option", "go list "+u.word+" builds the packages to fill in Stale; name the fields (-json=ImportPath,Dir,GoFiles)")
			}
		}
	}
	if c.goVCS != nil && goListStamps(args) {
		if why := c.goVCS(); why != "" {
			return c.deny(n, "git-repository", "go list stamps version control information into main packages, running "+why+
				"; add -buildvcs=false")
		}
	}
	return true
}

// goFlagOn reports whether a boolean go flag is on: given bare, or with a
// value strconv.ParseBool reads as true (-m=false lists packages, review
// AT2). A computed value counts as off, the reading that is checked more.
func goFlagOn(u optUse) bool {
	return !u.hasValue || !u.computed && slices.Contains([]string{"1", "t", "T", "true", "TRUE", "True"}, u.value)
}

// goListStamps reports whether go list would stamp version control
// information into the main packages it lists: unless it lists modules
// (-m), is told not to (-buildvcs=false), or is asked only for named JSON
// fields (-json=Dir,...), none of them Stale, and no -f template — which
// leaves the test mains -test makes stamped all the same (review AV1). go's
// flags end at the first operand (a reading that does not permute: go list
// ./... -m lists a package named -m), and the last -buildvcs wins.
func goListStamps(args []arg) bool {
	modules, fields, template, off, test := false, false, false, false, false
	for _, u := range grammarOf("go list").parse(args, reading{on: gnuOnly}).opts {
		switch u.o.long {
		case "m":
			modules = goFlagOn(u)
		case "json":
			fields = u.hasValue
		case "f":
			template = true
		case "buildvcs":
			off = u.hasValue && !u.computed && slices.Contains([]string{"0", "f", "F", "false", "FALSE", "False"}, u.value)
		case "test":
			test = goFlagOn(u) || u.computed
		}
	}
	return !modules && !off && (test || !(fields && !template))
}

// jsonFields reports whether go list's -json option u names its fields,
// none of them Stale or StaleReason.
func jsonFields(u optUse) bool {
	if !u.hasValue || u.computed {
		return false
	}
	switch strings.ToLower(u.value) {
	case "", "1", "t", "true", "0", "f", "false":
		// A boolean: every field, or off; off is no cheaper to let through.
		return false
	}
	for _, f := range strings.Split(u.value, ",") {
		if f == "Stale" || f == "StaleReason" {
			return false
		}
	}
	return true
}

var npmReads = sync.OnceValue(func() map[string]bool {
	return set("ls", "list", "la", "ll", "view", "info", "show", "v", "outdated", "explain", "why", "root", "prefix", "--version", "-v")
})

// npmViews are npm's subcommands that fetch the package their first
// operand names (the rest are fields to show).
var npmViews = sync.OnceValue(func() map[string]bool { return set("view", "info", "show", "v") })

// npmRegistrySpec reports whether spec names a package of the registry,
// perhaps with @version, @range or @tag: a name, or @scope/name, of the
// characters npm allows in names. Anything else npm view would fetch from
// elsewhere — owner/repo#commit, github:, git+https:, a URL, a folder, a
// tarball, npm:alias — and a git package or tarball may be installed and
// built (its scripts run) before npm can read it.
func npmRegistrySpec(spec string) bool {
	name, version := spec, ""
	if i := strings.Index(spec[min(1, len(spec)):], "@"); i >= 0 {
		name, version = spec[:i+1], spec[i+2:]
	}
	if scoped, ok := strings.CutPrefix(name, "@"); ok {
		scope, rest, ok := strings.Cut(scoped, "/")
		if !ok || !npmNamePart(scope) || !npmNamePart(rest) {
			return false
		}
	} else if !npmNamePart(name) {
		return false
	}
	// npm takes a name or a version ending like a tarball, or a version
	// starting with a dot, for a file or folder (foo@x.tgz, foo@.).
	return !tarballName(name) && !tarballName(version) &&
		!strings.HasPrefix(version, ".") && !strings.ContainsAny(version, ":/#\\")
}

func tarballName(s string) bool {
	s = strings.ToLower(s)
	return strings.HasSuffix(s, ".tgz") || strings.HasSuffix(s, ".tar") || strings.HasSuffix(s, ".tar.gz")
}

// npmNamePart is one part of a package name: letters, digits, - . _ ~,
// not starting with a dot or an underscore.
func npmNamePart(s string) bool {
	if s == "" || s[0] == '.' || s[0] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

func checkNpm(c *checker, n syntax.Node, args []arg) bool {
	if c.blind {
		return c.deny(n, "blind", "npm")
	}
	if c.changesFolderBefore(n) {
		// npm reads the .npmrc of the folder it runs in, which the
		// caller looked for only where the command starts.
		return c.deny(n, "npm-config", "npm after a change of folder")
	}
	if c.npmrc != nil {
		if rc := c.npmrc(); rc != "" {
			return c.deny(n, "npm-config", "npm would read "+rc)
		}
	}
	if len(args) > 0 {
		if _, ok := c.literal(n, args[0], "an npm subcommand"); !ok {
			return false
		}
	}
	if len(args) > 1 && args[0].val == "config" {
		if _, ok := c.literal(n, args[1], "an npm config subcommand"); !ok {
			return false
		}
	}
	if len(args) > 0 && npmReads()[args[0].val] {
		return npmOptions(c, n, args[0].val, args[1:])
	}
	if len(args) > 1 && args[0].val == "config" && (args[1].val == "get" || args[1].val == "list" || args[1].val == "ls") {
		// --logs-dir, --cache and friends write there for any subcommand.
		return npmOptions(c, n, "config "+args[1].val, args[2:])
	}
	sub := ""
	if len(args) > 0 {
		sub = args[0].val
	}
	return c.deny(n, "unknown-command", strings.TrimSpace("npm "+sub)+" installs, runs scripts or writes; npm ls, npm view, npm outdated and npm explain only read")
}

// changesFolderBefore reports whether the command line may have changed the
// working folder by the time n runs: a command with a word cd, pushd or
// popd, as the shell reads it (an escaped or quoted cd is cd), that ends
// before n starts (cd a && npm ls, but not cd "$(git rev-parse
// --show-toplevel)"), or anywhere in a loop around n, whose next turn
// runs n again after it; or find -execdir running it.
func (c *checker) changesFolderBefore(n syntax.Node) bool {
	if c.elsewhere {
		return true
	}
	ix := c.folderIndex()
	at, end := int(n.Pos().Offset()), int(n.End().Offset())
	if len(ix.changes) > 0 && ix.minEnd <= at {
		return true
	}
	for _, l := range ix.loops {
		if l[0] <= at && end <= l[1] && ix.changeWithin(l) {
			return true
		}
	}
	return false
}

// folderChanges indexes a command line's changes of folder, built once per
// line (folderIndex): a line with thousands of git commands in hundreds of
// nested loops must not be walked again for each, or judging it outlasts
// the hook's timeout, which lets the call through.
type folderChanges struct {
	changes []*syntax.CallExpr // the calls holding cd, pushd or popd, in order
	starts  []int              // their start offsets, ascending
	minEnd  int                // the smallest of their end offsets
	loops   [][2]int           // the spans of the for and while loops
}

func (c *checker) folderIndex() *folderChanges {
	if c.folders != nil {
		return c.folders
	}
	ix := &folderChanges{}
	syntax.Walk(c.file, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.CallExpr:
			if changesFolder(m) {
				ix.changes = append(ix.changes, m)
				ix.starts = append(ix.starts, int(m.Pos().Offset()))
				if e := int(m.End().Offset()); len(ix.changes) == 1 || e < ix.minEnd {
					ix.minEnd = e
				}
			}
		case *syntax.ForClause, *syntax.WhileClause:
			ix.loops = append(ix.loops, [2]int{int(m.Pos().Offset()), int(m.End().Offset())})
		}
		return true
	})
	sort.Ints(ix.starts)
	c.folders = ix
	return ix
}

// changeWithin reports whether a change of folder starts within span.
func (ix *folderChanges) changeWithin(span [2]int) bool {
	i := sort.SearchInts(ix.starts, span[0])
	return i < len(ix.starts) && ix.starts[i] < span[1]
}

// maxCds is how many cd's before a git command foldersBefore follows: each
// may or may not have taken effect, so k of them give up to 2^k folders.
const maxCds = 4

// foldersBefore returns the folders n may run in, each relative to the
// session's ("" for it) or absolute, when every change of folder before it
// is a cd to a literal path the shell takes as written: absolute or
// starting with "./" (neither searches CDPATH), no ".." (bash would resolve
// it against the path as typed, not the folder reached), no tilde, drive or
// backslash, at most maxCds of them. Each cd may or may not have taken
// effect (cd a || true; cd b; a cd in a subshell or an if), so every
// ordered choice of them is a candidate. ok is false when the folder
// cannot be known this way: pushd, popd, cd in any other form, a loop
// before or around n holding one, or find -execdir.
func (c *checker) foldersBefore(n syntax.Node) (dirs []string, ok bool) {
	if c.elsewhere {
		return nil, false
	}
	ix := c.folderIndex()
	at := int(n.Pos().Offset())
	for _, l := range ix.loops {
		// A cd in a loop before n may have run any number of times (cd
		// ./x twice is ./x/x), and one in a loop around n runs again
		// before n's next turn.
		if l[0] <= at && ix.changeWithin(l) {
			return nil, false
		}
	}
	var cds []string
	for _, m := range ix.changes {
		if int(m.End().Offset()) > at {
			continue
		}
		target, plain := plainCd(m)
		if !plain || len(cds) == maxCds {
			return nil, false
		}
		cds = append(cds, target)
	}
	seen := map[string]bool{}
	for mask := 0; mask < 1<<len(cds); mask++ {
		dir := ""
		for i, t := range cds {
			if mask&(1<<i) == 0 {
				continue
			}
			if strings.HasPrefix(t, "/") || dir == "" {
				dir = t
			} else {
				dir += "/" + t
			}
		}
		if !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	return dirs, true
}

// plainCd reads a call "cd PATH" whose folder foldersBefore can follow.
func plainCd(ce *syntax.CallExpr) (string, bool) {
	if len(ce.Args) != 2 || len(ce.Assigns) != 0 {
		return "", false
	}
	name, target := analyse(ce.Args[0]), analyse(ce.Args[1])
	if !name.known || name.val != "cd" || !target.known || !target.single || target.glob || target.splits {
		return "", false
	}
	t := target.val
	if !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "./") || strings.ContainsAny(t, "~:\\") {
		return "", false
	}
	for _, part := range strings.Split(t, "/") {
		if part == ".." {
			return "", false
		}
	}
	return t, true
}

// changesFolder reports whether a call holds a word cd, pushd or popd, as
// the shell reads it (an escaped or quoted cd is cd).
func changesFolder(ce *syntax.CallExpr) bool {
	for _, w := range ce.Args {
		if a := analyse(w); a.known && (a.val == "cd" || a.val == "pushd" || a.val == "popd") {
			return true
		}
	}
	return false
}

// npmOptions judges the options of a reading npm subcommand by the npm
// grammar. npm's option parser may or may not take "--" as a value: an
// unknown long option is refused anywhere, since --cache and friends write.
func npmOptions(c *checker, n syntax.Node, sub string, args []arg) bool {
	readings := c.options(n, "npm", args)
	if readings == nil {
		return false
	}
	if npmViews()[sub] {
		for _, p := range readings {
			if len(p.operands) == 0 {
				return c.deny(n, "npm-package", "npm "+sub+" without a package reads the name in package.json")
			}
			spec, ok := c.literal(n, p.operands[0], "an npm package")
			if !ok {
				return false
			}
			if !npmRegistrySpec(spec) {
				return c.deny(n, "npm-package", "npm "+sub+" "+spec+" is not a package of the registry")
			}
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a.val, "--") && len(a.val) > 2 {
			name, _, _ := strings.Cut(a.val[2:], "=")
			if len(grammarOf("npm").longCandidates(name, gnuOnly)) != 1 {
				return c.deny(n, "write-option", "npm "+sub+" "+a.val)
			}
		}
	}
	return true
}

// numeric reports whether a is a number written out, which is all zsh may
// be given where it evaluates arithmetic: there "a[$(cmd)]", or a name whose
// value is that, runs cmd.
func numeric(a arg) bool {
	const digits = "0123456789"
	s := strings.ToLower(strings.TrimLeft(a.val, "+-"))
	if !a.known {
		return false
	}
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		return h != "" && strings.Trim(h, digits+"abcdef") == ""
	}
	if mant, exp, ok := strings.Cut(s, "e"); ok {
		exp = strings.TrimLeft(exp, "+-")
		if exp == "" || strings.Trim(exp, digits) != "" {
			return false
		}
		s = mant
	}
	// At least one digit before any exponent: "e5" is a variable's name.
	return strings.Count(s, ".") <= 1 && strings.ContainsAny(s, digits) && strings.Trim(s, digits+".") == ""
}

// checkCounts allows exit, return, break, continue and shift with numbers
// written out: zsh evaluates their argument as arithmetic.
func checkCounts(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if !numeric(a) {
			return c.deny(n, "arithmetic", "zsh evaluates "+c.text(a.word)+" as arithmetic")
		}
	}
	return true
}

// printfArgs reads a printf format: for each argument it consumes in turn
// (the format is reused while arguments remain), whether zsh evaluates it as
// arithmetic (a numeric conversion, or a * width or precision). all is true
// when every argument must be a number: the format is computed, or numbers
// its arguments (%1$d). bad names a conversion that is refused outright:
// %n stores a count in the variable its argument names.
func printfArgs(format arg) (numericAt []bool, all bool, bad string) {
	if !format.known {
		return nil, true, ""
	}
	f := format.val
	for i := 0; i+1 < len(f); i++ {
		if f[i] == '\\' && (f[i+1] == 'u' || f[i+1] == 'U') {
			// zsh turns \u0025 into a % before it reads the format, so
			// a conversion may be spelled so (review AO1): every argument
			// is then taken for a number.
			return nil, true, ""
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		// Flags, width, precision and C's length modifiers; q is not one
		// here: bash's and zsh's printf read %q as a conversion.
		for ; i < len(f) && strings.IndexByte("-+ #0123456789.*'$hlLjzt", f[i]) >= 0; i++ {
			switch f[i] {
			case '*':
				numericAt = append(numericAt, true)
			case '$':
				all = true
			}
		}
		if i >= len(f) {
			break
		}
		switch {
		case f[i] == 'n':
			return nil, true, "%n"
		case strings.IndexByte("diouxXeEfFgGaA", f[i]) >= 0:
			numericAt = append(numericAt, true)
		case strings.IndexByte("csbqQ", f[i]) >= 0:
			numericAt = append(numericAt, false)
		default:
			// A conversion not known here (bash's %(...)T, or text the
			// scan misread): every argument must then be a number.
			all = true
		}
	}
	return numericAt, all, ""
}

// checkPrintf refuses printf -v, which assigns a variable, unless the name is
// a plain harmless one.
func checkPrintf(c *checker, n syntax.Node, args []arg) bool {
	// bash and zsh read -v as often as it comes, and assign to the last
	// name: "printf -v x -v PATH y" sets PATH (review CD2). So every -v is
	// judged, and a word where another -v could stand must not be one.
	i := 0 // the format's index, after each -v NAME and "--"
	for {
		if i < len(args) && !args[i].inert() {
			return c.deny(n, "dynamic-arg", "printf's argument "+c.text(args[i].word)+" could be -v")
		}
		if i >= len(args) || !strings.HasPrefix(args[i].val, "-v") {
			break
		}
		name := args[i]
		name.val = strings.TrimPrefix(name.val, "-v")
		i++
		if name.val == "" && name.known && i < len(args) {
			name = args[i]
			i++
		}
		if !c.assignable(n, name) {
			return false
		}
	}
	if i < len(args) && args[i].known && args[i].val == "--" {
		i++
	}
	if i >= len(args) {
		return true
	}
	numericAt, all, bad := printfArgs(args[i])
	if bad != "" {
		return c.deny(n, "env-var", "printf "+bad+" (zsh stores a count in the variable its argument names)")
	}
	for k, a := range args[i+1:] {
		if (all || len(numericAt) > 0 && numericAt[k%len(numericAt)]) && !numeric(a) {
			return c.deny(n, "arithmetic", "zsh evaluates "+c.text(a.word)+" as arithmetic for a numeric conversion")
		}
	}
	return true
}

// checkRead allows read into plain, harmless variable names. Its options
// are read as bash reads them: a value may be attached ("-aPATH" names the
// array PATH) or the next word, and the options end at "--" or the first
// name.
func checkRead(c *checker, n syntax.Node, args []arg) bool {
	i := 0
	for ; i < len(args); i++ {
		if !args[i].known {
			// A computed word could be an option or a name with a subscript.
			return c.assignable(n, args[i])
		}
		v := args[i].val
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") || len(v) < 2 {
			break
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte("adinNptu", v[j]) < 0 {
				continue
			}
			val := args[i]
			val.val = v[j+1:]
			if val.val == "" {
				i++
				if i < len(args) {
					val = args[i]
				}
			}
			if v[j] == 'a' && !c.assignable(n, val) {
				return false
			}
			if strings.IndexByte("nNtu", v[j]) >= 0 && !numeric(val) {
				return c.deny(n, "arithmetic", "read -"+string(v[j])+" takes a number written out (zsh evaluates it)")
			}
			break
		}
	}
	for ; i < len(args); i++ {
		if !c.assignable(n, args[i]) {
			return false
		}
	}
	return true
}

// assignable allows a variable name that is written out in full, a plain
// name and not one of the variables that change how programs run. A name
// computed at run time is refused: "a$x" could become "a[$(cmd)]", whose
// subscript bash evaluates, running cmd, or the name of such a variable.
func (c *checker) assignable(n syntax.Node, name arg) bool {
	if !name.known {
		return c.deny(n, "env-var", "a variable name computed at run time ("+c.text(name.word)+")")
	}
	if !isName(name.val) || forbiddenVar(name.val, c.inherits(name.val)) {
		return c.deny(n, "env-var", name.val)
	}
	return true
}

func checkUnset(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if a.known && (a.val == "-v" || a.val == "-f" || a.val == "-n") {
			continue
		}
		if !c.assignable(n, a) {
			return false
		}
	}
	return true
}

// setOptions are the set -o names that only affect error handling, tracing
// and globbing.
var setOptions = sync.OnceValue(func() map[string]bool {
	return set("errexit", "nounset", "pipefail", "xtrace", "verbose", "noglob", "noclobber", "errtrace", "functrace", "noexec")
})

func checkSet(c *checker, n syntax.Node, args []arg) bool {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" || v == "-" {
			return true // the rest are positional parameters
		}
		if v == "-o" || v == "+o" {
			i++
			if i < len(args) && !setOptions()[args[i].val] {
				return c.deny(n, "shell-option", "set -o "+args[i].val)
			}
			continue
		}
		if len(v) > 1 && (v[0] == '-' || v[0] == '+') {
			flags := v[1:]
			if strings.HasSuffix(flags, "o") {
				flags = flags[:len(flags)-1]
				i++
				if i < len(args) && !setOptions()[args[i].val] {
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

var shoptOptions = sync.OnceValue(func() map[string]bool {
	return set("nullglob", "globstar", "extglob", "dotglob", "nocaseglob", "nocasematch", "failglob", "lastpipe", "inherit_errexit", "globasciiranges")
})

func checkShopt(c *checker, n syntax.Node, args []arg) bool {
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") {
			continue
		}
		if !shoptOptions()[a.val] {
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
		if a.val == "-t" && a.known && !numeric(next) {
			return c.deny(n, "arithmetic", "test -t takes a number written out (zsh evaluates it)")
		}
		if !a.known && !next.known {
			// The first could expand to -v and make the second a subscript.
			return c.deny(n, "dynamic-arg", "two computed test operands in a row")
		}
		if !a.known && (strings.Contains(next.val, "[") || isName(next.val)) {
			// The first could expand to -v, -R or -t, which evaluate the
			// second: its subscript, or a variable's value as arithmetic
			// (review AO2: o=-v; [ "$o" 'a[$(CODE)]' ]).
			return c.deny(n, "arithmetic", "a computed test operator before "+next.val)
		}
	}
	return true
}
