package gitcheck

import (
	"strings"
)

// A git config file read for its keys (repository.go decides what they
// mean for a repository): the layouts git writes, and which keys name no
// program.

type gitConfigKey struct {
	name  string // "section.key", lower case, the subsection left out
	value string // only for core.hookspath, core.worktree and the sort keys: the value, unquoted
}

// gitConfigKeys lists the keys a git config file sets. It reads the form
// git and editors write — [section], [section "subsection"], then
// "key = value" or "key" lines, comments after # or ; — and reports false
// for anything else (a value continued on the next line, a quote left
// open, a key on a section's line), so that what it cannot read is not
// taken for inert.
func gitConfigKeys(data []byte) ([]gitConfigKey, bool) {
	var keys []gitConfigKey
	section := ""
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			name, ok := gitSection(line)
			if !ok {
				return nil, false
			}
			section = name
			continue
		}
		if section == "" {
			return nil, false
		}
		key, value, _ := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !gitName(key) {
			return nil, false
		}
		value = strings.TrimSpace(value)
		if strings.HasSuffix(value, `\`) || strings.Count(value, `"`)%2 != 0 {
			return nil, false // continued, or a quote that may span lines
		}
		k := gitConfigKey{name: section + "." + strings.ToLower(key)}
		if k.name == "branch.sort" || k.name == "tag.sort" {
			// A sort key is a field name, a few signs before it and an
			// option after a colon: -committerdate, version:refname.
			k.value = value
			if !plainSortKey(value) {
				return nil, false
			}
		}
		if k.name == "core.hookspath" || k.name == "core.worktree" {
			// Only a plain path: git reads quotes, escapes and comments
			// in a value its own way ("ev"il and evil;x are evil).
			k.value = value
			if !plainPath(k.value) {
				return nil, false
			}
		}
		keys = append(keys, k)
	}
	return keys, true
}

// gitSection reads a section header line as git does, but only in its
// plain forms: [name], [name "subsection"] or [name.subsection], then
// nothing but a comment. git goes on reading a line after its first "]"
// ([a][core]fsmonitor=x sets core.fsmonitor); anything there but a
// comment is refused.
func gitSection(line string) (string, bool) {
	i := 1
	for i < len(line) && (gitNameByte(line[i]) || line[i] == '.') {
		i++
	}
	name := line[1:i]
	if j := strings.IndexByte(name, '.'); j >= 0 {
		name = name[:j] // [section.subsection], the old spelling
	}
	if !gitName(name) {
		return "", false
	}
	if i < len(line) && line[i] == ' ' {
		// A quoted subsection: any character but a line end, with \" and
		// \\ escaped.
		i++
		if i >= len(line) || line[i] != '"' {
			return "", false
		}
		for i++; i < len(line) && line[i] != '"'; i++ {
			if line[i] == '\\' {
				i++
			}
		}
		i++
	}
	if i >= len(line) || line[i] != ']' {
		return "", false
	}
	rest := strings.TrimSpace(line[i+1:])
	if rest != "" && rest[0] != '#' && rest[0] != ';' {
		return "", false
	}
	return strings.ToLower(name), true
}

// plainPath is a path of letters, digits and . _ - / only.
func plainPath(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(gitNameByte(c) || c == '.' || c == '_' || c == '/') {
			return false
		}
	}
	return true
}

// plainSortKey is a ref-filter sort key of letters, digits and - * : . _
// only.
func plainSortKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(gitNameByte(c) || strings.IndexByte("*:._", c) >= 0) {
			return false
		}
	}
	return true
}

func gitNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

// gitName is a section or key name as git allows it: letters, digits and
// dashes, starting with a letter.
func gitName(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// inertGitKey reports whether a repository's config may set name
// ("section.key", any subsection left out) without naming a program git
// runs, a file it includes, or a command it may spawn: what git clone and
// git init write, and the settings people and their tools commonly keep
// per repository (VS Code and GitHub's gh add keys of their own under
// branch and remote). A key of a section not listed, or of a listed one's
// keys that name programs (remote.*.uploadpack, receivepack, vcs), is not
// inert.
func inertGitKey(name string) bool {
	section, key, _ := strings.Cut(name, ".")
	switch section {
	case "core":
		switch key {
		case "repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase",
			"precomposeunicode", "symlinks", "autocrlf", "safecrlf", "eol", "quotepath",
			"sparsecheckout", "sparsecheckoutcone", "checkstat", "trustctime", "abbrev",
			"commitgraph", "multipackindex", "untrackedcache", "splitindex", "longpaths", "fscache":
			return true
		case "worktree":
			// Where the working tree is: git submodule writes it into each
			// module's config (review BR3: every checkout with a submodule
			// was refused). A working tree names no program: the filter
			// and diff drivers its attributes ask for are the config's.
			// But git looks for submodules and a relative hooksPath in
			// it, wherever it is: configTrouble follows it (review CG1).
			return true
		}
	case "remote":
		// uploadpack and receivepack name the programs a fetch or push
		// runs (here, for a local remote), vcs a remote helper. promisor
		// and partialclonefilter make a partial clone: a reading command
		// that needs a missing object fetches it, writing a pack, talking
		// to the remote and running git maintenance (review O).
		switch key {
		case "uploadpack", "receivepack", "vcs", "proxy", "promisor", "partialclonefilter":
			return false
		}
		return true
	case "branch", "user", "alias", "advice", "color", "commit", "tag", "rebase", "gui":
		// Read by git only for what branches track, names, messages and
		// signing (commit and tag: not by a reading command); an alias
		// never replaces a command git has. branch.sort and tag.sort
		// only as configTrouble reads their values (review CG2).
		return key != "sort"
	case "lfs":
		// git-lfs, which a user's own filter configuration runs on git
		// status, reads programs from lfs.extension.* and
		// lfs.customtransfer.*: only what git lfs install and a server's
		// access note write.
		return key == "repositoryformatversion" || key == "access" || key == "locksverify" || key == "url"
	case "submodule":
		return key == "url" || key == "active" || key == "branch" || key == "recurse"
	case "extensions":
		// Not partialclone: a promisor remote (see remote).
		return key == "objectformat" || key == "worktreeconfig" || key == "preciousobjects"
	case "pull":
		return key == "rebase" || key == "ff"
	case "push":
		return key == "default" || key == "autosetupremote" || key == "followtags"
	case "fetch":
		return key == "prune" || key == "prunetags"
	case "init":
		return key == "defaultbranch"
	case "diff":
		// Not external, nor a driver's command or textconv.
		switch key {
		case "renames", "algorithm", "colormoved", "mnemonicprefix", "noprefix", "context",
			"interhunkcontext", "indentheuristic", "ignoresubmodules", "binary", "xfuncname", "wordregex":
			// Not diff.submodule: =diff runs git diff in each submodule,
			// with its own diff.external (review N).
			return true
		}
	}
	return false
}
