package bashtool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/internal/plainfile"
)

// pathLookupWith returns what the policy asks before it allows a program
// to run (Config.PathLookup), for one PATH the Bash tool's shell may run
// with (Shell.Lookup), asking fsys about the file system (each path once a
// tool call, whichever PATH asks: links). With an entry anywhere in it that
// the project decides the contents of — relative or empty ("." or
// "node_modules/.bin"; an empty one is the current folder), or an absolute
// folder inside the project (direnv's PATH_add, an activated .venv,
// $PWD/node_modules/.bin: review Q) — no program is safe to run: the shell
// looks a name up there, and a program named by its path still starts its
// helpers by name in the same PATH (zcat runs gzip, npm node, diff3 diff,
// git its pager), even one found before the entry when a helper is not
// installed elsewhere; a repository can carry any of them. So every
// program is refused then (the shell's builtins still run) and the reason
// says why. A version manager's shims folder (shimFolder) is the project's
// too for the names in it: a shim runs the version a file of the folder the
// command starts in names (.tool-versions, .python-version, mise.toml), and
// mise and asdf take "node path:./dir", the project's own dir/bin/node
// (review CH2). Volta's shims are links to its volta-shim program wherever
// they stand (~/.volta/bin): each reads the project's package.json and the
// .volta/hooks.json of the project and its workspace roots, whose "bin"
// hooks name programs Volta runs, after every run for events.publish
// (review CN1). Corepack's (corepack enable npm) are links into its dist
// folder: they download and run the package manager the project's
// package.json names, from the registry or URL its .corepack.env allows
// (review CN2). So a name found first as a shim is refused, and so is a
// script whose "#!/usr/bin/env NAME" line finds one (npm runs node so).
// A name found in no folder of PATH is refused too (notInstalled): the
// shell would run the command-not-found handler the user's shell startup
// defines, which Claude Code's shell snapshot keeps, and mise's installs
// and runs the tool the project's .tool-versions names (review CN4). With
// no PATH at all (the shell's default, which the hook cannot see) it
// returns nil, and nothing is asked. The folder Claude Code adds for the
// plugin itself (pluginBin, $CLAUDE_PLUGIN_ROOT/bin) is the plugin's, not
// the project's, even in a checkout of plansmith. shell is the user's
// shell (its path, $SHELL, or ""): to bash, shopt and help are builtins,
// found without PATH; to zsh they are names it looks up like any other.
func pathLookupWith(fsys *links, path, project, pluginBin, shell string) func(name string) string {
	entries := filepath.SplitList(path)
	if path == "" {
		return nil // no PATH at all: the shell's default, all absolute
	}
	roots := projectRoots(fsys, project)
	shims := false
	for _, e := range entries {
		var what string
		switch {
		case e == "":
			what = "an empty entry (the current folder)"
		case !filepath.IsAbs(e):
			what = fmt.Sprintf("%q, relative to the folder a command runs in", e)
		case pluginBin != "" && filepath.Clean(e) == filepath.Clean(pluginBin):
			continue
		case insideProject(fsys, e, roots):
			what = fmt.Sprintf("%q, a folder of the project", e)
		default:
			shims = shims || shimFolder(e) || launcher(fsys, filepath.Join(e, "node")) || launcher(fsys, filepath.Join(e, "npm"))
			continue
		}
		return func(name string) string {
			return fmt.Sprintf("PATH holds %s: %s, or a program it starts by name (zcat starts gzip, npm node), would be looked for there, where the project can carry one", what, name)
		}
	}
	zsh := filepath.Base(shell) == "zsh"
	// Claude Code appends the plugin's bin folder to the Bash tool's PATH,
	// not to the hooks': plansmith is found there.
	search := entries
	if pluginBin != "" {
		search = append(append([]string(nil), entries...), pluginBin)
	}
	return func(name string) string {
		program := name
		if !strings.Contains(name, "/") {
			dir := foundIn(fsys, search, name)
			if dir == "" {
				if bashOnlyBuiltin[name] && !zsh || bundled[name] {
					return ""
				}
				return notInstalled(name)
			}
			program = filepath.Join(dir, name)
			if shims && (shimFolder(dir) || launcher(fsys, program)) {
				return shimmed(name, dir)
			}
		}
		if !shims {
			return ""
		}
		// A script run through env starts its interpreter by name: npm is
		// "#!/usr/bin/env node".
		if n := fsys.interpreter(program); n != "" {
			if dir := foundIn(fsys, entries, n); dir != "" && (shimFolder(dir) || launcher(fsys, filepath.Join(dir, n))) {
				return shimmed(n, dir)
			}
		}
		return ""
	}
}

