package gitcheck

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// gitConfigLimit bounds the config files read; git's are a few hundred
// bytes.
const gitConfigLimit = 1 << 20

// repositoryTrouble says why git would run what the repository of the
// checkout whose .git is dotgit (a folder, or a file naming one) may name,
// or "" when its configuration, hooks and submodules are inert.
// userHooks are the relative hooksPaths the user's own configuration sets
// (User), read from each working tree's top as the repository's.
func repositoryTrouble(dotgit string, userHooks ...string) string {
	budget := maxSubmodules
	return repositoryTroubleIn(dotgit, userHooks, 0, &budget)
}

// maxSubmodules and maxSubmoduleDepth bound the submodules looked into; a
// repository with more is refused.
const (
	maxSubmodules     = 64
	maxSubmoduleDepth = 4
)

func repositoryTroubleIn(dotgit string, userHooks []string, depth int, budget *int) string {
	dirs, why := repositoryDirs(dotgit)
	if why != "" {
		return why
	}
	if why := perProcessFiles(dirs, gitFiles...); why != "" {
		return why
	}
	tops, hookDirs, why := configTrouble(dirs, filepath.Dir(dotgit), userHooks)
	if why != "" {
		return why
	}
	if why := perProcessFiles(hookDirs, readingHooks...); why != "" {
		return why
	}
	if why := hookTrouble(hookDirs); why != "" {
		return why
	}
	return submoduleTrouble(dirs, tops, userHooks, depth, budget)
}

// repositoryDirs returns the folders whose config git reads for dotgit:
// the repository (the .git folder, or the one a .git file names), then its
// common folder when it has one. A layout git would not take as it is
// (and then look further up for another repository) is trouble.
func repositoryDirs(dotgit string) (dirs []string, why string) {
	if _, ok := kernelPath(dotgit); !ok {
		return nil, fmt.Sprintf("%s leads through /proc or /dev/fd, which names another folder to git than to plansmith", dotgit)
	}
	gitDir := dotgit
	if info, err := os.Stat(dotgit); err == nil && info.Mode().IsRegular() {
		data, err := plainfile.Read(dotgit, 4096)
		if err != nil {
			return nil, fmt.Sprintf("the .git file %s cannot be read (%v)", dotgit, plainfile.Message(err))
		}
		target, ok := gitFileTarget(data)
		if !ok {
			return nil, fmt.Sprintf("the .git file %s does not read as a single gitdir: line", dotgit)
		}
		resolved, ok := gitPath(filepath.Dir(dotgit), target)
		if !ok {
			return nil, fmt.Sprintf("the .git file %s names %s, which plansmith cannot follow as git does (through /proc or /dev/fd, or too many links)", dotgit, target)
		}
		gitDir = resolved
	}
	if !plainfile.Present(filepath.Join(gitDir, "HEAD")) {
		return nil, fmt.Sprintf("%s, the repository %s names, has no HEAD: git would not take it as it is", gitDir, dotgit)
	}
	dirs = []string{gitDir}
	common, err := plainfile.Read(filepath.Join(gitDir, "commondir"), 4096)
	switch {
	case err == nil:
		named := strings.TrimRight(string(common), "\r\n")
		c, ok := gitPath(gitDir, named)
		if !ok {
			return nil, fmt.Sprintf("%s names the common folder %s, which plansmith cannot follow as git does (through /proc or /dev/fd, or too many links)", filepath.Join(gitDir, "commondir"), named)
		}
		for _, need := range []string{"objects", "refs"} {
			if info, err := os.Stat(filepath.Join(c, need)); err != nil || !info.IsDir() {
				return nil, fmt.Sprintf("the common folder %s that %s names has no %s: git would not take the repository as it is", c, gitDir, need)
			}
		}
		dirs = append(dirs, c)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Sprintf("%s cannot be read (%v)", filepath.Join(gitDir, "commondir"), plainfile.Message(err))
	}
	return dirs, ""
}

// gitPath is where git finds named, a path a repository's own file names,
// read from dir when it is relative: as the kernel resolves it, each link
// followed before the ".." after it climbs (review BN1: l/../good, cleaned
// to good as text, was another folder to git when l is a link). ok is
// false when it leads through /proc or /dev/fd, whose entries are each
// process's own: /proc/self/cwd is where git runs to git, and where the
// hook runs to plansmith (review BP1), or through too many links.
func gitPath(dir, named string) (path string, ok bool) {
	p := named
	if !filepath.IsAbs(p) {
		p = dir + string(filepath.Separator) + named
	}
	return kernelPath(p)
}

