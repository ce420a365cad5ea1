package loop

// Git commands judged through PreToolUse against real repositories: the
// checks themselves (package gitcheck) are tested there; these prove the
// hook asks them, in the folder git would run in, and refuses.

import (
	"encoding/json"
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

// A project unpacked from an archive carries its .git: git status there
// runs what its config names. PreToolUse refuses git in such a checkout,
// and allows it in one whose config is git init's (or a clone's, with the
// settings people keep per repository).
func TestGitInACheckoutWhoseConfigNamesAProgramIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell hooks")
	}
	env, p := blockingLoop(t)
	gittest.Init(t, p.Project)
	config := filepath.Join(p.Project, ".git", "config")
	judge := func(command string) ToolOutcome {
		return bashCall(t, env, p.Project, command)
	}
	assert.False(t, judge("git status --short").Deny, "git init's config is inert")
	gittest.Append(t, config, "[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"+
		"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\temail = me@example.com\n[pull]\n\trebase = true\n")
	assert.False(t, judge("git status --short").Deny, "a clone's config and a user's settings are inert")

	marker := filepath.Join(t.TempDir(), "ran")
	gittest.Append(t, config, "[core]\n\tfsmonitor = \"touch '"+marker+"' #\"\n")
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "status", "--short")
		cmd.Dir = p.Project
		cmd.Run()
		require.FileExists(t, marker, "git status runs the program core.fsmonitor names")
	}
	for _, command := range []string{"git status --short", "git diff", "git -C . log -1", "git log --oneline -3"} {
		out := judge(command)
		assert.True(t, out.Deny, command)
		assert.Contains(t, out.Reason, "sets core.fsmonitor", command)
	}
}

// go list stamps a main package's build info by running git status and git
// log in the repository it finds (review AQ1): in a clone whose hooksPath
// names a folder with a hook git status fires (Husky's .husky), or in a
// Mercurial checkout, go list is refused as git is, and allowed with
// -buildvcs=false; in an inert checkout it is allowed.
func TestGoListWhereItsVersionControlRunsAProgramIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell hooks")
	}
	env, p := blockingLoop(t)
	gittest.Init(t, p.Project)
	judge := func(command string) ToolOutcome {
		return bashCall(t, env, p.Project, command)
	}
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, "go.mod"), []byte("module example.com/x\n\ngo 1.21\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	assert.False(t, judge("go list ./...").Deny, "git init's repository is inert")

	marker := filepath.Join(t.TempDir(), "ran")
	husky := filepath.Join(p.Project, ".husky")
	require.NoError(t, os.MkdirAll(husky, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(husky, "post-index-change"), []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755))
	gittest.Append(t, filepath.Join(p.Project, ".git", "config"), "[core]\n\thooksPath = .husky\n")
	goBin, goErr := exec.LookPath("go")
	if git, gitErr := exec.LookPath("git"); goErr == nil && gitErr == nil {
		// A clone: the files committed, then one touched, so that git
		// status refreshes the index and fires the hook.
		out, err := exec.Command(git, "-C", p.Project, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.hooksPath=/nowhere",
			"commit", "-qm", "x", "--allow-empty").CombinedOutput()
		require.NoError(t, err, "%s", out)
		out, err = exec.Command(git, "-C", p.Project, "-c", "core.hooksPath=/nowhere", "add", "go.mod", "main.go").CombinedOutput()
		require.NoError(t, err, "%s", out)
		out, err = exec.Command(git, "-C", p.Project, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.hooksPath=/nowhere",
			"commit", "-qm", "y").CombinedOutput()
		require.NoError(t, err, "%s", out)
		later := time.Now().Add(time.Hour)
		require.NoError(t, os.Chtimes(filepath.Join(p.Project, "main.go"), later, later))
		cmd := exec.Command(goBin, "list", "./...")
		cmd.Dir = p.Project
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto", "GOTOOLCHAIN=local", "GOWORK=off")
		out, err = cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.FileExists(t, marker, "go list ran git status, which ran the hook")
	}
	for _, command := range []string{"go list ./...", "go list -f '{{.Dir}}' ./...", "go list -deps .", "go list ./... -buildvcs=false"} {
		out := judge(command)
		assert.True(t, out.Deny, command)
		assert.Contains(t, out.Reason, "post-index-change", command)
		assert.Contains(t, out.Reason, "-buildvcs=false", command)
	}
	for _, command := range []string{"go list -buildvcs=false ./...", "go list -m all", "go list -json=Dir,ImportPath ./..."} {
		assert.False(t, judge(command).Deny, command)
	}

	require.NoError(t, os.RemoveAll(husky))
	assert.False(t, judge("go list ./...").Deny)
	require.NoError(t, os.MkdirAll(filepath.Join(p.Project, ".hg"), 0o755))
	out := judge("go list ./...")
	assert.True(t, out.Deny, "a Mercurial checkout's hgrc can name hooks hg status runs")
	assert.Contains(t, out.Reason, ".hg")
}

