package loop

import (
	"fmt"
	"os"
	"path/filepath"
)

// pathLookup returns what the policy asks before it allows a command run by
// name (Config.PathLookup), for the PATH the hook runs with, which is the
// one Claude Code gives the Bash tool's shell: why the name could run a
// file the project carries, or "". That is so when a relative or empty
// entry ("." or "node_modules/.bin"; an empty one is the current folder)
// comes before the first absolute folder holding an executable of that
// name: the shell would look in the folder the command runs in first, and
// a repository can carry bin/ls. With every entry absolute it returns nil,
// and nothing is looked up.
func pathLookup(path string) func(name string) string {
	entries := filepath.SplitList(path)
	if path == "" {
		entries = nil // no PATH at all: the shell's default, all absolute
	}
	relative := false
	for _, e := range entries {
		if !filepath.IsAbs(e) {
			relative = true
		}
	}
	if !relative {
		return nil
	}
	return func(name string) string {
		for _, e := range entries {
			if !filepath.IsAbs(e) {
				what := fmt.Sprintf("%q", e)
				if e == "" {
					what = "an empty entry (the current folder)"
				}
				return fmt.Sprintf("PATH holds %s, relative to where the command runs, and the shell looks for %s there before any absolute folder holding it", what, name)
			}
			if info, err := os.Stat(filepath.Join(e, name)); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
				return ""
			}
		}
		return ""
	}
}
