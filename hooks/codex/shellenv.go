package codex

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plansmith/plansmith/internal/lazyre"
	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/loop"
)

// Codex starts every command with variables its config sets
// ([shell_environment_policy] set = {…}), and in a trusted project it reads
// the repository's own .codex/config.toml, in each folder from the
// checkout's root down to where it runs, as a layer of that config. A
// repository carrying set = { BASH_ENV = "./tools/x" } had its script run
// by every `ls` the policy let through while planning (review CL3, seen
// with the real Codex 0.169.0); PATH or LD_PRELOAD would do the same. The
// hook sees its own environment, not that one, so while such a layer may
// set variables, shell commands are refused (policy.Config.ShellEnv).

// shellEnvLimit bounds the read of a project's .codex/config.toml.
const shellEnvLimit = 4 << 20

// projectShellEnv says why a command Codex runs from one of dirs may get
// variables from a config file the repository carries, or "". Each dir is
// followed up to its checkout's root (loop.CodexProject). A layer that
// names shell_environment_policy, plainly or with escapes in a quoted key,
// counts; one that cannot be read counts too.
func projectShellEnv(dirs ...string) string {
	seen := map[string]bool{}
	for _, dir := range dirs {
		if !isFolder(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		root := loop.CodexProject(dir)
		for d := dir; ; d = filepath.Dir(d) {
			if !seen[d] {
				seen[d] = true
				if why := layerSetsEnv(filepath.Join(d, ".codex", "config.toml")); why != "" {
					return why
				}
			}
			if d == root || d == filepath.Dir(d) {
				break
			}
		}
	}
	return ""
}

// layerSetsEnv says why the config layer at path may set the commands'
// variables, or "" (no such file, or one that names no shell environment).
func layerSetsEnv(path string) string {
	data, err := plainfile.Read(path, shellEnvLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr != nil {
			return ""
		}
		return path + " cannot be read (" + err.Error() + "), and Codex may take shell variables from it"
	case err != nil:
		return path + " cannot be read (" + err.Error() + "), and Codex may take shell variables from it"
	case bytes.Contains(data, []byte(shellEnvKey)):
		return path + " sets shell_environment_policy, the variables every command Codex runs starts with"
	case strings.Contains(unescaped(string(data)), shellEnvKey):
		return path + " spells shell_environment_policy with escapes in a quoted key, which sets the variables every command Codex runs starts with"
	}
	return ""
}

// shellEnvKey is the config key that sets the commands' variables.
const shellEnvKey = "shell_environment_policy"

// keyEscape is an escape that can stand for a letter or "_" in a quoted
// TOML key: \uXXXX and \UXXXXXXXX, and \xHH, which Codex 0.169.0 reads too
// (seen: ["shell_environment_polic\x79"] set its variables; review DA3:
// only \u and \U were looked for). The others (\n, \t, \", \\, \e, …)
// stand for no such character.
var keyEscape = lazyre.New(`\\(?:u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2})`)

// unescaped is text with every keyEscape replaced by the character it
// stands for, wherever it is: a key spelled with escapes reads plainly in
// it. An escape in a literal string, or after an escaped backslash, is
// replaced too, which can only find the key where Codex would not, never
// miss it; text that merely has a backslash (C:\Users) is left alone
// (review CL: every \u refused the shell).
func unescaped(text string) string {
	return keyEscape.Regexp().ReplaceAllStringFunc(text, func(esc string) string {
		n, err := strconv.ParseUint(esc[2:], 16, 32)
		if err != nil || !utf8.ValidRune(rune(n)) {
			return string(utf8.RuneError)
		}
		return string(rune(n))
	})
}