// A partial clone fetches an object a reading command finds missing: git
// show writes a pack into .git and talks to the remote (and its git
// maintenance may run the pre-auto-gc hook; review O). Every file of it,
// the remote too, is one an archive can carry. PreToolUse refuses git
// there.
func TestGitInAPartialCloneIsRefused(t *testing.T) {
	top := t.TempDir()
	run := gittest.In(t, []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + top})
	origin := filepath.Join(top, "origin.git")
	run(top, "init", "-q", "--bare", origin)
	run(origin, "config", "uploadpack.allowfilter", "true")
	work := filepath.Join(top, "w")
	run(top, "init", "-q", work)
	require.NoError(t, os.WriteFile(filepath.Join(work, "f"), []byte("one\n"), 0o644))
	run(work, "add", "f")
	run(work, "commit", "-qm", "one")
	run(work, "push", "-q", origin, "HEAD:refs/heads/main")

	env, p := blockingLoop(t)
	project := p.Project
	clone := filepath.Join(top, "clone")
	run(top, "clone", "-q", "--no-local", "--filter=blob:none", "--no-checkout", "file://"+origin, clone)
	require.NoError(t, os.Rename(filepath.Join(clone, ".git"), filepath.Join(project, ".git")))
	require.NoError(t, os.WriteFile(filepath.Join(work, "h"), []byte("third\n"), 0o644))
	run(work, "add", "h")
	run(work, "commit", "-qm", "three")
	run(work, "push", "-q", origin, "HEAD:refs/heads/main")
	run(project, "fetch", "-q", "origin")
	packs := func() int {
		entries, err := os.ReadDir(filepath.Join(project, ".git", "objects", "pack"))
		require.NoError(t, err)
		return len(entries)
	}
	before := packs()
	run(project, "show", "origin/main:h")
	assert.Greater(t, packs(), before, "git show fetched the missing blob into a new pack")

	in, err := json.Marshal(map[string]string{"command": "git show origin/main:h"})
	require.NoError(t, err)
	out := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: project}, Tool: "Bash", Input: in})
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "promisor")
}

