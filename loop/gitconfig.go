package loop

import (
	"bytes"
	"encoding/binary"
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
// bytes. gitIndexLimit bounds the index read for submodules (a few MiB
// for a hundred thousand files).
const (
	gitConfigLimit = 1 << 20
	gitIndexLimit  = 256 << 20
)

// repositoryTrouble says why git would run what the repository of the
// checkout whose .git is dotgit (a folder, or a file naming one) may name,
// or "" when its configuration and hooks are inert.
func repositoryTrouble(dotgit string) string {
	budget := maxSubmodules
	return repositoryTroubleIn(dotgit, 0, &budget)
}

// maxSubmodules and maxSubmoduleDepth bound the submodules looked into; a
// repository with more is refused.
const (
	maxSubmodules     = 64
	maxSubmoduleDepth = 4
)

func repositoryTroubleIn(dotgit string, depth int, budget *int) string {
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
	if !present(filepath.Join(gitDir, "HEAD")) {
		return fmt.Sprintf("%s, the repository %s names, has no HEAD: git would not take it as it is", gitDir, dotgit)
	}
	dirs := []string{gitDir}
	common, err := plainfile.Read(filepath.Join(gitDir, "commondir"), 4096)
	switch {
	case err == nil:
		c := strings.TrimRight(string(common), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		// git rejects a repository whose common folder lacks objects or
		// refs, and then looks further up for another one.
		for _, need := range []string{"objects", "refs"} {
			if info, err := os.Stat(filepath.Join(c, need)); err != nil || !info.IsDir() {
				return fmt.Sprintf("the common folder %s that %s names has no %s: git would not take the repository as it is", c, gitDir, need)
			}
		}
		dirs = append(dirs, c)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s cannot be read (%v)", filepath.Join(gitDir, "commondir"), Plain(err))
	}
	// Every folder git may take its hooks from: the common folder's, and
	// each hooksPath any of the config files sets (which one wins depends
	// on extensions.worktreeConfig; all are looked into).
	hookDirs := []string{filepath.Join(dirs[len(dirs)-1], "hooks")}
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
					hookDirs = append(hookDirs, k.value)
					continue
				}
				if !inertGitKey(k.name) {
					return fmt.Sprintf("the repository's config %s sets %s, which can name a program git runs; a project's files may have put it there", path, k.name)
				}
			}
		}
	}
	for _, hooks := range hookDirs {
		for _, name := range []string{"post-index-change", "reference-transaction"} {
			path := filepath.Join(hooks, name)
			if info, err := os.Stat(path); err == nil && !info.IsDir() && info.Mode().Perm()&0o111 != 0 {
				return fmt.Sprintf("the repository has the hook %s, which git status or git diff may run", path)
			}
		}
	}
	// git status and git diff look into every submodule checked out (a
	// gitlink in the index whose folder holds a .git), running git there
	// with the submodule's own config and hooks.
	links, err := gitlinks(filepath.Join(gitDir, "index"))
	if err != nil {
		return fmt.Sprintf("the repository's index %s cannot be read for submodules (%v)", filepath.Join(gitDir, "index"), err)
	}
	top := filepath.Dir(dotgit)
	for _, link := range links {
		sub := filepath.Join(top, filepath.FromSlash(link), ".git")
		if _, err := os.Lstat(sub); err != nil {
			continue // not checked out: git does not look into it
		}
		*budget--
		if *budget < 0 || depth >= maxSubmoduleDepth {
			return fmt.Sprintf("the repository has more submodules checked out than plansmith looks into (%d, %d deep)", maxSubmodules, maxSubmoduleDepth)
		}
		if why := repositoryTroubleIn(sub, depth+1, budget); why != "" {
			return "its submodule " + link + ": " + why
		}
	}
	// Submodules kept in the repository's modules folder, checked out or
	// not: git diff --submodule=diff and git grep --recurse-submodules
	// open them.
	modules := filepath.Join(dirs[len(dirs)-1], "modules")
	var why string
	walkModules(modules, 0, func(repo string) bool {
		*budget--
		if *budget < 0 || depth >= maxSubmoduleDepth {
			why = fmt.Sprintf("the repository keeps more submodules than plansmith looks into (%d, %d deep)", maxSubmodules, maxSubmoduleDepth)
			return false
		}
		if w := repositoryTroubleIn(repo, depth+1, budget); w != "" {
			why = "its submodule repository " + repo + ": " + w
			return false
		}
		return true
	})
	return why
}