// bashPaths are the PATHs a command of the Bash tool may be looked up in:
// the ones the user's shell snapshots export (snapshotLines.path), which the
// tool's shell runs with, else the hook's own.
func bashPaths(hook string, snapshots []string) []string {
	if len(snapshots) == 0 {
		return []string{hook}
	}
	return snapshots
}

// pathsLookup is pathLookupWith for a command that may run with any of paths:
// the first reason one of them gives, or "". The paths' lookups share what
// they learn about the file system (links): the PATHs of a user's shell
// snapshots share most of their entries.
func pathsLookup(paths []string, project, pluginBin, shell string) func(name string) string {
	var lookups []func(string) string
	fsys := newLinks()
	for _, p := range paths {
		if f := pathLookupWith(fsys, p, project, pluginBin, shell); f != nil {
			lookups = append(lookups, f)
		}
	}
	return func(name string) string {
		for _, f := range lookups {
			if why := f(name); why != "" {
				return why
			}
		}
		return ""
	}
}

// bashOnlyBuiltin are the names on the read-only list that bash runs
// itself and zsh looks up in PATH.
var bashOnlyBuiltin = map[string]bool{"shopt": true, "help": true}

// bundled are the programs the coding client brings when none is
// installed: Claude Code's shell snapshot defines rg as the ripgrep built
// into the claude binary, and Codex puts the rg it ships on the commands'
// PATH; no command-not-found handler runs for them.
var bundled = map[string]bool{"rg": true}

func notInstalled(name string) string {
	return policy.NotInstalled(fmt.Sprintf("%s is found in no folder of PATH", name))
}

func shimmed(name, dir string) string {
	return policy.VersionShim(fmt.Sprintf("%s would run through the shim in %q", name, dir))
}

// envInterpreter returns the program a script's "#!/usr/bin/env NAME" line
// looks up in PATH, or "".
func envInterpreter(file string) string {
	// Never a FIFO or a kernel file, which would hold the hook up: the
	// name may be one the command gives (./x, /proc/kmsg).
	head, err := plainfile.Head(file, 256)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(head), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	words := strings.Fields(rest)
	if len(words) < 2 || filepath.Base(words[0]) != "env" {
		return ""
	}
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return filepath.Base(w)
		}
	}
	return ""
}

// shimFolder reports whether the PATH entry dir holds a version manager's
// shims: mise, asdf, pyenv, rbenv, nodenv, goenv and jenv all name the
// folder so.
func shimFolder(dir string) bool {
	return filepath.Base(filepath.Clean(dir)) == "shims"
}

// launcher reports whether program is a link to a version manager's
// launcher that picks what to run from the project's files: Volta's
// volta-shim (Volta links its shims so on Linux and macOS), which runs the
// Node, npm or package the project pins with the project's hooks, or a
// script in Corepack's dist folder (corepack enable links npm, npx, yarn
// and pnpm there), which runs the package manager package.json names.
// The launcher named as itself is not one: it is no link.
func launcher(fsys *links, program string) bool {
	mode, err := fsys.lstat(program)
	if err != nil || mode&os.ModeSymlink == 0 {
		return false
	}
	real, err := fsys.eval(program)
	if err != nil {
		return false
	}
	dir := filepath.Dir(real)
	return strings.TrimSuffix(filepath.Base(real), ".exe") == "volta-shim" ||
		filepath.Base(dir) == "dist" && filepath.Base(filepath.Dir(dir)) == "corepack"
}

// foundIn returns the first of the (absolute) PATH entries that holds an
// executable file named name, or "".
func foundIn(fsys *links, entries []string, name string) string {
	for _, e := range entries {
		if info, err := fsys.stat(filepath.Join(e, name)); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return e
		}
	}
	return ""
}

// projectRoots is the project folder as named and as its links resolve.
func projectRoots(fsys *links, project string) []string {
	if project == "" {
		return nil
	}
	roots := []string{filepath.Clean(project)}
	if real, err := fsys.eval(project); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	return roots
}

// insideProject reports whether the PATH entry dir lies in the project,
// as written or once its links resolve (a link into the project, or an
// entry like x/../bin through a link x: review R). An entry that does not
// exist holds nothing to run.
func insideProject(fsys *links, dir string, roots []string) bool {
	if within(filepath.Clean(dir), roots) {
		return true
	}
	real, err := fsys.eval(dir)
	return err == nil && within(real, roots)
}

// within reports whether dir is one of roots or below one.
func within(dir string, roots []string) bool {
	for _, r := range roots {
		if dir == r || strings.HasPrefix(dir, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