// A path a repository's own files name (a .git file's gitdir, commondir,
// core.hooksPath) is where git finds it: through a link before a "..", not
// where the text cleans to (review BN1: l/../good, with l a link, was
// judged as good while git used another repository, whose fsmonitor or
// hook ran). Each case proves with real git that the program runs.
func TestARepositoryPathThroughALinkIsFollowedAsGitDoes(t *testing.T) {
	gittest.Need(t)
	git := gittest.Run
	checkout := func(t *testing.T, pr string) {
		git(t, pr, "init", "-q", ".")
		require.NoError(t, os.WriteFile(filepath.Join(pr, "f"), []byte("hi\n"), 0o644))
		git(t, pr, "add", "f")
		git(t, pr, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one")
		require.NoError(t, os.MkdirAll(filepath.Join(pr, "x", "y"), 0o755))
		require.NoError(t, os.Symlink(filepath.Join("x", "y"), filepath.Join(pr, "l")))
	}
	program := func(t *testing.T, path, marker string) {
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\ntouch '"+marker+"'\necho '[]'\n"), 0o755))
	}
	cp := func(t *testing.T, from, to string) {
		out, err := exec.Command("cp", "-a", from, to).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, pr, marker string)
	}{
		{"gitdir", func(t *testing.T, pr, marker string) {
			require.NoError(t, os.Rename(filepath.Join(pr, ".git"), filepath.Join(pr, "good")))
			cp(t, filepath.Join(pr, "good"), filepath.Join(pr, "x", "good"))
			program(t, filepath.Join(pr, "evil.sh"), marker)
			gittest.Append(t, filepath.Join(pr, "x", "good", "config"), "[core]\n\tfsmonitor = "+filepath.Join(pr, "evil.sh")+"\n")
			require.NoError(t, os.WriteFile(filepath.Join(pr, ".git"), []byte("gitdir: l/../good\n"), 0o644))
		}},
		{"commondir", func(t *testing.T, pr, marker string) {
			cp(t, filepath.Join(pr, ".git"), filepath.Join(pr, "common"))
			cp(t, filepath.Join(pr, ".git"), filepath.Join(pr, "x", "common"))
			program(t, filepath.Join(pr, "evil.sh"), marker)
			gittest.Append(t, filepath.Join(pr, "x", "common", "config"), "[core]\n\tfsmonitor = "+filepath.Join(pr, "evil.sh")+"\n")
			require.NoError(t, os.WriteFile(filepath.Join(pr, ".git", "commondir"), []byte("../l/../common\n"), 0o644))
		}},
		{"hooksPath", func(t *testing.T, pr, marker string) {
			require.NoError(t, os.MkdirAll(filepath.Join(pr, "x", "hooks"), 0o755))
			program(t, filepath.Join(pr, "x", "hooks", "post-index-change"), marker)
			gittest.Append(t, filepath.Join(pr, ".git", "config"), "[core]\n\thooksPath = l/../hooks\n")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, p := blockingLoop(t)
			pr := p.Project
			checkout(t, pr)
			marker := filepath.Join(t.TempDir(), "ran")
			tc.setup(t, pr, marker)
			later := time.Now().Add(time.Hour)
			require.NoError(t, os.WriteFile(filepath.Join(pr, "f"), []byte("changed\n"), 0o644))
			require.NoError(t, os.Chtimes(filepath.Join(pr, "f"), later, later))
			for _, command := range []string{"git status --short", "git diff", "git log -1"} {
				in, _ := json.Marshal(map[string]string{"command": command})
				out := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: pr}, Tool: "Bash", Input: in})
				assert.True(t, out.Deny, "%s: %s", command, out.Reason)
			}
			// What the refusal is for: git runs the program.
			git(t, pr, "status", "--short")
			assert.FileExists(t, marker)
		})
	}
}

// A path through /proc/self/cwd is where git runs to git, and where the
// hook runs to plansmith: a .git file naming /proc/self/cwd/g, or a
// hooksPath there, is refused (review BP1: git -C sub status ran the
// fsmonitor of sub/g while plansmith judged the project's g).
func TestARepositoryPathThroughProcIsRefused(t *testing.T) {
	gittest.Need(t)
	env, p := blockingLoop(t)
	pr := p.Project
	run := func(dir string, args ...string) { t.Helper(); gittest.Run(t, dir, args...) }
	sub := filepath.Join(pr, "sub")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	run(sub, "init", "-q", ".")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "f"), []byte("hi\n"), 0o644))
	run(sub, "add", "f")
	run(sub, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one")
	require.NoError(t, os.Rename(filepath.Join(sub, ".git"), filepath.Join(sub, "g")))
	// The project's own g, which plansmith would read from its folder, is
	// inert; sub's g, which git reads, names a program.
	out, err := exec.Command("cp", "-a", filepath.Join(sub, "g"), filepath.Join(pr, "g")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	marker := filepath.Join(t.TempDir(), "ran")
	require.NoError(t, os.WriteFile(filepath.Join(pr, "evil.sh"), []byte("#!/bin/sh\ntouch '"+marker+"'\necho '[]'\n"), 0o755))
	gittest.Append(t, filepath.Join(sub, "g", "config"), "[core]\n\tfsmonitor = "+filepath.Join(pr, "evil.sh")+"\n")
	require.NoError(t, os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: /proc/self/cwd/g\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "f"), []byte("changed\n"), 0o644))

	in, _ := json.Marshal(map[string]string{"command": "git -C sub status --short"})
	deny := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: pr}, Tool: "Bash", Input: in})
	assert.True(t, deny.Deny, deny.Reason)
	assert.Contains(t, deny.Reason, "/proc")
	run(pr, "-C", "sub", "status", "--short")
	assert.FileExists(t, marker, "git ran sub/g's fsmonitor")
	// git -C's own folder through /proc is git's folder to git only.
	in, _ = json.Marshal(map[string]string{"command": "git -C /proc/self/cwd log -1"})
	deny = PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: pr}, Tool: "Bash", Input: in})
	assert.True(t, deny.Deny, deny.Reason)
}

