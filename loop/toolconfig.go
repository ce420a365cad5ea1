package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/plansmith/plansmith/gitcheck"
	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/internal/mdtext"
	"github.com/plansmith/plansmith/internal/plainfile"
)

// This file holds what PreToolUse tells the policy about the project that
// the policy, judging text alone, cannot see: an .npmrc npm would read
// (Config.NpmConfig), a folder git would take for its repository
// (Config.GitRepository, Config.GoVCS: the checks are package gitcheck's)
// and the sub-agent definitions (Config.AgentDefinition); gotoolchain.go
// holds the Go toolchain a go.mod would have go fetch (Config.GoToolchain).
// What a command name finds on PATH and what the user's shell defines
// (Config.PathLookup, Config.ShellDefines), and the variables the project's
// Claude Code settings give its commands (Config.SettingsEnv), are package
// bashtool's. Each is looked up only when a call needs it.

// workingFolder is the session's folder, cwd, or the process's when the
// input names none.
func workingFolder(env Env, cwd string) (string, error) {
	if filepath.IsAbs(cwd) {
		return filepath.Clean(cwd), nil
	}
	if env.Getwd == nil {
		return "", errors.New("no working folder")
	}
	return env.Getwd()
}

// npmrc returns the .npmrc npm would read as the project's configuration
// when run in cwd (the session's folder; the process's when the input names
// none), or "". npm takes it from its local prefix: the nearest folder up
// from cwd with a package.json or node_modules, or a workspace root further
// up, else cwd. So every such folder is looked in, and cwd. $HOME/.npmrc is
// the user's own configuration, not a repository's. An entry that cannot be
// checked counts as there.
func npmrc(env Env, cwd string) string {
	cwd, err := workingFolder(env, cwd)
	if err != nil {
		return "the working folder's .npmrc (the folder cannot be found)"
	}
	cwd = filepath.Clean(cwd)
	home := filepath.Clean(env.Getenv("HOME"))
	for dir := cwd; ; dir = filepath.Dir(dir) {
		prefix := dir == cwd || plainfile.Present(filepath.Join(dir, "package.json")) || plainfile.Present(filepath.Join(dir, "node_modules"))
		if rc := filepath.Join(dir, ".npmrc"); prefix && dir != home && plainfile.Present(rc) {
			return rc
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// agentDirs are the folders Claude Code reads sub-agent definitions from:
// .claude/agents in the project and in every folder above it (Claude Code
// collects them up to the repository's root; all of them are read here, to
// the file system's root), the user's, and $CLAUDE_CONFIG_DIR's when it is
// set.
func agentDirs(env Env, project string) []string {
	var dirs []string
	if project != "" {
		for d := filepath.Clean(project); ; d = filepath.Dir(d) {
			dirs = append(dirs, filepath.Join(d, ".claude", "agents"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	dirs = append(dirs, filepath.Join(env.Getenv("HOME"), ".claude", "agents"))
	if config := env.Getenv("CLAUDE_CONFIG_DIR"); config != "" {
		dirs = append(dirs, filepath.Join(config, "agents"))
	}
	return dirs
}

// How far agentTrouble searches a definitions folder: Claude Code's own
// folders hold a handful of files. A folder beyond these counts as one that
// cannot be searched.
const (
	agentDepth = 8
	agentFiles = 2000
)

// agentTrouble says why the sub-agent named agent would not run as a
// read-only sub-agent, or "": a definition in one of dirs (searched
// through, following links as Claude Code does) whose frontmatter names it
// (name:, else the file's name) and either sets an isolation other than
// none, or sets anything but the settings known to start nothing and write
// nothing (inertAgentKey): a definition's mcpServers start programs, its
// hooks run commands on the sub-agent's every call, its skills' ! lines
// run, its memory is a folder in the project (review S). A definition that
// cannot be read or understood may be the one called, so it counts, and
// so does a folder that cannot be searched.
func agentTrouble(dirs []string, agent string) string {
	if plugin, _, ok := strings.Cut(agent, ":"); ok {
		// A plugin's agent (plugin:name): its definition, which may ask
		// for a worktree, is in the plugin, which is not read here.
		return fmt.Sprintf("sub-agent %s comes from the plugin %s, whose definition (which may ask for a worktree) is not read here", agent, plugin)
	}
	for _, dir := range dirs {
		why := ""
		err := walkAgents(dir, func(path string) bool {
			front, err := agentFrontmatter(path)
			if err != nil {
				// Its name cannot be known, so it may be the one called.
				why = fmt.Sprintf("the sub-agent definition %s cannot be read (%v)", path, err)
				return false
			}
			name := front.Name
			if name == "" {
				name = strings.TrimSuffix(filepath.Base(path), ".md")
			}
			if !strings.EqualFold(name, agent) {
				return true
			}
			if front.Isolation.Kind != 0 {
				if v := isolationValue(front.Isolation); !policy.NoIsolation(v) {
					why = fmt.Sprintf("sub-agent %s is defined (%s) to run with isolation %s, which makes a git branch and worktree in the project", agent, path, v)
					return false
				}
			}
			if len(front.Other) > 0 {
				why = fmt.Sprintf("sub-agent %s is defined (%s) with %s, which plansmith does not know to start nothing and write nothing (mcpServers start programs, hooks run commands, skills run their ! lines)", agent, path, strings.Join(front.Other, ", "))
				return false
			}
			return true
		})
		if why != "" {
			return why
		}
		if err != nil {
			return fmt.Sprintf("the sub-agent definitions in %s cannot be searched (%v)", dir, err)
		}
	}
	return ""
}

// walkAgents calls visit with every .md file below dir, following links to
// folders and files (a folder reached twice, through a link cycle, is read
// once) until visit returns false. A missing dir has no files; one deeper
// than agentDepth or holding more than agentFiles entries is an error.
func walkAgents(dir string, visit func(path string) bool) error {
	var seen []os.FileInfo
	entries := 0
	var walk func(dir string, depth int) (bool, error)
	walk = func(dir string, depth int) (bool, error) {
		info, err := os.Stat(dir)
		if err != nil {
			return true, err
		}
		for _, s := range seen {
			if os.SameFile(s, info) {
				return true, nil
			}
		}
		seen = append(seen, info)
		if depth > agentDepth {
			return true, fmt.Errorf("folders nested deeper than %d", agentDepth)
		}
		list, err := os.ReadDir(dir)
		if err != nil {
			return true, err
		}
		for _, e := range list {
			if entries++; entries > agentFiles {
				return true, fmt.Errorf("more than %d entries", agentFiles)
			}
			path := filepath.Join(dir, e.Name())
			fi, err := os.Stat(path) // through a link, as Claude Code reads it
			switch {
			case err != nil && e.Type()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist):
				continue // a dangling link defines nothing
			case err != nil:
				return true, err
			case fi.IsDir():
				if more, err := walk(path, depth+1); !more || err != nil {
					return more, err
				}
			case strings.HasSuffix(e.Name(), ".md"):
				if !visit(path) {
					return false, nil
				}
			}
		}
		return true, nil
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	_, err := walk(dir, 0)
	return err
}

// agentDefinition is what agentTrouble reads of a definition's
// frontmatter: its name, and its isolation setting (Kind 0 when absent),
// decoded only when a scalar (isolationValue).
type agentDefinition struct {
	Name      string
	Isolation yaml.Node
	Other     []string // keys set that inertAgentKey does not know
}

// inertAgentKey reports whether a sub-agent definition's key is one Claude
// Code reads only to describe, choose or limit the agent (its tools,
// model, turns, colour): none starts a program or writes a file. isolation
// is judged apart; anything else, a key a newer client adds included, is
// not inert.
func inertAgentKey(k string) bool {
	switch k {
	case "name", "description", "tools", "disallowedTools", "model", "color", "maxTurns",
		"permissionMode", "background", "omitClaudeMd", "autoCompactWindow", "effort":
		return true
	}
	return false
}

// isolationValue is an isolation setting as JSON, for policy.NoIsolation. A
// scalar is decoded; a mapping or list is no setting Claude Code knows, and
// is never "none".
func isolationValue(n yaml.Node) json.RawMessage {
	if n.Kind != yaml.ScalarNode {
		return json.RawMessage(`"(a YAML mapping or list)"`)
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return json.RawMessage(`"(unreadable)"`)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`"(unreadable)"`)
	}
	return b
}

// agentFrontmatter reads the YAML frontmatter of an agent definition: none
// (no settings) when the file does not open with a --- line.
func agentFrontmatter(path string) (agentDefinition, error) {
	var def agentDefinition
	data, err := plainfile.Read(path, 1<<20)
	if err != nil {
		return def, err
	}
	front, ok := mdtext.Frontmatter(data)
	if !ok {
		if bytes.HasPrefix(bytes.TrimPrefix(data, []byte("\ufeff")), []byte("---")) {
			return def, errors.New("its frontmatter does not end")
		}
		return def, nil
	}
	// The keys are read off the parsed tree: yaml.v3 decodes a mapping into
	// a Go map or struct in time growing with the square of its keys (a
	// definition of a hundred thousand keys took minutes), its tree in
	// linear time.
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return def, err
	}
	if doc.Kind == 0 {
		return def, nil // empty frontmatter
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return def, errors.New("its frontmatter is not a mapping")
	}
	m := doc.Content[0]
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return def, errors.New("a key of its frontmatter is not a plain value")
		}
		if k.Value != "name" && k.Value != "isolation" {
			// A few named are enough to say why (a definition may have a
			// hundred thousand keys).
			if !inertAgentKey(k.Value) && len(def.Other) < 8 && !slices.Contains(def.Other, k.Value) {
				def.Other = append(def.Other, k.Value)
			}
			continue
		}
		if seen[k.Value] {
			return def, fmt.Errorf("%s is set twice", k.Value)
		}
		seen[k.Value] = true
		if k.Value == "isolation" {
			def.Isolation = *v
			continue
		}
		if v.Kind != yaml.ScalarNode {
			return def, errors.New("its name is not a plain value")
		}
		def.Name = v.Value
	}
	return def, nil
}

// gitRepository is gitcheck.Repository for git started in dir from the
// session's folder cwd (Config.GitRepository), user the user's git
// configuration.
func gitRepository(env Env, cwd, dir string, user gitcheck.User) string {
	base, err := workingFolder(env, cwd)
	if err != nil {
		return "git's folder cannot be found (" + err.Error() + ")"
	}
	return gitcheck.Repository(user, base, dir)
}

// goVCS is gitcheck.GoVCS for go list started in the session's folder cwd
// (Config.GoVCS).
func goVCS(env Env, cwd string, user gitcheck.User) string {
	base, err := workingFolder(env, cwd)
	if err != nil {
		return "a version control program in a folder that cannot be found (" + err.Error() + ")"
	}
	return gitcheck.GoVCS(user, base)
}
