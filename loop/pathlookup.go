package loop

import (
	"fmt"
	"path/filepath"
)

// pathLookup returns what the policy asks before it allows a program to run
// (Config.PathLookup), for the PATH the hook runs with, which is the one
// Claude Code gives the Bash tool's shell. With a relative or empty entry
// anywhere in it ("." or "node_modules/.bin"; an empty one is the current
// folder) no program is safe to run: the shell looks a name up there, and
// a program named by its path still starts its helpers by name in the same
// PATH (zcat runs gzip, npm node, diff3 diff, git its pager), even one
// found before the entry when a helper is not installed elsewhere; a
// repository can carry any of them. So every program is refused then (the
// shell's builtins still run) and the reason says why. With every entry
// absolute it returns nil, and nothing is asked.
func pathLookup(path string) func(name string) string {
	entries := filepath.SplitList(path)
	if path == "" {
		entries = nil // no PATH at all: the shell's default, all absolute
	}
	for _, e := range entries {
		if filepath.IsAbs(e) {
			continue
		}
		what := fmt.Sprintf("%q", e)
		if e == "" {
			what = "an empty entry (the current folder)"
		}
		return func(name string) string {
			return fmt.Sprintf("PATH holds %s, relative to the folder a command runs in: %s, or a program it starts by name (zcat starts gzip, npm node), would be looked for there, where the project can carry one", what, name)
		}
	}
	return nil
}