// A file inside a repository's folder linked through /proc (its config,
// here) is another file to git than to plansmith: refused (review BR1:
// vendor/x/.git/config -> /proc/self/cwd/cfg ran vendor/x/cfg's fsmonitor
// under git -C vendor/x status).
func TestAFileOfTheRepositoryThroughProcIsRefused(t *testing.T) {
	gittest.Need(t)
	env, p := blockingLoop(t)
	pr := p.Project
	x := filepath.Join(pr, "vendor", "x")
	require.NoError(t, os.MkdirAll(x, 0o755))
	gittest.Run(t, x, "init", "-q", ".")
	require.NoError(t, os.WriteFile(filepath.Join(x, "f"), []byte("hi\n"), 0o644))
	gittest.Run(t, x, "add", "f")
	gittest.Run(t, x, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one")
	cfg, err := os.ReadFile(filepath.Join(x, ".git", "config"))
	require.NoError(t, err)
	marker := filepath.Join(t.TempDir(), "ran")
	require.NoError(t, os.WriteFile(filepath.Join(pr, "evil.sh"), []byte("#!/bin/sh\ntouch '"+marker+"'\necho '[]'\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(x, "cfg"), append(cfg, []byte("[core]\n\tfsmonitor = "+filepath.Join(pr, "evil.sh")+"\n")...), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pr, "cfg"), cfg, 0o644)) // what the hook's own folder would show
	require.NoError(t, os.Remove(filepath.Join(x, ".git", "config")))
	require.NoError(t, os.Symlink("/proc/self/cwd/cfg", filepath.Join(x, ".git", "config")))
	require.NoError(t, os.WriteFile(filepath.Join(x, "f"), []byte("changed\n"), 0o644))

	in, _ := json.Marshal(map[string]string{"command": "git -C vendor/x status --short"})
	out := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: pr}, Tool: "Bash", Input: in})
	assert.True(t, out.Deny, out.Reason)
	assert.Contains(t, out.Reason, "/proc")
	gittest.Run(t, pr, "-C", "vendor/x", "status", "--short")
	assert.FileExists(t, marker, "git ran the fsmonitor vendor/x/cfg names")
}

// A checkout with a submodule as git submodule makes it (core.worktree in
// the module's config) is an ordinary one: git may run in it (review BR3:
// every such checkout was refused).
func TestACheckoutWithASubmoduleIsAllowed(t *testing.T) {
	gittest.Need(t)
	env, p := blockingLoop(t)
	pr := p.Project
	lib := filepath.Join(t.TempDir(), "lib")
	require.NoError(t, os.MkdirAll(lib, 0o755))
	gittest.Run(t, lib, "init", "-q", ".")
	require.NoError(t, os.WriteFile(filepath.Join(lib, "l.go"), []byte("package lib\n"), 0o644))
	gittest.Run(t, lib, "add", "l.go")
	gittest.Run(t, lib, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "lib")
	gittest.Run(t, pr, "init", "-q", ".")
	gittest.Run(t, pr, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
	config, err := os.ReadFile(filepath.Join(pr, ".git", "modules", "vendor", "lib", "config"))
	require.NoError(t, err)
	require.Contains(t, string(config), "worktree", "git writes core.worktree for the module")
	for _, command := range []string{"git status --short", "git -C vendor/lib log -1"} {
		in, _ := json.Marshal(map[string]string{"command": command})
		out := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: pr}, Tool: "Bash", Input: in})
		assert.False(t, out.Deny, "%s: %s", command, out.Reason)
	}
}

