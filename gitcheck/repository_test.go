package gitcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/plansmith/plansmith/internal/gittest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRepositoryTrouble(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exec bits")
	}
	repo := func(config string) (string, string) { return gittest.WithConfig(t, config) }
	inert := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n; a comment\n# another\n[remote \"origin\"]\n\turl = git@example.com:o/r.git # where\n\tgh-resolved = base\n" +
		"[branch.main]\n\tremote = origin\n\tvscode-merge-base = origin/main\n[alias]\n\tst = status\n[lfs \"https://example.com/r.git/info/lfs\"]\n\taccess = basic\n[diff]\n\tcolorMoved = zebra\n"
	_, dotgit := repo(inert)
	assert.Empty(t, repositoryTrouble(dotgit))
	_, dotgit = repo(inert + "[branch]\n\tsort = -committerdate\n[tag]\n\tsort = version:refname\n")
	assert.Empty(t, repositoryTrouble(dotgit), "sort keys that name a field")

	for name, config := range map[string]string{
		"a pager":                      "[core]\n\tpager = ./x.sh\n",
		"an external diff":             "[diff]\n\texternal = ./x.sh\n",
		"a diff driver":                "[diff \"evil\"]\n\ttextconv = ./x.sh\n",
		"a filter":                     "[filter \"lfs\"]\n\tprocess = ./x.sh\n",
		"an include":                   "[include]\n\tpath = ../x.cfg\n",
		"a conditional include":        "[includeIf \"gitdir:/\"]\n\tpath = ../x.cfg\n",
		"a key in capitals":            "[Core]\n\tFsMonitor = ./x.sh\n",
		"a value continued":            "[core]\n\tbare = false \\\nfsmonitor = ./x.sh\n",
		"a quote left open":            "[remote \"o\"]\n\turl = \"x\n",
		"a key on the section's line":  "[core] fsmonitor = ./x.sh\n",
		"a key before any section":     "fsmonitor = ./x.sh\n",
		"signatures checked by a tool": "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = ./x.sh\n",
		"a local remote's upload-pack": "[remote \"o\"]\n\turl = ../other\n\tuploadpack = ./x.sh\n",
		"a remote helper":              "[remote \"o\"]\n\tvcs = evil\n",
		// A newer git sorts a listing by signature, which runs gpg (review CG2).
		"a branch listing's sort key": "[branch]\n\tsort = signature\n",
		"a tag listing's sort key":    "[tag]\n\tsort = signature:grade\n",
		"a sort key git unquotes":     "[branch]\n\tsort = \"sig\"nature\n",
		"a URL rewritten":             "[url \"ext::sh -c x\"]\n\tinsteadOf = https://\n",
		"an ssh command":              "[core]\n\tsshCommand = ./x.sh\n",
		"a credential helper":         "[credential]\n\thelper = ./x.sh\n",
		"a git-lfs extension":         "[lfs \"extension.x\"]\n\tclean = ./x.sh %f\n",
		// A partial clone fetches what a reading command finds missing
		// (review O), in either of the forms git writes.
		"a promisor remote":      "[remote \"origin\"]\n\turl = ../origin.git\n\tpromisor = true\n",
		"a partial clone filter": "[remote \"origin\"]\n\turl = ../origin.git\n\tpartialclonefilter = blob:none\n",
		"a partial clone":        "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialclone = origin\n",
	} {
		_, dotgit := repo(config)
		assert.NotEmpty(t, repositoryTrouble(dotgit), name)
	}

	// Hooks a reading command may fire: in .git/hooks, or where a
	// hooksPath (husky's, say) leads.
	dir, dotgit := repo(inert)
	hook := filepath.Join(dotgit, "hooks", "post-index-change")
	require.NoError(t, os.MkdirAll(filepath.Dir(hook), 0o755))
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o644))
	assert.Empty(t, repositoryTrouble(dotgit), "not executable: git does not run it")
	require.NoError(t, os.Chmod(hook, 0o755))
	assert.Contains(t, repositoryTrouble(dotgit), "post-index-change")
	require.NoError(t, os.Remove(hook))
	// Husky 9's layout: hooksPath .husky/_, holding a shim for every
	// hook it knows, pre-auto-gc among them, which only the gc after a
	// write (a partial clone's lazy fetch, refused by its settings) fires.
	husky9 := filepath.Join(dir, ".husky", "_")
	require.NoError(t, os.MkdirAll(husky9, 0o755))
	for _, name := range []string{"pre-auto-gc", "pre-commit", "post-checkout", "h"} {
		require.NoError(t, os.WriteFile(filepath.Join(husky9, name), []byte("#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n"), 0o755))
	}
	gittest.Append(t, filepath.Join(dotgit, "config"), "[core]\n\thooksPath = .husky/_\n")
	assert.Empty(t, repositoryTrouble(dotgit), "Husky 9's hooks")
	require.NoError(t, os.WriteFile(filepath.Join(husky9, "post-index-change"), []byte("#!/bin/sh\n"), 0o755))
	assert.Contains(t, repositoryTrouble(dotgit), "post-index-change", "a hook in the hooksPath a reading command fires")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, ".husky")))
	commit := filepath.Join(dotgit, "hooks", "pre-commit")
	require.NoError(t, os.WriteFile(commit, []byte("#!/bin/sh\n"), 0o755))
	assert.Empty(t, repositoryTrouble(dotgit), "a hook of a command the policy never allows is left alone")
	require.NoError(t, os.Remove(commit))
	gittest.Append(t, filepath.Join(dotgit, "config"), "[core]\n\thooksPath = .husky/_\n")
	husky := filepath.Join(dir, ".husky", "_")
	require.NoError(t, os.MkdirAll(husky, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(husky, "pre-commit"), []byte("#!/bin/sh\n"), 0o755))
	assert.Empty(t, repositoryTrouble(dotgit), "a pre-commit hook: no reading command runs it")
	require.NoError(t, os.WriteFile(filepath.Join(husky, "reference-transaction"), []byte("#!/bin/sh\n"), 0o755))
	assert.Contains(t, repositoryTrouble(dotgit), "reference-transaction")

	// A .git file: the repository it names (a worktree's, with a
	// commondir) is the one whose config counts.
	main, mainGit := repo(inert)
	wt := filepath.Join(mainGit, "worktrees", "w")
	require.NoError(t, os.MkdirAll(wt, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(wt, "HEAD"), []byte("ref: refs/heads/w\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wt, "commondir"), []byte("../..\n"), 0o644))
	linked := filepath.Join(t.TempDir(), ".git")
	require.NoError(t, os.WriteFile(linked, []byte("gitdir: "+wt+"\n"), 0o644))
	assert.Empty(t, repositoryTrouble(linked))
	gittest.Append(t, filepath.Join(mainGit, "config"), "[core]\n\tfsmonitor = ./x.sh\n")
	assert.Contains(t, repositoryTrouble(linked), "core.fsmonitor", "the common folder's config")
	require.NoError(t, os.WriteFile(filepath.Join(wt, "config.worktree"), []byte("[core]\n\tpager = x\n"), 0o644))
	assert.NotEmpty(t, repositoryTrouble(linked))
	_ = main

	relative := filepath.Join(t.TempDir(), "vendor")
	require.NoError(t, os.MkdirAll(filepath.Join(relative, ".realgit"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(relative, ".realgit", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(relative, ".realgit", "config"), []byte("[core]\n\tpager = ./x.sh\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(relative, ".git"), []byte("gitdir: .realgit\n"), 0o644))
	assert.Contains(t, repositoryTrouble(filepath.Join(relative, ".git")), "core.pager", "a gitdir relative to the .git file")
	require.NoError(t, os.WriteFile(filepath.Join(relative, ".git"), []byte("gitdir: .realgit\nmore\n"), 0o644))
	assert.NotEmpty(t, repositoryTrouble(filepath.Join(relative, ".git")), "not a .git file as git reads one")
}

// What review M found the first reading let through, each proven with git
// 2.39: a second header on a header's line, a hooksPath git reads another
// way, a .git file's path with a space after it, a worktree's own
// hooksPath, and a submodule's config.
func TestRepositoryTroubleReadsAsGitReads(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exec bits")
	}
	repo := func(config string) (string, string) { return gittest.WithConfig(t, config) }
	for name, config := range map[string]string{
		"a header, then another and a key":   "[alias \"x\"][core]fsmonitor=/x.sh;]\n",
		"a header, then a key":               "[alias]st=status\n",
		"a hooksPath git unquotes":           "[core]\n\thooksPath = \"ev\"il\n",
		"a hooksPath with a comment after":   "[core]\n\thooksPath = evil;x\n",
		"a subsection left open":             "[remote \"o]\n",
		"a section name with odd characters": "[co\x00re]\n",
	} {
		_, dotgit := repo(config)
		assert.NotEmpty(t, repositoryTrouble(dotgit), name)
	}
	_, dotgit := repo("[remote \"o\\\"]\\\\\"] # a quote and a backslash in the name\n\turl = x\n[core]\n\thooksPath = .husky/_\n")
	assert.Empty(t, repositoryTrouble(dotgit), "an escaped subsection, a plain hooksPath")

	// git keeps a space after a .git file's path: "store " is not "store".
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: store \n"), 0o644))
	assert.NotEmpty(t, repositoryTrouble(filepath.Join(dir, ".git")))

	// A worktree whose own config.worktree names a hooks folder: every
	// hooksPath is looked into, whichever git takes.
	main, mainGit := repo("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n[core]\n\thooksPath = safe\n")
	wt := filepath.Join(mainGit, "worktrees", "w")
	require.NoError(t, os.MkdirAll(wt, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(wt, "HEAD"), []byte("ref: refs/heads/w\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wt, "commondir"), []byte("../..\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wt, "config.worktree"), []byte("[core]\n\thooksPath = evil\n"), 0o644))
	linkedDir := t.TempDir()
	linked := filepath.Join(linkedDir, ".git")
	require.NoError(t, os.WriteFile(linked, []byte("gitdir: "+wt+"\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(linkedDir, "evil"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(linkedDir, "evil", "post-index-change"), []byte("#!/bin/sh\n"), 0o755))
	assert.Contains(t, repositoryTrouble(linked), "post-index-change")
	_ = main
}

// git status and git diff run git in every submodule checked out, with its
// own config: a submodule's config counts as the repository's.
func TestSubmodulesAreLookedInto(t *testing.T) {
	run := gittest.In(t, nil)
	dir, sub := gittest.WithNested(t, run)
	for _, f := range []string{"a-file-with-a-long-name-before", "z-after", "later"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644))
	}
	run(dir, "add", "a-file-with-a-long-name-before", "z-after")
	run(dir, "update-index", "--add", "--cacheinfo", "160000,"+run(sub, "rev-parse", "HEAD")+",sub")
	run(dir, "add", "-N", "later") // an entry with extended flags: a version 3 index
	dotgit := filepath.Join(dir, ".git")
	assert.Empty(t, repositoryTrouble(dotgit), "a submodule with git init's config")

	marker := filepath.Join(t.TempDir(), "ran")
	gittest.Append(t, filepath.Join(sub, ".git", "config"), "[core]\n\tfsmonitor = \"touch '"+marker+"' #\"\n")
	run(dir, "status", "--short")
	require.FileExists(t, marker, "git status in the top repository runs the submodule's fsmonitor")
	why := repositoryTrouble(dotgit)
	assert.Contains(t, why, "submodule sub")
	assert.Contains(t, why, "core.fsmonitor")

	links, err := gitlinks(filepath.Join(dotgit, "index"))
	require.NoError(t, err)
	assert.Equal(t, []string{"sub"}, links)
	run(dir, "update-index", "--index-version", "4")
	links, err = gitlinks(filepath.Join(dotgit, "index"))
	require.NoError(t, err)
	assert.Equal(t, []string{"sub"}, links, "a version 4 index")
}

// Review N, each proven with git 2.39: a .git whose HEAD git reads and
// checkout does not (ref: without its space) was walked past, so git ran
// its config; a .git whose commondir leads nowhere is one git rejects
// before taking the folder above for a bare repository; and submodules
// kept under .git/modules, and diff.submodule, reach configs the first
// check never read.
func TestGitRepositoryReadsHeadsAndModulesAsGitDoes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX layouts")
	}
	dir, dotgit := gittest.WithConfig(t, "[core]\n\trepositoryformatversion = 0\n")
	head, err := os.ReadFile(filepath.Join(dotgit, "HEAD"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dotgit, "HEAD"), []byte(strings.Replace(string(head), "ref: ", "ref:", 1)), 0o644))
	marker := filepath.Join(t.TempDir(), "ran")
	gittest.Append(t, filepath.Join(dotgit, "config"), "[core]\n\tfsmonitor = \"touch '"+marker+"' #\"\n")
	if git, err := exec.LookPath("git"); err == nil {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("f"), 0o644))
		cmd := exec.Command(git, "status", "--short")
		cmd.Dir = dir
		cmd.Run()
		require.FileExists(t, marker, "git takes a HEAD without the space after ref:")
	}
	assert.Contains(t, Repository(User{}, dir, ""), "is not a .git plansmith can read as git does")
	require.NoError(t, os.Remove(filepath.Join(dotgit, "HEAD")))
	require.NoError(t, os.Symlink("refs/heads/main", filepath.Join(dotgit, "HEAD")))
	assert.Contains(t, Repository(User{}, dir, ""), "is not a .git plansmith can read as git does", "a linked HEAD")

	_, dotgit = gittest.WithConfig(t, "[core]\n\trepositoryformatversion = 0\n")
	require.NoError(t, os.WriteFile(filepath.Join(dotgit, "commondir"), []byte("/nowhere\n"), 0o644))
	assert.Contains(t, repositoryTrouble(dotgit), "has no objects")

	_, dotgit = gittest.WithConfig(t, "[core]\n\trepositoryformatversion = 0\n")
	module := filepath.Join(dotgit, "modules", "libs", "sub")
	for _, d := range []string{"objects", "refs"} {
		require.NoError(t, os.MkdirAll(filepath.Join(module, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(module, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(module, "config"), []byte("[core]\n\tbare = false\n"), 0o644))
	assert.Empty(t, repositoryTrouble(dotgit), "a kept submodule with an inert config")
	gittest.Append(t, filepath.Join(module, "config"), "[diff]\n\texternal = ./x.sh\n")
	assert.Contains(t, repositoryTrouble(dotgit), "diff.external", "a submodule kept under .git/modules, as a path with a slash")

	_, dotgit = gittest.WithConfig(t, "[diff]\n\tsubmodule = diff\n")
	assert.Contains(t, repositoryTrouble(dotgit), "diff.submodule")
}

// Review CG1, proven with git 2.39: core.worktree moves the working tree
// wherever the .git was found (relative, from the repository folder), and
// git then runs a relative hooksPath's hooks, and looks into submodules,
// there, not beside the .git. A project unpacked with its .git set
// core.worktree = ../w, and w held the hook git status fired, or the
// checked-out submodule whose fsmonitor it ran.
func TestAWorkingTreeElsewhereIsLookedInto(t *testing.T) {
	run := gittest.In(t, nil)
	marker := filepath.Join(t.TempDir(), "ran")
	proj := t.TempDir()
	run(proj, "init", "-q", ".")
	w := filepath.Join(proj, "w")
	require.NoError(t, os.MkdirAll(filepath.Join(w, "h"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w, "f"), []byte("f\n"), 0o644))
	dotgit := filepath.Join(proj, ".git")
	gittest.Append(t, filepath.Join(dotgit, "config"), "[core]\n\tworktree = ../w\n\thooksPath = h\n")
	run(proj, "add", "f")
	run(proj, "commit", "-qm", "f")
	assert.Empty(t, repositoryTrouble(dotgit), "a working tree elsewhere, no hook in it")

	hook := filepath.Join(w, "h", "post-index-change")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755))
	require.NoError(t, os.Chtimes(filepath.Join(w, "f"), time.Now(), time.Now().Add(time.Hour)))
	run(proj, "status", "--short")
	require.FileExists(t, marker, "git status runs the hook in the working tree's hooksPath")
	assert.Contains(t, repositoryTrouble(dotgit), hook)
	require.NoError(t, os.Remove(hook))
	require.NoError(t, os.Remove(marker))

	sub := filepath.Join(w, "sub")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	run(sub, "init", "-q", ".")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "s"), []byte("s\n"), 0o644))
	run(sub, "add", "s")
	run(sub, "commit", "-qm", "s")
	run(proj, "update-index", "--add", "--cacheinfo", "160000,"+run(sub, "rev-parse", "HEAD")+",sub")
	assert.Empty(t, repositoryTrouble(dotgit), "a submodule in the working tree with git init's config")
	gittest.Append(t, filepath.Join(sub, ".git", "config"), "[core]\n\tfsmonitor = \"touch '"+marker+"' #\"\n")
	run(proj, "status", "--short")
	require.FileExists(t, marker, "git status runs the fsmonitor of a submodule in the working tree")
	why := repositoryTrouble(dotgit)
	assert.Contains(t, why, "submodule sub")
	assert.Contains(t, why, "core.fsmonitor")

	// A core.worktree git reads another way than as written is refused.
	_, quoted := gittest.WithConfig(t, "[core]\n\tworktree = \"../w\"\n")
	assert.NotEmpty(t, repositoryTrouble(quoted))
}

