package policy

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// gitReads are git subcommands that only read, whatever their arguments
// (apart from the options their grammars in grammars.go refuse). Not
// whatchanged: git 3.0 removes it, and git then runs an alias of that
// name, which a repository's config may define (review O).
var gitReads = sync.OnceValue(func() map[string]bool {
	return set("status", "log", "show", "diff", "blame", "annotate", "grep", "ls-files", "ls-tree",
		"rev-parse", "rev-list", "describe", "shortlog", "cat-file", "for-each-ref", "show-ref", "name-rev",
		"merge-base", "count-objects", "check-ignore", "check-attr", "cherry", "show-branch", "diff-tree",
		"diff-files", "diff-index", "version", "var", "range-diff")
})

// gitSubReads are subcommands read-only only with one of the listed
// sub-subcommands ("" meaning none given).
var gitSubReads = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"stash":     set("list", "show"),
		"worktree":  set("list"),
		"notes":     set("", "list", "show"),
		"submodule": set("", "status"), // none: status
		"reflog":    set("", "show", "exists"),
	}
})

// checkGit allows read-only git subcommands, after global options that only
// choose the directory or turn the pager off.
func checkGit(c *checker, n syntax.Node, args []arg) bool {
	if c.blind {
		return c.deny(n, "blind", "git")
	}
	global := c.options(n, "git", args)
	if global == nil {
		return false
	}
	p := global[0]
	if !gitFolder(c, n, p) {
		return false
	}
	if len(p.operands) == 0 {
		return true // "git", "git --version": usage or version
	}
	for _, u := range p.opts {
		if u.o.long == "version" {
			return true
		}
	}
	sub, ok := c.literal(n, p.operands[0], "a git subcommand")
	if !ok {
		return false
	}
	rest := p.operands[1:]
	if !gitSignatures(c, n, sub, rest) {
		return false
	}
	switch {
	case gitReads()[sub]:
		key := "git " + sub
		if grammarOf(key) == nil {
			key = "git *"
		}
		return c.options(n, key, rest) != nil && gitShownSignatures(c, n, sub, rest)
	case sub == "branch" || sub == "tag":
		return gitListing(c, n, sub, rest)
	case sub == "config":
		return gitConfig(c, n, rest)
	}
	if c.options(n, "git *", rest) == nil {
		return false
	}
	switch {
	case sub == "stash":
		// git stash reads its first word as the subcommand and runs
		// "stash push" with everything else ("git stash -- list").
		first := ""
		if len(rest) > 0 {
			if first, ok = c.literal(n, rest[0], "a git stash subcommand"); !ok {
				return false
			}
		}
		if first == "list" && !gitStashListSignatures(c, n, rest[1:]) {
			return false
		}
		if gitSubReads()[sub][first] && first != "" {
			return true
		}
		return c.deny(n, "git", "git stash "+first)
	case gitSubReads()[sub] != nil:
		// The first operand as git reads it: "git notes --ref list add"
		// gives --ref the value list and runs add.
		key := "git " + sub
		if grammarOf(key) == nil {
			key = "git *"
		}
		first := ""
		if ops := grammarOf(key).parse(rest, reading{on: gnuOnly, permute: true}).operands; len(ops) > 0 {
			if first, ok = c.literal(n, ops[0], "a git "+sub+" subcommand"); !ok {
				return false
			}
		}
		if sub == "reflog" && !gitReflogSignatures(c, n, rest) {
			return false
		}
		if sub == "reflog" && first != "" && first != "expire" && first != "delete" && first != "drop" && first != "write" {
			return true // "git reflog REF" shows REF's reflog
		}
		if sub == "submodule" && first == "" {
			// git-submodule.sh runs status only when nothing but -q,
			// --quiet and --cached is given; read as options here, other
			// words may have swallowed a subcommand as their value.
			for _, a := range rest {
				if a.val != "-q" && a.val != "--quiet" && a.val != "--cached" {
					return c.deny(n, "git", "git submodule "+a.val)
				}
			}
		}
		if gitSubReads()[sub][first] {
			return true
		}
		return c.deny(n, "git", "git "+sub+" "+first)
	case sub == "remote":
		return gitRemote(c, n, rest)
	case sub == "whatchanged":
		// Not on the list (see gitReads), but the agent needs the way
		// round it, not a retry.
		return c.deny(n, "git", "git whatchanged, which git 3.0 removes: git log --raw prints the same")
	}
	return c.deny(n, "git", "git "+sub)
}