// The user's own git configuration with a relative path runs what the
// project carries (review CJ1): a relative core.hooksPath in ~/.gitconfig
// has git status fire the project's post-index-change, and a relative
// core.fsmonitor or textconv runs the project's file. PreToolUse reads the
// user's configuration as git does and refuses git then; a configuration
// naming only the user's own programs is allowed.
func TestTheUsersGitConfigWithRelativePathsIsRead(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("needs git")
	}
	env, p := blockingLoop(t)
	home, xdg := t.TempDir(), t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_SYSTEM": "/dev/null"}
	env.Getenv = func(k string) string { return vars[k] }
	gitEnv := func() []string {
		e := append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		for k, v := range vars {
			e = append(e, k+"="+v)
		}
		return e
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = p.Project, gitEnv()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	judge := func(command string) ToolOutcome {
		return bashCall(t, env, p.Project, command)
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), mode))
	}
	marker := filepath.Join(t.TempDir(), "ran")
	mark := "#!/bin/sh\ntouch '" + marker + "'\n"
	ran := func(what string) {
		t.Helper()
		require.FileExists(t, marker, what)
		require.NoError(t, os.Remove(marker))
	}
	tracked := filepath.Join(p.Project, "f")
	write(tracked, "f\n", 0o644)
	run("init", "-q", ".")
	run("add", "f")
	run("commit", "-qm", "f")
	touch := func() { require.NoError(t, os.Chtimes(tracked, time.Now(), time.Now().Add(time.Hour))) }

	// The user's own programs, named absolutely or from home, and settings
	// that are not commands: allowed.
	write(gitconfig, "[core]\n\thooksPath = ~/hooks\n\tfsmonitor = false\n\texcludesFile = .gitignore_global\n"+
		"[alias]\n\tlg = \"!f() { git log --format=\\\"%h/%s\\\" \\\"$@\\\"; }; f\"\n"+
		"[diff \"img\"]\n\ttextconv = /usr/bin/exiftool\n[url \"git@github.com:\"]\n\tinsteadOf = https://github.com/\n"+
		"[include]\n\tpath = more.cfg\n", 0o644)
	write(filepath.Join(home, "more.cfg"), "[core]\n\tpager = less -R\n", 0o644)
	assert.False(t, judge("git status --short").Deny, "the user's own programs")

	// A relative core.hooksPath: the project's .githooks supplies the hook.
	write(gitconfig, "[core]\n\thooksPath = .githooks\n", 0o644)
	assert.False(t, judge("git status --short").Deny, "no hook in the project's .githooks")
	write(filepath.Join(p.Project, ".githooks", "post-index-change"), mark, 0o755)
	touch()
	run("status", "--short")
	ran("git status runs the project's hook through the user's relative hooksPath")
	out := judge("git status --short")
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, filepath.Join(".githooks", "post-index-change"))
	require.NoError(t, os.Remove(gitconfig))
	assert.False(t, judge("git status --short").Deny, "without the user's hooksPath the folder is data")

	// A relative core.fsmonitor in the XDG file, and through an include.
	write(filepath.Join(p.Project, ".git", "hooks", "fsm"), mark, 0o755)
	xdgConfig := filepath.Join(xdg, "git", "config")
	write(xdgConfig, "[core]\n\tfsmonitor = .git/hooks/fsm\n", 0o644)
	run("status", "--short")
	ran("git status runs the project's fsmonitor named relatively in the user's configuration")
	out = judge("git status --short")
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "core.fsmonitor")
	write(xdgConfig, "[includeIf \"gitdir:/\"]\n\tpath = ../fsm.cfg\n", 0o644)
	write(filepath.Join(xdg, "fsm.cfg"), "[core]\n\tfsmonitor = .git/hooks/fsm\n", 0o644)
	run("status", "--short")
	ran("an included file's relative fsmonitor")
	assert.True(t, judge("git status --short").Deny, "through an include")
	require.NoError(t, os.Remove(xdgConfig))

	// A relative textconv in GIT_CONFIG_GLOBAL, chosen by .gitattributes.
	write(filepath.Join(p.Project, "conv"), mark, 0o755)
	write(filepath.Join(p.Project, ".gitattributes"), "* diff=x\n", 0o644)
	global := filepath.Join(t.TempDir(), "global")
	write(global, "[diff \"x\"]\n\ttextconv = ./conv\n", 0o644)
	vars["GIT_CONFIG_GLOBAL"] = global
	write(tracked, "g\n", 0o644)
	run("diff")
	ran("git diff runs the project's ./conv")
	out = judge("git diff")
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "./conv")
	delete(vars, "GIT_CONFIG_GLOBAL")
	assert.False(t, judge("git diff").Deny)

	// A textconv cache writes notes into the repository (review CJ5).
	run("commit", "-qam", "g")
	write(global, "[diff \"x\"]\n\ttextconv = sed s/g/G/\n\tcachetextconv = true\n", 0o644)
	vars["GIT_CONFIG_GLOBAL"] = global
	run("log", "-p")
	notes := exec.Command(git, "for-each-ref", "refs/notes/textconv/")
	notes.Dir = p.Project
	listed, err := notes.Output()
	require.NoError(t, err)
	require.Contains(t, string(listed), "refs/notes/textconv/x", "git log -p wrote the textconv cache")
	out = judge("git log -p")
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "cachetextconv")
	delete(vars, "GIT_CONFIG_GLOBAL")

	// A relative XDG_CONFIG_HOME is read from the folder git runs in.
	vars["XDG_CONFIG_HOME"] = "cfg"
	out = judge("git status")
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "relative path")
	vars["XDG_CONFIG_HOME"] = xdg

	// The same through GIT_CONFIG_COUNT.
	vars["GIT_CONFIG_COUNT"], vars["GIT_CONFIG_KEY_0"], vars["GIT_CONFIG_VALUE_0"] = "1", "diff.x.textconv", "sh conv/../conv"
	assert.True(t, judge("git log -p").Deny)
}

