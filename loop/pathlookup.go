package loop

import (
	"fmt"
	"path/filepath"
	"strings"
)

// pathLookup returns what the policy asks before it allows a program to run
// (Config.PathLookup), for the PATH the hook runs with, which is the one
// Claude Code gives the Bash tool's shell. With an entry anywhere in it that
// the project decides the contents of — relative or empty ("." or
// "node_modules/.bin"; an empty one is the current folder), or an absolute
// folder inside the project (direnv's PATH_add, an activated .venv,
// $PWD/node_modules/.bin: review Q) — no program is safe to run: the shell
// looks a name up there, and a program named by its path still starts its
// helpers by name in the same PATH (zcat runs gzip, npm node, diff3 diff,
// git its pager), even one found before the entry when a helper is not
// installed elsewhere; a repository can carry any of them. So every
// program is refused then (the shell's builtins still run) and the reason
// says why. Otherwise it returns nil, and nothing is asked. The folder
// Claude Code adds for the plugin itself (pluginBin, $CLAUDE_PLUGIN_ROOT/bin)
// is the plugin's, not the project's, even in a checkout of plansmith.
func pathLookup(path, project, pluginBin string) func(name string) string {
	entries := filepath.SplitList(path)
	if path == "" {
		entries = nil // no PATH at all: the shell's default, all absolute
	}
	roots := projectRoots(project)
	for _, e := range entries {
		var what string
		switch {
		case e == "":
			what = "an empty entry (the current folder)"
		case !filepath.IsAbs(e):
			what = fmt.Sprintf("%q, relative to the folder a command runs in", e)
		case pluginBin != "" && filepath.Clean(e) == filepath.Clean(pluginBin):
			continue
		case insideProject(e, roots):
			what = fmt.Sprintf("%q, a folder of the project", e)
		default:
			continue
		}
		return func(name string) string {
			return fmt.Sprintf("PATH holds %s: %s, or a program it starts by name (zcat starts gzip, npm node), would be looked for there, where the project can carry one", what, name)
		}
	}
	return nil
}

// projectRoots is the project folder as named and as its links resolve.
func projectRoots(project string) []string {
	if project == "" {
		return nil
	}
	roots := []string{filepath.Clean(project)}
	if real, err := filepath.EvalSymlinks(project); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	return roots
}

// insideProject reports whether the PATH entry dir lies in the project,
// as written or once its links resolve (a link into the project, or an
// entry like x/../bin through a link x: review R). An entry that does not
// exist holds nothing to run.
func insideProject(dir string, roots []string) bool {
	if within(filepath.Clean(dir), roots) {
		return true
	}
	real, err := filepath.EvalSymlinks(dir)
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
