package loop

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// A checkout's .git is the repository git runs in, and its config can name
// programs git runs on a read (core.fsmonitor on git status, diff.external
// on git diff, a pager, a filter, an include of any file), as can a hook
// the index refresh of git status fires (post-index-change). A clone never
// carries a .git, but a project unpacked from a tarball or a zip, a copied
// folder or a vendored package can: every file of it is the project's
// choice. So git runs only in a repository whose own config sets nothing
// but settings known to name no program (inertGitKey), whose hooks include
// none a reading command fires, and whose .git file, if it is one, git
// reads as this does. The user's own configuration (~/.gitconfig, git's
// system file) is theirs and not looked at.

// gitConfigLimit bounds the config files read; git's are a few hundred
// bytes.
const gitConfigLimit = 1 << 20

// repositoryTrouble says why git would run what the repository of the
// checkout whose .git is dotgit (a folder, or a file naming one) may name,
// or "" when its configuration and hooks are inert.
func repositoryTrouble(dotgit string) string {
	gitDir := dotgit
	if info, err := os.Stat(dotgit); err == nil && info.Mode().IsRegular() {
		data, err := plainfile.Read(dotgit, 4096)
		if err != nil {
			return fmt.Sprintf("the .git file %s cannot be read (%v)", dotgit, Plain(err))
		}
		target, ok := gitFileTarget(data)
		if !ok {
			return fmt.Sprintf("the .git file %s does not read as a single gitdir: line", dotgit)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(dotgit), target)
		}
		gitDir = target
	}
	dirs := []string{gitDir}
	common, err := plainfile.Read(filepath.Join(gitDir, "commondir"), 4096)
	switch {
	case err == nil:
		c := strings.TrimRight(string(common), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		dirs = append(dirs, c)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s cannot be read (%v)", filepath.Join(gitDir, "commondir"), Plain(err))
	}
	hooks := filepath.Join(dirs[len(dirs)-1], "hooks")
	for _, d := range dirs {
		for _, name := range []string{"config", "config.worktree"} {
			path := filepath.Join(d, name)
			data, err := plainfile.Read(path, gitConfigLimit)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Sprintf("the repository's config %s cannot be read (%v)", path, Plain(err))
			}
			keys, ok := gitConfigKeys(data)
			if !ok {
				return fmt.Sprintf("the repository's config %s is not laid out as git writes it", path)
			}
			for _, k := range keys {
				if k.name == "core.hookspath" {
					if !filepath.IsAbs(k.value) {
						// git reads a relative hooksPath from the top of the
						// working tree: the .git's folder.
						k.value = filepath.Join(filepath.Dir(dotgit), k.value)
					}
					hooks = k.value
					continue
				}
				if !inertGitKey(k.name) {
					return fmt.Sprintf("the repository's config %s sets %s, which can name a program git runs; a project's files may have put it there", path, k.name)
				}
			}
		}
	}
	for _, name := range []string{"post-index-change", "reference-transaction"} {
		path := filepath.Join(hooks, name)
		if info, err := os.Stat(path); err == nil && !info.IsDir() && info.Mode().Perm()&0o111 != 0 {
			return fmt.Sprintf("the repository has the hook %s, which git status or git diff may run", path)
		}
	}
	return ""
}

// gitFileTarget reads a .git file as git does: "gitdir: PATH", then
// nothing but the line's end.
func gitFileTarget(data []byte) (string, bool) {
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	target, ok := strings.CutPrefix(strings.TrimRight(string(line), "\r \t"), "gitdir: ")
	return target, ok && target != "" && len(bytes.TrimSpace(rest)) == 0
}

type gitConfigKey struct {
	name  string // "section.key", lower case, the subsection left out
	value string // only for core.hookspath: the value, unquoted
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
			end := strings.LastIndexByte(line, ']')
			if end < 0 || strings.TrimSpace(line[end+1:]) != "" && !strings.HasPrefix(strings.TrimSpace(line[end+1:]), "#") && !strings.HasPrefix(strings.TrimSpace(line[end+1:]), ";") {
				return nil, false
			}
			head := line[1:end]
			name, _, _ := strings.Cut(head, " ")
			name, _, _ = strings.Cut(name, ".") // [section.subsection], the old spelling
			if !gitName(name) {
				return nil, false
			}
			section = strings.ToLower(name)
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
		if k.name == "core.hookspath" {
			v, _, _ := strings.Cut(value, " #")
			v, _, _ = strings.Cut(v, " ;")
			k.value = strings.Trim(strings.TrimSpace(v), `"`)
			if k.value == "" || strings.ContainsAny(k.value, `\~$`) {
				return nil, false
			}
		}
		keys = append(keys, k)
	}
	return keys, true
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
		}
	case "remote":
		// uploadpack and receivepack name the programs a fetch or push
		// runs (here, for a local remote), vcs a remote helper.
		return key != "uploadpack" && key != "receivepack" && key != "vcs" && key != "proxy"
	case "branch", "user", "alias", "advice", "color", "commit", "tag", "rebase", "gui":
		// Read by git only for what branches track, names, messages and
		// signing (commit and tag: not by a reading command); an alias
		// never replaces a command git has.
		return true
	case "lfs":
		// git-lfs, which a user's own filter configuration runs on git
		// status, reads programs from lfs.extension.* and
		// lfs.customtransfer.*: only what git lfs install and a server's
		// access note write.
		return key == "repositoryformatversion" || key == "access" || key == "locksverify" || key == "url"
	case "submodule":
		return key == "url" || key == "active" || key == "branch" || key == "recurse"
	case "extensions":
		return key == "objectformat" || key == "worktreeconfig" || key == "partialclone" || key == "preciousobjects"
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
			"interhunkcontext", "indentheuristic", "submodule", "ignoresubmodules", "binary", "xfuncname", "wordregex":
			return true
		}
	}
	return false
}