// With log.showSignature in the user's own config, git log and git show
// run the verifier each signed commit's armour names (review CJ4): an
// X.509 armour runs gpg.x509.program. PreToolUse then asks for
// --no-show-signature, and allows git log and git show with it.
func TestTheUsersShowSignatureNeedsItTurnedOff(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("needs git")
	}
	env, p := blockingLoop(t)
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_SYSTEM": "/dev/null", "XDG_CONFIG_HOME": home}
	env.Getenv = func(k string) string { return vars[k] }
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = p.Project
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		for k, v := range vars {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stdin = strings.NewReader(stdin)
		out, _ := cmd.CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	judge := func(command string) ToolOutcome {
		return bashCall(t, env, p.Project, command)
	}
	run("", "init", "-q", ".")
	tree := run("", "write-tree")
	signed := run("tree "+tree+"\nauthor a <a@b> 1 +0000\ncommitter a <a@b> 1 +0000\ngpgsig -----BEGIN SIGNED MESSAGE-----\n MIIB\n -----END SIGNED MESSAGE-----\n\nsigned\n",
		"hash-object", "-t", "commit", "-w", "--stdin")
	run("", "update-ref", "HEAD", signed)
	marker := filepath.Join(t.TempDir(), "ran")
	mark := filepath.Join(home, "mark")
	require.NoError(t, os.WriteFile(mark, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[gpg \"x509\"]\n\tprogram = "+mark+"\n"), 0o644))
	run("", "log", "-1")
	require.NoFileExists(t, marker, "no verifier without log.showSignature")
	assert.False(t, judge("git log -1").Deny)

	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[gpg \"x509\"]\n\tprogram = "+mark+"\n[log]\n\tshowSignature = true\n"), 0o644))
	run("", "log", "--oneline", "-1")
	require.FileExists(t, marker, "git log runs the x509 verifier under log.showSignature")
	require.NoError(t, os.Remove(marker))
	run("", "log", "--oneline", "--no-show-signature", "-1")
	require.NoFileExists(t, marker, "--no-show-signature turns it off")
	for _, command := range []string{"git log --oneline -1", "git show --stat", "git range-diff a..b c..d", "git log --grep --no-show-signature",
		"git log --oneline --no-show-signature"} {
		out := judge(command)
		assert.True(t, out.Deny, command)
		assert.Contains(t, out.Reason, "log.showSignature", command)
	}
	for _, command := range []string{"git log --no-show-signature --oneline -1", "git show --no-show-signature --stat", "git status", "git blame f"} {
		assert.False(t, judge(command).Deny, command)
	}

	// git stash list runs git log -g with a format of its own, and git
	// reflog with a format option leaves the oneline form, in which git
	// prints no signature: both run the verifier of a stash or reflog
	// entry the project carries (review CM).
	run("", "update-ref", "--create-reflog", "-m", "WIP on main: x", "refs/stash", signed)
	for _, args := range [][]string{{"stash", "list"}, {"reflog", "--format=%s"}, {"reflog", "show", "--pretty=medium"}} {
		run("", args...)
		require.FileExists(t, marker, "git %s runs the verifier under log.showSignature", strings.Join(args, " "))
		require.NoError(t, os.Remove(marker))
		out := judge("git " + strings.Join(args, " "))
		assert.True(t, out.Deny, args)
		assert.Contains(t, out.Reason, "log.showSignature", args)
	}
	for _, args := range [][]string{{"stash", "list", "--no-show-signature"}, {"reflog", "show", "--no-show-signature", "--pretty=medium"}, {"reflog"}, {"reflog", "-p"}} {
		run("", args...)
		require.NoFileExists(t, marker, "git %s runs no verifier", strings.Join(args, " "))
		assert.False(t, judge("git "+strings.Join(args, " ")).Deny, args)
	}
}
