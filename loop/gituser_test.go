package loop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		in, err := json.Marshal(map[string]string{"command": command})
		require.NoError(t, err)
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: in})
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

// parseGitConfig reads values as git does: quotes, escapes, comments,
// continued lines, a key after a section header on its line.
func TestParseGitConfigReadsAsGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("needs git")
	}
	for _, text := range []string{
		"[core]\n\tfsmonitor = \"a b\" c # d\n",
		"[core] fsmonitor = x;y\n[Diff \"A.b\"]\n\tTextConv = ./c \\\n  d\n",
		"[a.B]\n\tk\n\tv = \"x\\\"/y\\\\\"  \n[x]y=z\n",
		"\ufeff[core]\r\n\tpager = less   -R\t\r\n",
	} {
		path := filepath.Join(t.TempDir(), "c")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		out, err := exec.Command(git, "config", "--file", path, "--list").Output()
		require.NoError(t, err, text)
		entries, err := parseGitConfig([]byte(text))
		require.NoError(t, err, text)
		var got []string
		for _, e := range entries {
			name := e.section
			if e.sub != "" {
				name += "." + e.sub
			}
			line := name + "." + e.key
			if e.hasValue {
				line += "=" + e.value
			}
			got = append(got, line)
		}
		assert.Equal(t, strings.TrimSpace(string(out)), strings.Join(got, "\n"), text)
	}
	for _, bad := range []string{"k = v\n", "[core]\n\tx = \"open\n", "[core]\n\tx = \\q\n", "[core\n"} {
		_, err := parseGitConfig([]byte(bad))
		assert.Error(t, err, bad)
	}
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
		in, err := json.Marshal(map[string]string{"command": command})
		require.NoError(t, err)
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: in})
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

func TestRelativeWord(t *testing.T) {
	for cmd, want := range map[string]string{
		".git/hooks/fsmonitor-watchman": ".git/hooks/fsmonitor-watchman",
		"./conv":                        "./conv",
		"sh tools/conv.sh":              "tools/conv.sh",
		"python3 -u tools/c.py --x":     "tools/c.py",
		"exiftool -b ../x":              "../x",
		"sed s/a/b/":                    "",
		"sh conv.sh":                    "conv.sh",
		"python3 -u conv.py":            "conv.py",
		"env sh conv.sh":                "conv.sh",
		"env conv":                      "",
		"sh -c 'exiftool \"$1\"' -":     "",
		"perl -e 'print 1'":             "",
		"sh /usr/local/bin/conv.sh":     "",
		"bash ~/bin/conv":               "",
		"tr a-z A-Z":                    "",
		"/usr/bin/exiftool":             "",
		"~/bin/conv":                    "",
		"$HOME/bin/conv":                "",
		"diff-so-fancy | less --tabs=4": "",
		"git-lfs filter-process":        "",
		"curl https://example.com/x":    "",
	} {
		assert.Equal(t, want, relativeWord(cmd), cmd)
	}
}

// Every program setting of the user's config, and every way git is given
// one, is judged: a relative command refuses git (review CM, mutation
// check of review CJ1's reader).
func TestEveryProgramSettingOfTheUserIsJudged(t *testing.T) {
	judge := func(vars map[string]string) (userConfigReader, string) {
		if vars["HOME"] == "" {
			vars["HOME"] = t.TempDir()
		}
		return readUserGitConfig(Env{Getenv: func(k string) string { return vars[k] }})
	}
	if _, base := judge(map[string]string{}); base != "" {
		t.Skipf("this machine's own git config is refused already: %s", base)
	}
	for _, key := range []string{"core.fsmonitor", "core.pager", "core.editor", "core.sshCommand", "core.askPass",
		"core.gitProxy", "core.alternateRefsCommand", "pager.log", "diff.external", "diff.x.command", "diff.x.textconv",
		"filter.x.clean", "filter.x.smudge", "filter.x.process", "merge.x.driver", "gpg.program", "gpg.x509.program",
		"gpg.ssh.defaultKeyCommand", "credential.helper", "sequence.editor", "interactive.diffFilter",
		"uploadpack.packObjectsHook", "difftool.x.cmd", "mergetool.x.path", "browser.x.cmd", "man.x.path",
		"web.browser", "remote.o.uploadpack", "remote.o.receivepack"} {
		_, why := judge(map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": key, "GIT_CONFIG_VALUE_0": "./x"})
		assert.Contains(t, why, "./x", key)
		_, why = judge(map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": key, "GIT_CONFIG_VALUE_0": "/usr/bin/x"})
		assert.Empty(t, why, key)
	}

	_, why := judge(map[string]string{"GIT_CONFIG_PARAMETERS": "'core.pager'='./x'"})
	assert.Contains(t, why, "GIT_CONFIG_PARAMETERS")
	_, why = judge(map[string]string{"GIT_CONFIG_COUNT": "1001"})
	assert.Contains(t, why, "GIT_CONFIG_COUNT is set to 1001")

	dir := t.TempDir()
	sys := filepath.Join(dir, "system")
	require.NoError(t, os.WriteFile(sys, []byte("[core]\n\tpager = ./x\n"), 0o644))
	_, why = judge(map[string]string{"GIT_CONFIG_SYSTEM": sys})
	assert.Contains(t, why, "./x", "GIT_CONFIG_SYSTEM's file")
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".config", "git", "config"), []byte("[core]\n\tpager = ./x\n"), 0o644))
	_, why = judge(map[string]string{"HOME": home})
	assert.Contains(t, why, "./x", "~/.config/git/config, read without XDG_CONFIG_HOME")

	// log.showSignature as git reads a boolean: a bare key, or a number
	// other than 0, turns it on.
	for value, on := range map[string]bool{"\tshowSignature\n": true, "\tshowSignature = 2\n": true, "\tshowSignature = yes\n": true,
		"\tshowSignature = 0\n": false, "\tshowSignature = off\n": false} {
		home := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[log]\n"+value), 0o644))
		u, why := judge(map[string]string{"HOME": home})
		require.Empty(t, why, value)
		assert.Equal(t, on, u.showSignature, value)
	}
}
