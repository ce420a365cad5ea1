package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitReads are git subcommands that only read, whatever their arguments
// (apart from the options refused in gitOption).
var gitReads = set("status", "log", "show", "diff", "blame", "annotate", "grep", "ls-files", "ls-tree",
	"rev-parse", "rev-list", "describe", "shortlog", "cat-file", "for-each-ref", "show-ref", "name-rev",
	"merge-base", "count-objects", "check-ignore", "check-attr", "cherry", "show-branch", "diff-tree",
	"diff-files", "diff-index", "whatchanged", "version", "var", "verify-commit", "verify-tag", "range-diff")

// gitSubReads are subcommands read-only only with one of the listed
// sub-subcommands ("" meaning none given).
var gitSubReads = map[string]map[string]bool{
	"stash":     set("list", "show"),
	"worktree":  set("list"),
	"notes":     set("", "list", "show"),
	"submodule": set("status"),
	"reflog":    set("", "show", "exists"),
}

// checkGit allows read-only git subcommands, after global options that only
// choose the directory or turn the pager off.
func checkGit(c *checker, n syntax.Node, args []arg) bool {
	i := 0
	for ; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "-C":
			i++
		case v == "--no-pager" || v == "-P" || v == "--no-optional-locks" || v == "--literal-pathspecs" ||
			v == "--no-replace-objects" || v == "--glob-pathspecs" || v == "--noglob-pathspecs" || v == "--icase-pathspecs":
		case v == "--version":
			return true
		case strings.HasPrefix(v, "-"):
			return c.deny(n, "git-option", "git "+v)
		default:
			goto sub
		}
	}
	return true // plain "git" prints usage
sub:
	sub, rest := args[i].val, args[i+1:]
	for _, a := range rest {
		if a.val == "--" {
			break
		}
		if why := gitOption(sub, a.val); why != "" {
			return c.deny(n, "git-option", why)
		}
	}
	switch {
	case gitReads[sub]:
		return true
	case gitSubReads[sub] != nil:
		first := ""
		for _, a := range rest {
			if !strings.HasPrefix(a.val, "-") {
				first = a.val
				break
			}
		}
		if sub == "reflog" && first != "" && first != "expire" && first != "delete" && first != "drop" && first != "write" {
			return true // "git reflog REF" shows REF's reflog
		}
		if gitSubReads[sub][first] {
			return true
		}
		return c.deny(n, "git", "git "+sub+" "+first)
	case sub == "branch":
		return gitListing(c, n, "branch", rest, set("-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose",
			"-i", "--ignore-case", "--show-current", "--color", "--no-color", "--column", "--no-column", "-q", "--omit-empty"))
	case sub == "tag":
		return gitListing(c, n, "tag", rest, set("-i", "--ignore-case", "--color", "--no-color", "--column", "--no-column", "--omit-empty", "-v", "--verify"))
	case sub == "remote":
		return gitRemote(c, n, rest)
	case sub == "config":
		return gitConfig(c, n, rest)
	}
	return c.deny(n, "git", "git "+sub)
}

// gitOption returns why an option is refused for any subcommand.
func gitOption(sub, v string) string {
	switch {
	case longIs(v, "--output") && !strings.HasPrefix(v, "--output-"):
		return "--output writes a file"
	case longIs(v, "--ext-diff"):
		return "--ext-diff runs an external diff program"
	case longIs(v, "--open-files-in-pager") || sub == "grep" && shortHas(v, 'O', "eABCm"):
		return "git grep -O runs a pager program"
	case v == "--help":
		return "--help starts a manual viewer; use -h"
	case longIs(v, "--exec") || longIs(v, "--upload-pack") || longIs(v, "--receive-pack"):
		return v + " runs a program"
	}
	return ""
}

// gitListing allows git branch and git tag only in their listing forms:
// known listing options, filters, and patterns when listing explicitly.
func gitListing(c *checker, n syntax.Node, sub string, rest []arg, flags map[string]bool) bool {
	listing := false
	var names []arg
	for i := 0; i < len(rest); i++ {
		v := rest[i].val
		key, _, hasVal := strings.Cut(v, "=")
		switch {
		case v == "--":
			names = append(names, rest[i+1:]...)
			i = len(rest)
		case v == "-l" || v == "--list":
			listing = true
		case sub == "tag" && strings.HasPrefix(v, "-n"):
			listing = true
		case key == "--contains" || key == "--no-contains" || key == "--merged" || key == "--no-merged" || key == "--points-at":
			listing = true
			if !hasVal && i+1 < len(rest) && !strings.HasPrefix(rest[i+1].val, "-") {
				i++ // the commit the filter is about
			}
		case key == "--sort" || key == "--format" || key == "--abbrev" || key == "--column" || key == "--color":
		case flags[v]:
			// -v does not make "git branch -v NAME" a listing: git 2.39
			// creates NAME. Only -l/--list and the filters do.
			if sub == "tag" && (v == "-v" || v == "--verify") {
				return true // verifies the named tags' signatures
			}
		case strings.HasPrefix(v, "-"):
			return c.deny(n, "git-branch", "git "+sub+" "+v)
		default:
			names = append(names, rest[i])
		}
	}
	if len(names) > 0 && !listing {
		return c.deny(n, "git-branch", "git "+sub+" "+names[0].val+" creates a "+sub)
	}
	return true
}

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
	case "show", "get-url":
		return true
	}
	return c.deny(n, "git-branch", "git remote "+words[0])
}

// gitConfig allows reading configuration: "get"/"list" subcommands, the
// --get*/--list modes, or a single name with no value.
func gitConfig(c *checker, n syntax.Node, rest []arg) bool {
	reading := false
	var names []string
	for i := 0; i < len(rest); i++ {
		v := rest[i].val
		key, _, hasVal := strings.Cut(v, "=")
		switch {
		case key == "--get" || key == "--get-all" || key == "--get-regexp" || key == "--get-urlmatch" ||
			key == "--list" || v == "-l" || key == "--get-color" || key == "--get-colorbool":
			reading = true
		case key == "--global" || key == "--system" || key == "--local" || key == "--worktree" || key == "--includes" ||
			key == "--no-includes" || key == "--show-origin" || key == "--show-scope" || key == "--null" || v == "-z" ||
			key == "--name-only" || key == "--bool" || key == "--int" || key == "--path" || key == "--bool-or-int" ||
			key == "--type" || key == "--default" || key == "--fixed-value" || key == "--all" || key == "--regexp" ||
			key == "--value" || key == "--url":
			if (key == "--type" || key == "--default" || key == "--value" || key == "--url") && !hasVal {
				i++
			}
		case key == "--file" || v == "-f" || key == "--blob":
			if !hasVal {
				i++
			}
		case strings.HasPrefix(v, "-"):
			return c.deny(n, "git-config", "git config "+v)
		default:
			names = append(names, v)
		}
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