// kernelPath resolves the absolute path p as the kernel would open it:
// component by component, each link followed where it stands (a ".." then
// climbs from where the link led), parts that do not exist taken as
// written. ok is false when p or a link on the way names /proc or /dev/fd,
// or the links run deeper than the kernel follows.
func kernelPath(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	rest := strings.Split(filepath.ToSlash(p), "/")
	cur := "/"
	for links := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if plainfile.PerProcess(next) {
			return "", false
		}
		info, err := os.Lstat(next)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > 40 {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(filepath.ToSlash(target), "/"), rest...)
	}
	return cur, !plainfile.PerProcess(cur)
}

// gitFiles are the files of a repository folder plansmith reads or looks
// at, and git opens.
var gitFiles = []string{"HEAD", "config", "config.worktree", "commondir", "index", "hooks", "objects", "refs", "modules"}

// readingHooks are the hooks a reading git command may fire.
var readingHooks = []string{"post-index-change", "reference-transaction"}

// perProcessFiles says which of the files named in each of dirs (and the
// folders themselves) leads through /proc or /dev/fd: plansmith reading it
// from the hook's folder would read another file than git does from its
// own (review BR1: a nested checkout's .git/config linked to
// /proc/self/cwd/...).
func perProcessFiles(dirs []string, names ...string) string {
	for _, d := range dirs {
		for _, p := range append([]string{d}, joinAll(d, names)...) {
			if _, ok := kernelPath(p); !ok {
				return fmt.Sprintf("%s leads through /proc or /dev/fd, which names another file to git than to plansmith", p)
			}
		}
	}
	return ""
}

func joinAll(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out
}

// configTrouble reads every config file of dirs (config, config.worktree)
// and says why one is not inert. It also returns every folder that may be
// the working tree's top: the one holding the .git (top), and each one a
// core.worktree names (git takes it wherever the .git was found, a
// relative one read from the repository folder: review CG1); and every
// folder git may take hooks from: the common folder's, and each hooksPath
// any file sets (which one wins depends on extensions.worktreeConfig; all
// count), a relative one read from each of those tops, where git runs its
// hooks.
func configTrouble(dirs []string, top string, userHooks []string) (tops, hookDirs []string, why string) {
	if real, ok := kernelPath(top); ok {
		top = real // as core.worktree's are, so that one naming it is not looked into twice
	}
	tops = []string{top}
	hooksPaths := slices.Clone(userHooks) // the user's relative ones (review CJ1)
	for _, d := range dirs {
		for _, name := range []string{"config", "config.worktree"} {
			path := filepath.Join(d, name)
			data, err := plainfile.Read(path, gitConfigLimit)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, nil, fmt.Sprintf("the repository's config %s cannot be read (%v)", path, plainfile.Message(err))
			}
			keys, ok := gitConfigKeys(data)
			if !ok {
				return nil, nil, fmt.Sprintf("the repository's config %s is not laid out as git writes it", path)
			}
			for _, k := range keys {
				switch {
				case k.name == "core.hookspath" && strings.HasPrefix(k.value, "~"):
					return nil, nil, fmt.Sprintf("the repository's config %s sets core.hooksPath %s, which git reads from a home folder plansmith does not look in", path, k.value)
				case k.name == "core.hookspath":
					hooksPaths = append(hooksPaths, k.value)
				case k.name == "branch.sort" || k.name == "tag.sort":
					// The signature as a sort key (ref-filter's atom, newer
					// than git 2.39) has git branch or git tag run gpg on
					// every tip (review CG2); any other key is a field.
					if strings.Contains(strings.ToLower(k.value), "signature") {
						return nil, nil, fmt.Sprintf("the repository's config %s sets %s %s, which has git run the signature's verifier", path, k.name, k.value)
					}
				case k.name == "core.worktree":
					// Relative to the repository folder; which of dirs
					// git reads it from does not matter: all count.
					for _, base := range dirs {
						wt, ok := gitPath(base, k.value)
						if !ok {
							return nil, nil, fmt.Sprintf("the repository's config %s sets core.worktree %s, which plansmith cannot follow as git does (through /proc or /dev/fd, or too many links)", path, k.value)
						}
						if !slices.Contains(tops, wt) {
							tops = append(tops, wt)
						}
					}
				case !inertGitKey(k.name):
					return nil, nil, fmt.Sprintf("the repository's config %s sets %s, which can name a program git runs; a project's files may have put it there", path, k.name)
				}
			}
		}
	}
	hookDirs = []string{filepath.Join(dirs[len(dirs)-1], "hooks")}
	for _, hp := range hooksPaths {
		for _, t := range tops {
			dir, ok := gitPath(t, hp)
			if !ok {
				return nil, nil, fmt.Sprintf("the repository's config sets core.hooksPath %s, which plansmith cannot follow as git does (through /proc or /dev/fd, or too many links)", hp)
			}
			hookDirs = append(hookDirs, dir)
		}
	}
	return tops, hookDirs, ""
}

