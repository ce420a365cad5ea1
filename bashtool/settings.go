package bashtool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// Claude Code starts every Bash command with the variables the env key of
// its settings sets, the project's own settings files included
// (.claude/settings.json and .claude/settings.local.json in the folder it
// was started in), and a repository can carry those. A BASH_ENV there
// made every command the policy let through while planning, ls included,
// run a script of the project first, and so did CLAUDE_ENV_FILE (which
// Claude Code sources before each command), ZDOTDIR under zsh and an
// exported function (BASH_FUNC_ls%%) in its place (review FD1, seen with
// Claude Code 2.1.197 and 2.1.330). Which of the endless variables
// programs read (GIT_*, LD_*, RIPGREP_CONFIG_PATH, PAGER, …) would start
// one is not for a hook to list, so every variable counts except the
// few that only Claude Code reads and that start nothing (inertSettingsEnv).

// settingsLimit bounds the read of a settings file.
const settingsLimit = 4 << 20

// settingsFiles are the project settings files Claude Code reads in the
// folder it was started in (not in the folders above it: seen with both
// versions).
var settingsFiles = []string{"settings.json", "settings.local.json"}

// SettingsEnv says why a Bash command Claude Code runs may start with
// variables that settings files of the project set, or "": one of the
// project's settings files (settingsFiles in dirs' .claude folders: the
// loop's project and $CLAUDE_PROJECT_DIR, where Claude Code was started;
// and the settings.local.json at the root of the git repository each lies
// in, localSettingsRoots)
// sets under env a variable that is not known to be inert, or cannot be
// read or understood (Claude Code may read it otherwise). home is the
// user's home folder, whose .claude/settings.json is the user's own
// settings, not a repository's.
func SettingsEnv(home string, dirs ...string) string {
	seen := map[string]bool{}
	homeSet := func() bool { return SettingsSet("HOME", dirs...) }
	for _, dir := range dirs {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		// The home folder's settings are the user's, unless they move HOME:
		// a project whose settings set HOME to its own folder would pass
		// for it (Claude Code 2.1.197 gives the hooks that HOME; review FD5).
		if seen[dir] || home != "" && dir == filepath.Clean(home) && !homeSet() {
			continue
		}
		seen[dir] = true
		for _, name := range settingsFiles {
			if why := settingsFileEnv(filepath.Join(dir, ".claude", name)); why != "" {
				return why
			}
		}
		// Claude Code 2.1.330 reads the local settings of the git
		// repository the folder lies in, at its root (review FG1), except
		// at the user's home, as it does.
		for _, root := range LocalSettingsRoots(dir) {
			if seen[".local "+root] || home != "" && root == filepath.Clean(home) && !homeSet() {
				continue
			}
			seen[".local "+root] = true
			if why := settingsFileEnv(filepath.Join(root, ".claude", "settings.local.json")); why != "" {
				return why
			}
		}
	}
	return ""
}

// SettingsSet reports whether a project settings file in one of dirs'
// .claude folders sets name under env, or may (it cannot be read or
// understood). The hooks get those variables too (Claude Code 2.1.197
// does): a HOME set there names a folder the repository fills, whose
// approvals (plansmith policy trust) are not the user's (review FD5).
func SettingsSet(name string, dirs ...string) bool {
	for _, dir := range dirs {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		var paths []string
		for _, file := range settingsFiles {
			paths = append(paths, filepath.Join(dir, ".claude", file))
		}
		for _, root := range LocalSettingsRoots(dir) {
			paths = append(paths, filepath.Join(root, ".claude", "settings.local.json"))
		}
		for _, path := range paths {
			vars, err := settingsVars(path)
			if err != nil {
				return true
			}
			if _, ok := vars[name]; ok {
				return true
			}
		}
	}
	return false
}

