package planmode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// Where Claude Code keeps plan-mode plan files, found as Claude Code (2.1.330)
// finds them: the plansDirectory setting, a folder relative to the project
// root that must lie inside it, from the most specific settings file that
// sets it; else plans in Claude Code's config folder ($CLAUDE_CONFIG_DIR,
// else ~/.claude). A plansDirectory leading out of the project is ignored
// there, with an error, and here: both use the default.

// claudeSettings are Claude Code's settings files that may set
// plansDirectory, most specific first. Managed (policy) settings are not
// read.
func (c Call) claudeSettings() []string {
	var files []string
	if root := c.root(); root != "" {
		files = append(files, filepath.Join(root, ".claude", "settings.local.json"), filepath.Join(root, ".claude", "settings.json"))
	}
	if config := c.configDir(); config != "" {
		files = append(files, filepath.Join(config, "settings.json"))
	}
	return files
}

// root is Claude Code's project root: $CLAUDE_PROJECT_DIR as the hook was
// given it, else the project plansmith found.
func (c Call) root() string {
	if c.Root != "" {
		return c.Root
	}
	return c.Project
}

// configDir is Claude Code's config folder: $CLAUDE_CONFIG_DIR, else
// ~/.claude; "" when neither is known.
func (c Call) configDir() string {
	if c.ConfigDir != "" {
		return c.ConfigDir
	}
	if c.Home == "" {
		return ""
	}
	return filepath.Join(c.Home, ".claude")
}

// settingsLimit is the most of a settings file read: far more than any
// holds.
const settingsLimit = 4 << 20

// plansFolder returns the folder the session's plan files are in, as
// written (for messages) and canonical (links resolved, for comparing
// paths). canon is "" when the folder does not exist, which is no error:
// there are no plans then.
func (c Call) plansFolder() (dir, canon string, err error) {
	dir = c.defaultPlans()
	for _, file := range c.claudeSettings() {
		set, ok := plansDirectory(file)
		if !ok {
			continue
		}
		if set != "" {
			if d, inside := c.insideRoot(set); inside {
				dir = d
			}
		}
		break
	}
	if dir == "" {
		return "", "", errors.New("neither HOME nor CLAUDE_CONFIG_DIR is set, so Claude Code's plans folder cannot be found")
	}
	canon, err = filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return dir, "", nil
	}
	if err != nil {
		return dir, "", fmt.Errorf("reading %s: %w", dir, err)
	}
	return dir, canon, nil
}

// plansFolder is one folder plan files may be in: as written, and
// canonical ("" when it does not exist).
type plansFolder struct{ dir, canon string }

// plansFolders are the folders this session's plan file may be in: the
// one the settings name, then Claude Code's default, where it still keeps
// some plans with plansDirectory set (a resumed session's, one it could
// not save there: review BL3). Either way the gate only ever finds a plan
// that carries the session's marker.
func (c Call) plansFolders() ([]plansFolder, error) {
	dir, canon, err := c.plansFolder()
	if err != nil {
		return nil, err
	}
	out := []plansFolder{{dir, canon}}
	if def := c.defaultPlans(); def != "" && def != dir {
		dcanon, err := filepath.EvalSymlinks(def)
		if err == nil && dcanon != canon {
			out = append(out, plansFolder{def, dcanon})
		}
	}
	return out, nil
}

// defaultPlans is Claude Code's default plans folder, or "".
func (c Call) defaultPlans() string {
	if config := c.configDir(); config != "" {
		return filepath.Join(config, "plans")
	}
	return ""
}

// plansDirectory reads the plansDirectory setting from a Claude Code
// settings file as Claude Code does: the key spelled exactly so (Go's
// decoder would take any case: review BL1), after a byte-order mark. set
// is false when the file does not name it as a string (or cannot be read
// or parsed, which Claude Code refuses too); an empty value is set, and
// means the default folder, overriding less specific files.
func plansDirectory(file string) (dir string, set bool) {
	data, err := plainfile.Read(file, settingsLimit)
	if err != nil {
		return "", false
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimPrefix(data, []byte("\uFEFF")), &s) != nil {
		return "", false
	}
	raw, ok := s["plansDirectory"]
	if !ok || json.Unmarshal(raw, &dir) != nil {
		return "", false
	}
	return dir, true
}

// insideRoot resolves a plansDirectory against the project root and
// reports whether it lies inside it, links resolved as far as they exist
// (Claude Code refuses a folder a link leads out of).
func (c Call) insideRoot(set string) (string, bool) {
	root := c.root()
	if root == "" || strings.Contains(set, `\`) {
		return "", false
	}
	dir := set
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	dir = filepath.Clean(dir)
	canonRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	canon := resolveExisting(dir)
	rel, err := filepath.Rel(canonRoot, canon)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return dir, true
}

// resolveExisting resolves the links of the longest part of path that
// exists, and joins the rest to it.
func resolveExisting(path string) string {
	var rest []string
	for p := path; ; p = filepath.Dir(p) {
		if canon, err := filepath.EvalSymlinks(p); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				canon = filepath.Join(canon, rest[i])
			}
			return canon
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = append(rest, filepath.Base(p))
	}
}
