package gitcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		return readUserGitConfig(func(k string) string { return vars[k] })
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

// The system's configuration is the user's too, and read as such: a
// relative program there runs the project's file (review CM, mutant L21b:
// /etc/gitconfig left unread went unnoticed).
func TestTheSystemsGitConfigIsRead(t *testing.T) {
	sys := filepath.Join(t.TempDir(), "gitconfig")
	saved := systemGitConfig
	t.Cleanup(func() { systemGitConfig = saved })
	systemGitConfig = sys
	home := map[string]string{"HOME": t.TempDir()}
	getenv := func(k string) string { return home[k] }

	assert.Empty(t, ReadUser(getenv).why, "no system file")
	require.NoError(t, os.WriteFile(sys, []byte("[core]\n\tfsmonitor = /usr/local/bin/watch\n"), 0o644))
	assert.Empty(t, ReadUser(getenv).why, "the system's own program")
	require.NoError(t, os.WriteFile(sys, []byte("[core]\n\tfsmonitor = .git/hooks/fsmonitor-watchman\n"), 0o644))
	assert.Contains(t, ReadUser(getenv).why, "fsmonitor-watchman")
	require.NoError(t, os.WriteFile(sys, []byte("[log]\n\tshowSignature = true\n"), 0o644))
	assert.True(t, ReadUser(getenv).ShowsSignatures())
}
