package loop

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