// A linked worktree keeps the repositories of its submodules in its own
// folder, .git/worktrees/NAME/modules, which was not looked into (review
// CJ2). With submodule.recurse (inert) in the config, git grep --cached in
// that worktree opens a submodule that is not checked out there; a partial
// clone's lazy fetch then runs its remote's uploadpack.
func TestAWorktreesOwnSubmoduleRepositoriesAreLookedInto(t *testing.T) {
	top := t.TempDir()
	run := gittest.In(t, []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + top}, "protocol.file.allow=always")
	git, _ := exec.LookPath("git") // gitIn has skipped the test without it
	src, proj, wt := filepath.Join(top, "src"), filepath.Join(top, "proj"), filepath.Join(top, "wt")
	for _, d := range []string{src, proj} {
		require.NoError(t, os.MkdirAll(d, 0o755))
		run(d, "init", "-q", ".")
		require.NoError(t, os.WriteFile(filepath.Join(d, "s"), []byte("s\n"), 0o644))
		run(d, "add", "s")
		run(d, "commit", "-qm", "s")
	}
	run(proj, "submodule", "-q", "add", src, "sub")
	run(proj, "commit", "-qm", "sub")
	run(proj, "worktree", "add", "-q", wt)
	run(wt, "submodule", "-q", "update", "--init")
	run(wt, "submodule", "-q", "deinit", "sub")
	run(proj, "config", "submodule.recurse", "true")
	run(proj, "config", "submodule.sub.active", "true")
	module := filepath.Join(proj, ".git", "worktrees", "wt", "modules", "sub")
	require.FileExists(t, filepath.Join(module, "HEAD"))
	dotgit := filepath.Join(wt, ".git")
	assert.Empty(t, repositoryTrouble(dotgit), "the worktree's own submodule repository, as git made it")

	marker := filepath.Join(t.TempDir(), "ran")
	mark := filepath.Join(top, "mark")
	require.NoError(t, os.WriteFile(mark, []byte("#!/bin/sh\ntouch '"+marker+"'\nexit 1\n"), 0o755))
	run(module, "config", "core.repositoryformatversion", "1")
	run(module, "config", "extensions.partialClone", "origin")
	run(module, "config", "remote.origin.promisor", "true")
	run(module, "config", "remote.origin.uploadpack", mark)
	objects := filepath.Join(module, "objects")
	require.NoError(t, os.RemoveAll(objects))
	for _, d := range []string{"pack", "info"} {
		require.NoError(t, os.MkdirAll(filepath.Join(objects, d), 0o755))
	}
	cmd := exec.Command(git, "grep", "--cached", "s")
	cmd.Dir, cmd.Env = wt, append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+top)
	cmd.Run()
	require.FileExists(t, marker, "git grep --cached in the worktree runs the submodule repository's uploadpack")
	why := repositoryTrouble(dotgit)
	assert.Contains(t, why, module)
	assert.Contains(t, why, "which can name a program git runs")
}