// walkModules calls visit for each repository (a folder with a HEAD) in a
// modules folder, whose submodule names may hold slashes; visit returning
// false stops the walk. A name deeper than maxSubmoduleDepth folders is
// visited as a repository, so that what it holds is judged, not skipped.
func walkModules(dir string, level int, visit func(repo string) bool) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true // no modules folder: nothing kept
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			continue
		}
		if present(filepath.Join(path, "HEAD")) || level >= maxSubmoduleDepth {
			if !visit(path) {
				return false
			}
			continue
		}
		if !walkModules(path, level+1, visit) {
			return false
		}
	}
	return true
}

// gitlinks lists the submodule paths (mode 160000) in a git index file:
// none when there is no index. An index it cannot read entry by entry
// (a version or a split index it does not know) is an error.
func gitlinks(path string) ([]string, error) {
	data, err := plainfile.Read(path, gitIndexLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("no index signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d", version)
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	at := 12
	var links []string
	prev := ""
	for i := 0; i < n; i++ {
		if at+62 > len(data) {
			return nil, errors.New("index entries cut short")
		}
		mode := binary.BigEndian.Uint32(data[at+24 : at+28])
		flags := binary.BigEndian.Uint16(data[at+60 : at+62])
		fixed := 62
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, errors.New("extended flags in a version 2 index")
			}
			fixed += 2
		}
		start := at + fixed
		if start > len(data) {
			return nil, errors.New("index entries cut short")
		}
		var name string
		if version == 4 {
			strip, size := binary.Uvarint(data[start:])
			if size <= 0 || int(strip) > len(prev) {
				return nil, errors.New("a path the index cannot hold")
			}
			end := bytes.IndexByte(data[start+size:], 0)
			if end < 0 {
				return nil, errors.New("index entries cut short")
			}
			name = prev[:len(prev)-int(strip)] + string(data[start+size:start+size+end])
			at = start + size + end + 1
		} else {
			end := bytes.IndexByte(data[start:], 0)
			if end < 0 {
				return nil, errors.New("index entries cut short")
			}
			name = string(data[start : start+end])
			at += (fixed + end + 8) &^ 7
		}
		prev = name
		if mode&0o170000 == 0o160000 {
			links = append(links, name)
		}
	}
	// Extensions: a split index keeps entries in another file.
	for at+8 <= len(data)-20 {
		sig := string(data[at : at+4])
		size := int(binary.BigEndian.Uint32(data[at+4 : at+8]))
		if sig == "link" {
			return nil, errors.New("a split index")
		}
		if size < 0 || at+8+size > len(data) {
			break
		}
		at += 8 + size
	}
	return links, nil
}

// gitFileTarget reads a .git file as git does: "gitdir: PATH", then
// nothing but the line's end.
// git strips only line ends from the file's end and keeps everything else
// (a space after the path is part of it); a target with white space or a
// line break of its own is not read here at all.
func gitFileTarget(data []byte) (string, bool) {
	text := strings.TrimRight(string(data), "\r\n")
	target, ok := strings.CutPrefix(text, "gitdir: ")
	return target, ok && target != "" && strings.TrimSpace(target) == target && !strings.ContainsAny(target, "\r\n\t")
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
		if k.name == "core.hookspath" {
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
			"interhunkcontext", "indentheuristic", "ignoresubmodules", "binary", "xfuncname", "wordregex":
			// Not diff.submodule: =diff runs git diff in each submodule,
			// with its own diff.external (review N).
			return true
		}
	}
	return false
}
