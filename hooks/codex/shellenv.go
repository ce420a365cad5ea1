package codex

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

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
// names shell_environment_policy, or has a \u escape that could spell it
// in a quoted key, counts; one that cannot be read counts too.
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
	case bytes.Contains(data, []byte("shell_environment_policy")):
		return path + " sets shell_environment_policy, the variables every command Codex runs starts with"
	case bytes.Contains(data, []byte(`\u`)), bytes.Contains(data, []byte(`\U`)):
		return path + " has a \\u escape, which may spell shell_environment_policy in a quoted key"
	}
	return ""
}