// core.splitIndex (inert) has git status write the index in two files,
// .git/index and .git/sharedindex.<hash>; the submodules were then not
// read and every git command in the repository was refused (review CJ3).
// Both files are read: a submodule in either is looked into.
func TestASplitIndexIsRead(t *testing.T) {
	run := gittest.In(t, nil)
	dir, sub := gittest.WithNested(t, run)
	files := strings.Split("a b c d e f g h i j", " ") // enough that one more entry does not rewrite the shared file
	for _, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644))
	}
	run(dir, append([]string{"add"}, files...)...)
	run(dir, "update-index", "--add", "--cacheinfo", "160000,"+run(sub, "rev-parse", "HEAD")+",sub")
	run(dir, "commit", "-qm", "top")
	gittest.Append(t, filepath.Join(dir, ".git", "config"), "[core]\n\tsplitIndex = true\n")
	require.NoError(t, os.Chtimes(filepath.Join(dir, "a"), time.Now(), time.Now().Add(time.Hour)))
	run(dir, "status", "--short")
	shared, err := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
	require.NoError(t, err)
	require.NotEmpty(t, shared, "git status split the index")
	dotgit := filepath.Join(dir, ".git")
	assert.Empty(t, repositoryTrouble(dotgit), "a split index, a submodule with git init's config")
	links, err := gitlinks(filepath.Join(dotgit, "index"))
	require.NoError(t, err)
	assert.Equal(t, []string{"sub"}, links, "the gitlink kept in the shared file")

	// A gitlink added after the split lands in the split part.
	sub2 := filepath.Join(dir, "sub2")
	require.NoError(t, os.MkdirAll(sub2, 0o755))
	run(sub2, "init", "-q", ".")
	require.NoError(t, os.WriteFile(filepath.Join(sub2, "s"), []byte("s\n"), 0o644))
	run(sub2, "add", "s")
	run(sub2, "commit", "-qm", "s")
	run(dir, "update-index", "--add", "--cacheinfo", "160000,"+run(sub2, "rev-parse", "HEAD")+",sub2")
	split, base, _, err := indexGitlinks(filepath.Join(dotgit, "index"), false)
	require.NoError(t, err)
	require.NotNil(t, base, "still split")
	assert.Equal(t, []string{"sub2"}, split, "the new gitlink is in the split part")
	links, err = gitlinks(filepath.Join(dotgit, "index"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"sub", "sub2"}, links)
	marker := filepath.Join(t.TempDir(), "ran")
	for _, s := range []string{sub, sub2} {
		gittest.Append(t, filepath.Join(s, ".git", "config"), "[core]\n\tfsmonitor = \"touch '"+marker+"' #\"\n")
		run(dir, "status", "--short")
		require.FileExists(t, marker, "git status runs the submodule's fsmonitor")
		require.NoError(t, os.Remove(marker))
		assert.Contains(t, repositoryTrouble(dotgit), "core.fsmonitor", s)
		require.NoError(t, os.WriteFile(filepath.Join(s, ".git", "config"), []byte("[core]\n\trepositoryformatversion = 0\n"), 0o644))
	}
	// A submodule's recorded commit changed: the split part replaces the
	// shared entry and keeps no path for it, so every shared path counts.
	run(dir, "update-index", "--split-index")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "t"), []byte("t\n"), 0o644))
	run(sub, "add", "t")
	run(sub, "commit", "-qm", "t")
	run(dir, "update-index", "--cacheinfo", "160000,"+run(sub, "rev-parse", "HEAD")+",sub")
	_, _, replaced, err := indexGitlinks(filepath.Join(dotgit, "index"), false)
	require.NoError(t, err)
	require.True(t, replaced, "the split part replaces the shared gitlink")
	links, err = gitlinks(filepath.Join(dotgit, "index"))
	require.NoError(t, err)
	assert.Contains(t, links, "sub")
	assert.Contains(t, links, "sub2")
	assert.Empty(t, repositoryTrouble(dotgit), "every shared path is looked into; only the submodules hold a .git")

	run(dir, "update-index", "--index-version", "4")
	links, err = gitlinks(filepath.Join(dotgit, "index"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"sub", "sub2"}, links, "a version 4 split index")

	// git writes the whole index again, its link naming no shared file,
	// when an entry changes more than its data (a file made a gitlink).
	run(dir, "update-index", "--cacheinfo", "160000,"+run(sub, "rev-parse", "HEAD")+",a")
	links, err = gitlinks(filepath.Join(dotgit, "index"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a", "sub", "sub2"}, links)
}

// kernelPath resolves a path as the kernel opens it, and gives up on one
// through /proc, whose entries are each process's own (review BP1).
func TestKernelPath(t *testing.T) {
	_, ok := kernelPath("/proc/self/cwd/x")
	assert.False(t, ok)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "a", "b"), filepath.Join(dir, "l")))
	got, ok := kernelPath(dir + "/sub/../g")
	assert.True(t, ok)
	assert.Equal(t, filepath.Join(dir, "g"), got, "a part that does not exist is taken as written")
	got, ok = kernelPath(dir + "/l/../g") // not filepath.Join, which cleans the .. away as text
	assert.True(t, ok)
	assert.Equal(t, filepath.Join(dir, "a", "g"), got, "the link is followed before its .. climbs")
	require.NoError(t, os.Symlink("/proc/self/cwd", filepath.Join(dir, "p")))
	_, ok = kernelPath(filepath.Join(dir, "p", "x"))
	assert.False(t, ok, "a link into /proc")
}