// gitSignatures refuses what checks a commit's or tag's signature: git runs
// the program the signature's armour names (gpg, gpgsm, ssh-keygen), which
// makes its key store on first use. That is verify-commit, verify-tag, the
// --show-signature option (in the grammars, with tag -v) and the %G
// placeholders of a format (%G?, %GS, %+GK, ...), and ref-filter's
// signature atom, in a format (%(signature:grade)) or a sort key
// (--sort=signature, as a value or the word after --sort); a format
// computed at run time could hold one, however its option is spelled.
func gitSignatures(c *checker, n syntax.Node, sub string, rest []arg) bool {
	if sub == "verify-commit" || sub == "verify-tag" {
		return c.deny(n, "signature", "git "+sub)
	}
	for i, a := range rest {
		if strings.Contains(a.val, "%(signature") || strings.Contains(a.val, "%(*signature") {
			return c.deny(n, "signature", "the format "+a.val)
		}
		sortKey := strings.HasPrefix(a.val, "--so") && strings.Contains(a.val, "=") ||
			i > 0 && rest[i-1].known && strings.HasPrefix(rest[i-1].val, "--so") && !strings.Contains(rest[i-1].val, "=")
		if sortKey && strings.Contains(a.val, "signature") {
			return c.deny(n, "signature", "the sort key "+a.val)
		}
		if sortKey && !a.known {
			// Computed, it may name the signature too (review AP2).
			return c.deny(n, "signature", "a sort key computed at run time could be signature: "+c.text(a.word))
		}
		if !a.known && formatOption(a.val) {
			return c.deny(n, "signature", "a format computed at run time could hold %G? or %(signature): "+c.text(a.word))
		}
		for _, g := range strings.Split(a.val, "%")[1:] {
			if g != "" && strings.IndexByte("+- ", g[0]) >= 0 {
				g = g[1:] // a modifier: %+GS
			}
			if strings.HasPrefix(g, "G") {
				return c.deny(n, "signature", "the format "+a.val)
			}
		}
	}
	return true
}

// gitShownSignatures: where the user's own config sets log.showSignature,
// git log and git show run the verifier each signed commit's armour names
// (gpg, gpgsm, ssh-keygen: the project's commits choose), which makes its
// key store and may ask the network (review CJ4), as --show-signature
// does. Then they need --no-show-signature as their first word, where no
// option before it can take it for its value (git log --grep
// --no-show-signature searches for those words), and git range-diff,
// whose inner git log shows them and which takes no such option, is
// refused.
func gitShownSignatures(c *checker, n syntax.Node, sub string, rest []arg) bool {
	if sub != "log" && sub != "show" && sub != "range-diff" || c.gitShowsSignatures == nil || !c.gitShowsSignatures() {
		return true
	}
	if sub == "range-diff" {
		return c.deny(n, "signature", "git range-diff where your git config sets log.showSignature")
	}
	if len(rest) == 0 || !rest[0].known || rest[0].val != "--no-show-signature" {
		return c.deny(n, "signature", "git "+sub+" without --no-show-signature as its first word, where your git config sets log.showSignature")
	}
	return true
}