// hookTrouble names an executable hook a reading command may fire: the
// index refresh of git status writes the index (post-index-change), and a
// ref update fires reference-transaction. Hooks of commands the policy
// never allows (commit, checkout, push) do not count: most checkouts carry
// some. Nor does pre-auto-gc: the automatic gc that fires it runs only
// after a command that writes objects (fetch, merge, commit), which a
// reading command does only through a partial clone's lazy fetch (review
// O), and a partial clone's settings are refused (inertGitKey). Husky 9
// writes an executable pre-auto-gc into .husky/_ of every project that
// uses it, where counting it refused every git command (review AQ, N1).
func hookTrouble(hookDirs []string) string {
	for _, hooks := range hookDirs {
		for _, name := range readingHooks {
			path := filepath.Join(hooks, name)
			if info, err := os.Stat(path); err == nil && !info.IsDir() && info.Mode().Perm()&0o111 != 0 {
				return fmt.Sprintf("the repository has the hook %s, which a reading git command may run", path)
			}
		}
	}
	return ""
}

// submoduleTrouble checks, as the repository itself, every submodule git
// may run git in: each one checked out (a gitlink in the index whose
// folder holds a .git: git status and git diff look into it) and each one
// kept in a modules folder (the repository's and the common one), checked
// out or not (git diff --submodule=diff and git grep --recurse-submodules,
// or git grep --cached under submodule.recurse, open them).
func submoduleTrouble(dirs, tops, userHooks []string, depth int, budget *int) string {
	check := func(dotgit, label string) string {
		*budget--
		if *budget < 0 || depth >= maxSubmoduleDepth {
			return fmt.Sprintf("the repository has more submodules than plansmith looks into (%d, %d deep)", maxSubmodules, maxSubmoduleDepth)
		}
		if why := repositoryTroubleIn(dotgit, userHooks, depth+1, budget); why != "" {
			return label + ": " + why
		}
		return ""
	}
	index := filepath.Join(dirs[0], "index")
	links, err := gitlinks(index)
	if err != nil {
		return fmt.Sprintf("the repository's index %s cannot be read for submodules (%v)", index, err)
	}
	for _, link := range links {
		for _, top := range tops {
			sub := filepath.Join(top, filepath.FromSlash(link), ".git")
			if _, err := os.Lstat(sub); err != nil {
				continue // not checked out: git does not look into it
			}
			if why := check(sub, "its submodule "+link); why != "" {
				return why
			}
		}
	}
	// A linked worktree keeps its own submodules' repositories in its own
	// folder (.git/worktrees/NAME/modules), the others in the common one:
	// git grep --cached opens one that is not checked out when
	// submodule.recurse is set (review CJ2).
	var why string
	for i, d := range dirs {
		if i > 0 && d == dirs[0] {
			continue
		}
		walkModules(filepath.Join(d, "modules"), 0, func(repo string) bool {
			why = check(repo, "its submodule repository "+repo)
			return why == ""
		})
		if why != "" {
			return why
		}
	}
	return ""
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
		if plainfile.Present(filepath.Join(path, "HEAD")) || level >= maxSubmoduleDepth {
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

// gitFileTarget reads a .git file: "gitdir: PATH". git strips only line
// ends from the file's end and keeps everything else (a space after the
// path is part of it); a target with white space or a line break of its
// own is not read here at all.
func gitFileTarget(data []byte) (string, bool) {
	text := strings.TrimRight(string(data), "\r\n")
	target, ok := strings.CutPrefix(text, "gitdir: ")
	return target, ok && target != "" && strings.TrimSpace(target) == target && !strings.ContainsAny(target, "\r\n\t")
}

// otherVCS are the folders that make a checkout of the version control
// systems other than git that go stamps build information from (cmd/go's
// vcs table: Mercurial, Subversion, Bazaar, Fossil).
var otherVCS = []string{".hg", ".svn", ".bzr", ".fossil", "_FOSSIL_"}

// Repository says why git, started in dir (where its -C options lead,
// "" for none; relative to base, the folder it runs in), would take a folder
// that is not a checkout's .git for its repository, or "". git looks from
// the folder it runs in (physical: chdir resolves each link before a "..")
// upwards: in each folder, first at .git, then at the folder itself, which
// it takes for a bare repository when it holds HEAD and objects (or a
// commondir naming them elsewhere). A clone can carry such a folder as
// plain files with a config of its own, naming programs git runs; a .git
// it cannot carry, but a project unpacked from an archive can, so a
// checkout's repository is allowed only when its config and hooks name no
// program (repositoryTrouble). A folder that cannot be looked at counts as
// such a repository; one that does not exist is none (git stops there).
// user is the user's own configuration (ReadUser), whose relative
// hooksPaths are looked into as the repository's.
func Repository(user User, base, dir string) string {
	start := dir
	if !filepath.IsAbs(dir) {
		start = base + string(filepath.Separator) + dir
	}
	if _, ok := kernelPath(start); !ok {
		return fmt.Sprintf("the folder git would start in, %s, leads through /proc or /dev/fd, which names another folder to git than to plansmith", start)
	}
	d, err := filepath.EvalSymlinks(start)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "" // git cannot start there
	}
	if user.why != "" {
		return user.why
	}
	userHooks := user.hooksPaths
	if err != nil {
		return fmt.Sprintf("the folder git would start in, %s, cannot be looked at (%v)", start, plainfile.Message(err))
	}
	gitDir := func(d string) bool {
		return plainfile.Present(filepath.Join(d, "HEAD")) && (plainfile.Present(filepath.Join(d, "objects")) || plainfile.Present(filepath.Join(d, "commondir")))
	}
	for {
		dotgit := filepath.Join(d, ".git")
		switch {
		case IsCheckout(dotgit) && gitDir(d):
			// Should git pass over the .git after all, it would take the
			// folder holding it for a bare repository.
			return fmt.Sprintf("%s holds a .git and also HEAD and objects, which git may take for a bare repository", d)
		case IsCheckout(dotgit):
			// A checkout's (a .git file names its repository): git runs
			// there, with what its config names (repositoryTrouble).
			return repositoryTrouble(dotgit, userHooks...)
		case plainfile.Present(filepath.Join(dotgit, "HEAD")):
			// git's own reading of a .git is looser than checkout's (a
			// HEAD without the space after ref:, a linked HEAD, objects
			// and refs in a commondir): one with a HEAD this cannot read
			// as git does is refused, not walked past. (Without a HEAD
			// git passes over it, as over an empty .git.)
			return fmt.Sprintf("%s is not a .git plansmith can read as git does; git may still use it and run what its config names", dotgit)
		case gitDir(d):
			return fmt.Sprintf("git would take %s, which holds HEAD and objects, for a bare repository and run what its config names", d)
		}
		if d == filepath.Dir(d) {
			return ""
		}
		d = filepath.Dir(d)
	}
}

// IsCheckout reports whether git takes dotgit as the .git of a checkout and
// looks no further: a regular file (a worktree's or submodule's, naming
// its repository; git stops on one it cannot read), or a folder git
// accepts as a repository: HEAD naming a branch or a commit, objects and
// refs. git passes over anything else there (an empty folder, a junk HEAD,
// a pipe) and goes on to take the folder itself for a bare repository, so
// this reads strictly where the refusal reads loosely.
func IsCheckout(dotgit string) bool {
	info, err := os.Stat(dotgit)
	switch {
	case err != nil:
		return false
	case info.Mode().IsRegular():
		return true
	case !info.IsDir():
		return false
	}
	for _, d := range []string{"objects", "refs"} {
		if info, err := os.Stat(filepath.Join(dotgit, d)); err != nil || !info.IsDir() {
			return false
		}
	}
	// A pipe would never end, a huge file would take long: git's HEAD is
	// one short line.
	path := filepath.Join(dotgit, "HEAD")
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() || info.Size() > 256 {
		return false
	}
	head, err := plainfile.Read(path, 256)
	if err != nil {
		return false
	}
	h := strings.TrimSpace(string(head))
	if strings.HasPrefix(h, "ref: refs/") {
		return true
	}
	return (len(h) == 40 || len(h) == 64) && strings.Trim(h, "0123456789abcdef") == ""
}

// GoVCS says why go list, started in base (the session's folder), stamping
// version control information into a main package's build info, would run
// a program the project's files may choose (Config.GoVCS), or "". go runs
// git status and git log in the repository it finds from where it starts,
// with that repository's config and hooks, which gitRepository judges as
// for git itself; or hg, svn, bzr or fossil, whose checkouts carry their
// own configuration (an .hg/hgrc hook runs on hg status), which plansmith
// does not read: any such folder from there up counts against.
func GoVCS(user User, base string) string {
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	for d := base; ; d = filepath.Dir(d) {
		for _, m := range otherVCS {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return fmt.Sprintf("the version control program of the checkout %s, whose configuration plansmith does not read and may name programs it runs", filepath.Join(d, m))
			}
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if why := Repository(user, base, ""); why != "" {
		return "git status and git log where " + why
	}
	return ""
}