// A linked worktree's repository is its folder under worktrees/ and the
// common one: the submodule repositories kept in the common folder's
// modules are git's to open from the worktree too (git grep --cached under
// submodule.recurse), so they are looked into as the worktree's own are
// (review CM, mutant L9: the common folder's modules went unread).
func TestAWorktreeLooksIntoTheCommonModules(t *testing.T) {
	top := t.TempDir()
	common := filepath.Join(top, "proj", ".git")
	repo := func(dir, config string) {
		t.Helper()
		for _, d := range []string{"objects", "refs"} {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "config"), []byte(config), 0o644))
	}
	inert := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
	repo(common, inert)
	own := filepath.Join(common, "worktrees", "wt")
	require.NoError(t, os.MkdirAll(own, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(own, "HEAD"), []byte("ref: refs/heads/wt\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(own, "commondir"), []byte("../..\n"), 0o644))
	wt := filepath.Join(top, "wt")
	require.NoError(t, os.MkdirAll(wt, 0o755))
	dotgit := filepath.Join(wt, ".git")
	require.NoError(t, os.WriteFile(dotgit, []byte("gitdir: "+own+"\n"), 0o644))
	module := filepath.Join(common, "modules", "lib")
	repo(module, inert)
	assert.Empty(t, repositoryTrouble(dotgit), "an inert submodule repository in the common folder")

	repo(module, inert+"\tfsmonitor = ./watch\n")
	assert.Contains(t, repositoryTrouble(dotgit), module, "judged from the linked worktree")
	assert.Contains(t, repositoryTrouble(filepath.Join(top, "proj", ".git")), module, "and from the main one")
}