// gitStashListSignatures: git stash list runs git log -g with its own
// format and the words given after list, so where the user's config sets
// log.showSignature it runs the verifier a stash commit's armour names, and
// a project carries its stash (refs/stash and its reflog) in its .git
// (review CM). Then it needs --no-show-signature as its first word after
// list, which it passes on to git log.
func gitStashListSignatures(c *checker, n syntax.Node, words []arg) bool {
	if c.gitShowsSignatures == nil || !c.gitShowsSignatures() {
		return true
	}
	if len(words) > 0 && words[0].known && words[0].val == "--no-show-signature" {
		return true
	}
	return c.deny(n, "signature", "git stash list without --no-show-signature as its first word after list, where your git config sets log.showSignature")
}

// gitReflogSignatures: git reflog (and git reflog show, or REF) is git log
// -g in the oneline format, in which git prints no signature; a format
// option (--pretty, --format=) makes it show and verify them where the
// user's config sets log.showSignature (review CM). Then it needs
// --no-show-signature as its first word (after show, if given).
func gitReflogSignatures(c *checker, n syntax.Node, rest []arg) bool {
	if c.gitShowsSignatures == nil || !c.gitShowsSignatures() {
		return true
	}
	formats := false
	for _, a := range rest {
		formats = formats || !a.known || formatOption(a.val) || strings.HasPrefix(a.val, "--pretty") || strings.HasPrefix(a.val, "--format")
	}
	if !formats {
		return true
	}
	words := rest
	if len(words) > 0 && words[0].known && words[0].val == "show" {
		words = words[1:]
	}
	if len(words) > 0 && words[0].known && words[0].val == "--no-show-signature" {
		return true
	}
	return c.deny(n, "signature", "git reflog with a format but without --no-show-signature as its first word, where your git config sets log.showSignature")
}

// formatOption reports whether word, an option with its value after "=",
// gives a format: --format or --pretty, or as parse-options reads an
// abbreviation (for-each-ref, branch and tag: --form=, --fo=), or
// shortlog's --group, whose format: value is one (review CG3).
func formatOption(word string) bool {
	if strings.HasPrefix(word, "--format") || strings.HasPrefix(word, "--pretty") {
		return true
	}
	name, _, hasValue := strings.Cut(strings.TrimPrefix(word, "--"), "=")
	if !hasValue || name == "" || !strings.HasPrefix(word, "--") {
		return false
	}
	return strings.HasPrefix("format", name) || strings.HasPrefix("pretty", name) || strings.HasPrefix("group", name)
}