// localSettingsRoots are the folders other than dir whose
// .claude/settings.local.json Claude Code reads as the local settings of a
// session started in dir: Claude Code 2.1.330 keeps a git repository's
// local settings at its root, the main checkout's for a linked worktree,
// however deep in it the session starts (seen: LD_PRELOAD in the root's
// settings.local.json reached every Bash command, and every hook, of a
// session started in a subfolder; review FG1). 2.1.197 does not, but a
// file that sets nothing costs nothing. The repository is the nearest
// folder at or above dir holding a .git entry; a .git file (a linked
// worktree's) names the main checkout through its gitdir and commondir.
// Both the folder with the .git file and the main checkout are given.
func LocalSettingsRoots(dir string) []string {
	for d := dir; ; d = filepath.Dir(d) {
		git := filepath.Join(d, ".git")
		info, err := os.Lstat(git)
		if err == nil {
			var roots []string
			if d != dir {
				roots = append(roots, d)
			}
			if !info.IsDir() {
				if main := mainCheckout(d, git); main != "" && main != dir && main != d {
					roots = append(roots, main)
				}
			}
			return roots
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// mainCheckout is the main checkout of the linked worktree at dir whose
// .git file is git ("gitdir: …/.git/worktrees/NAME", whose commondir names
// the main .git), or "" when that cannot be told.
func mainCheckout(dir, git string) string {
	data, err := plainfile.Read(git, 4096)
	if err != nil {
		return ""
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(dir, gitdir)
	}
	common := gitdir
	if data, err := plainfile.Read(filepath.Join(gitdir, "commondir"), 4096); err == nil {
		common = strings.TrimSpace(string(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	common = filepath.Clean(common)
	if filepath.Base(common) != ".git" {
		return ""
	}
	return filepath.Dir(common)
}

// settingsVars returns the variables the settings file at path sets under
// env: none when there is no such file, an error saying what is wrong when
// it cannot be read or understood. A map, not a struct: encoding/json
// matches a struct's fields without regard to case, and Claude Code reads
// "env" alone.
func settingsVars(path string) (map[string]json.RawMessage, error) {
	data, err := plainfile.Read(path, settingsLimit)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr != nil {
			return nil, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot be read (%v)", err)
	}
	// Claude Code reads a file that starts with a byte order mark
	// (install.ClaudeSkips).
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var settings map[string]json.RawMessage
	if err := json.Unmarshal(data, &settings); err != nil {
		return nil, fmt.Errorf("cannot be understood as JSON (%v)", err)
	}
	raw, ok := settings["env"]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var vars map[string]json.RawMessage
	if err := json.Unmarshal(raw, &vars); err != nil {
		return nil, errors.New("has an env setting that is not an object of variables")
	}
	return vars, nil
}

// settingsFileEnv says why the settings file at path may set the Bash
// tool's variables, or "" (no such file, or one whose env sets only inert
// variables).
func settingsFileEnv(path string) string {
	vars, err := settingsVars(path)
	if err != nil {
		return path + " " + err.Error() + ", and Claude Code may take variables for the Bash tool's commands from it"
	}
	var names []string
	for name := range vars {
		if !inertSettingsEnv(name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return path + " sets " + quoted(names) + " under env, for every command Claude Code's Bash tool runs"
}

// inertSettingsEnv reports whether a variable the project's settings set
// is one only Claude Code reads, to choose its model, its API endpoint,
// its timeouts and limits, or to turn its own traffic off, and that starts
// no program: the Anthropic API's own variables, and the names listed. Not
// every CLAUDE_CODE_* variable is: CLAUDE_CODE_SHELL_PREFIX wraps every
// command, hook included, in a program it names, CLAUDE_CODE_SHELL chooses
// the shell, and CLAUDE_ENV_FILE is sourced before each command.
func inertSettingsEnv(name string) bool {
	if strings.HasPrefix(name, "ANTHROPIC_") && len(name) > len("ANTHROPIC_") {
		return true
	}
	switch name {
	case "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS", "BASH_MAX_OUTPUT_LENGTH",
		"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
		"CLAUDE_CODE_SUBAGENT_MODEL", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP",
		"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX",
		"DISABLE_AUTOUPDATER", "DISABLE_BUG_COMMAND", "DISABLE_COST_WARNINGS",
		"DISABLE_ERROR_REPORTING", "DISABLE_NON_ESSENTIAL_MODEL_CALLS", "DISABLE_TELEMETRY",
		"MAX_MCP_OUTPUT_TOKENS", "MAX_THINKING_TOKENS", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT":
		return true
	}
	return false
}

// quoted is names, each quoted so that one holding a space or a control
// character reads as what it is, separated by commas.
func quoted(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return strings.Join(out, ", ")
}
