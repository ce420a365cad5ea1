package loop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A path a repository's own files name (a .git file's gitdir, commondir,
// core.hooksPath) is where git finds it: through a link before a "..", not
// where the text cleans to (review BN1: l/../good, with l a link, was
// judged as good while git used another repository, whose fsmonitor or
// hook ran). Each case proves with real git that the program runs.
func TestARepositoryPathThroughALinkIsFollowedAsGitDoes(t *testing.T) {
	needGit(t)
	git := runGit
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
			appendConfig(t, filepath.Join(pr, "x", "good", "config"), "[core]\n\tfsmonitor = "+filepath.Join(pr, "evil.sh")+"\n")
			require.NoError(t, os.WriteFile(filepath.Join(pr, ".git"), []byte("gitdir: l/../good\n"), 0o644))
		}},
		{"commondir", func(t *testing.T, pr, marker string) {
			cp(t, filepath.Join(pr, ".git"), filepath.Join(pr, "common"))
			cp(t, filepath.Join(pr, ".git"), filepath.Join(pr, "x", "common"))
			program(t, filepath.Join(pr, "evil.sh"), marker)
			appendConfig(t, filepath.Join(pr, "x", "common", "config"), "[core]\n\tfsmonitor = "+filepath.Join(pr, "evil.sh")+"\n")
			require.NoError(t, os.WriteFile(filepath.Join(pr, ".git", "commondir"), []byte("../l/../common\n"), 0o644))
		}},
		{"hooksPath", func(t *testing.T, pr, marker string) {
			require.NoError(t, os.MkdirAll(filepath.Join(pr, "x", "hooks"), 0o755))
			program(t, filepath.Join(pr, "x", "hooks", "post-index-change"), marker)
			appendConfig(t, filepath.Join(pr, ".git", "config"), "[core]\n\thooksPath = l/../hooks\n")
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
	needGit(t)
	env, p := blockingLoop(t)
	pr := p.Project
	run := func(dir string, args ...string) { t.Helper(); runGit(t, dir, args...) }
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
	appendConfig(t, filepath.Join(sub, "g", "config"), "[core]\n\tfsmonitor = "+filepath.Join(pr, "evil.sh")+"\n")
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

	_, ok := kernelPath("/proc/self/cwd/x")
	assert.False(t, ok)
	got, ok := kernelPath(filepath.Join(pr, "sub", "..", "g"))
	assert.True(t, ok)
	assert.Equal(t, filepath.Join(pr, "g"), got)
}

// needGit skips a test that proves with real git where there is none.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
}

// runGit runs git in dir with neither the user's nor the system's config.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// A file inside a repository's folder linked through /proc (its config,
// here) is another file to git than to plansmith: refused (review BR1:
// vendor/x/.git/config -> /proc/self/cwd/cfg ran vendor/x/cfg's fsmonitor
// under git -C vendor/x status).
func TestAFileOfTheRepositoryThroughProcIsRefused(t *testing.T) {
	needGit(t)
	env, p := blockingLoop(t)
	pr := p.Project
	x := filepath.Join(pr, "vendor", "x")
	require.NoError(t, os.MkdirAll(x, 0o755))
	runGit(t, x, "init", "-q", ".")
	require.NoError(t, os.WriteFile(filepath.Join(x, "f"), []byte("hi\n"), 0o644))
	runGit(t, x, "add", "f")
	runGit(t, x, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one")
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
	runGit(t, pr, "-C", "vendor/x", "status", "--short")
	assert.FileExists(t, marker, "git ran the fsmonitor vendor/x/cfg names")
}

// A checkout with a submodule as git submodule makes it (core.worktree in
// the module's config) is an ordinary one: git may run in it (review BR3:
// every such checkout was refused).
func TestACheckoutWithASubmoduleIsAllowed(t *testing.T) {
	needGit(t)
	env, p := blockingLoop(t)
	pr := p.Project
	lib := filepath.Join(t.TempDir(), "lib")
	require.NoError(t, os.MkdirAll(lib, 0o755))
	runGit(t, lib, "init", "-q", ".")
	require.NoError(t, os.WriteFile(filepath.Join(lib, "l.go"), []byte("package lib\n"), 0o644))
	runGit(t, lib, "add", "l.go")
	runGit(t, lib, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "lib")
	runGit(t, pr, "init", "-q", ".")
	runGit(t, pr, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
	config, err := os.ReadFile(filepath.Join(pr, ".git", "modules", "vendor", "lib", "config"))
	require.NoError(t, err)
	require.Contains(t, string(config), "worktree", "git writes core.worktree for the module")
	for _, command := range []string{"git status --short", "git -C vendor/lib log -1"} {
		in, _ := json.Marshal(map[string]string{"command": command})
		out := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: pr}, Tool: "Bash", Input: in})
		assert.False(t, out.Deny, "%s: %s", command, out.Reason)
	}
}