// gitFolder refuses git where it may take a folder the project carries as
// its repository. git looks for its repository from the folder it starts
// in upwards, and takes a folder holding HEAD and objects for a bare
// repository: a clone can carry such a folder as plain files, whose config
// names programs git runs (core.fsmonitor on git status). The caller looks
// (Config.GitRepository) in the folder git starts in: the session's, or
// where -C takes it, after the cd's before it when foldersBefore can follow
// them (cd /abs/checkout && git log). Any other change of folder before it
// is refused, as for npm, since where it leads cannot be known from the text.
func gitFolder(c *checker, n syntax.Node, p parsed) bool {
	starts := []string{""}
	if c.changesFolderBefore(n) {
		var ok bool
		if starts, ok = c.foldersBefore(n); !ok || c.gitRepo == nil {
			return c.deny(n, "git-repository", "git after a change of folder")
		}
	}
	dir := ""
	for _, u := range p.opts {
		if u.o.short != 'C' {
			continue
		}
		if u.computed || strings.Contains(u.value, "~") {
			// bash expands a tilde at the start, and after a "=" or ":":
			// ~+/evil is $PWD/evil.
			return c.deny(n, "dynamic-arg", "git -C "+u.value+"… computed at run time")
		}
		if strings.ContainsAny(u.value, `:\`) {
			// C:/evil or a backslash path is absolute on Windows, where
			// the lookup, joining with "/", would look elsewhere.
			return c.deny(n, "git-repository", "git -C "+u.value+" (a drive or backslash path)")
		}
		switch {
		case u.value == "":
			// git -C "" stays where it is.
		case strings.HasPrefix(u.value, "/") || dir == "":
			dir = u.value
		default:
			// Joined as chdir takes them, one after the other: "link/.."
			// is the folder above the link's target, not ".".
			dir += "/" + u.value
		}
	}
	if c.gitRepo == nil {
		return true
	}
	for _, start := range starts {
		d := dir
		switch {
		case start == "" || strings.HasPrefix(dir, "/"):
		case dir == "":
			d = start
		default:
			d = start + "/" + dir
		}
		if why := c.gitRepo(d); why != "" {
			return c.deny(n, "git-repository", why)
		}
	}
	return true
}

// gitListing allows git branch and git tag only in their listing forms:
// with no names, or with names taken as patterns because an option asks
// for a listing (-l, --contains, --merged, --points-at, tag -n) or tag -v
// verifies them. Option values are read as git reads them, so
// "git branch --format -l NAME" creates NAME.
func gitListing(c *checker, n syntax.Node, sub string, rest []arg) bool {
	readings := c.options(n, "git "+sub, rest)
	if readings == nil {
		return false
	}
	p := readings[0]
	listing := false
	for _, u := range p.opts {
		switch u.o.long {
		case "list", "contains", "no-contains", "merged", "no-merged", "points-at":
			listing = true
		}
		if sub == "tag" && u.o.short == 'n' {
			listing = true
		}
	}
	if len(p.operands) > 0 && !listing {
		// -v does not make "git branch -v NAME" a listing: git 2.39
		// creates NAME. Only -l/--list and the filters do.
		return c.deny(n, "git-branch", "git "+sub+" "+p.operands[0].val+" creates a "+sub)
	}
	return true
}

// gitRemote allows git remote's listing forms: the remotes, get-url, and
// show without a remote's name or with -n. With a name, show asks the
// remote for its branches, with the URL the repository's config gives
// (review CG4): the user's credential helper then stores the user name
// and password that URL carries, in ~/.git-credentials or the keychain,
// and ssh may record the host's key.
func gitRemote(c *checker, n syntax.Node, rest []arg) bool {
	var words []string
	for _, a := range rest {
		if a.val != "-v" && a.val != "--verbose" {
			words = append(words, a.val)
		}
	}
	if len(words) == 0 {
		return true
	}
	switch words[0] {
	case "get-url":
		return true
	case "show":
		names := false
		for i, w := range words[1:] {
			if w == "-n" {
				return true // no query
			}
			if w == "--" {
				names = names || i+2 < len(words)
				break
			}
			names = names || !strings.HasPrefix(w, "-")
		}
		if !names {
			return true
		}
		return c.deny(n, "git-remote-query", "git remote show with a name connects to that remote")
	}
	return c.deny(n, "git-branch", "git remote "+words[0])
}

// gitConfig allows reading configuration: "get"/"list" subcommands, the
// --get*/--list modes, or a single name with no value.
func gitConfig(c *checker, n syntax.Node, rest []arg) bool {
	readings := c.options(n, "git config", rest)
	if readings == nil {
		return false
	}
	p := readings[0]
	reading := false
	for _, u := range p.opts {
		if strings.HasPrefix(u.o.long, "get") || u.o.long == "list" {
			reading = true
		}
	}
	var names []string
	for _, o := range p.operands {
		if !o.single {
			return c.deny(n, "git-config", "git config "+o.val+"… may expand to a name and a value")
		}
		name, ok := c.literal(n, o, "a git config name")
		if !ok {
			return false
		}
		names = append(names, name)
	}
	if len(names) > 0 && (names[0] == "get" || names[0] == "list") {
		return true
	}
	if len(names) > 0 && (names[0] == "set" || names[0] == "unset" || names[0] == "edit" ||
		names[0] == "rename-section" || names[0] == "remove-section") {
		return c.deny(n, "git-config", "git config "+names[0])
	}
	if reading || len(names) <= 1 {
		return true
	}
	return c.deny(n, "git-config", "git config "+strings.Join(names, " ")+" sets a value")
}
