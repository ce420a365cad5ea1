package plans

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/state"
)

// DefaultDir is where plans are kept when the settings say nothing.
const DefaultDir = "docs/plans"

// Config says where a project keeps its plans.
type Config struct {
	Dir    string // relative to the project, slash-separated; "" when Off
	Off    bool   // plans_dir: off
	Source string // the settings file that set it; "" for the default
}

// LoadConfig reads `plans_dir:` from the project's .claude/plansmith.yaml.
// A missing file or key gives DefaultDir. A value that would leave the
// project (absolute, or climbing with ..) is an error naming the file, and
// so is a file that cannot be parsed; the config returned with an error is
// the default, so a caller may report and carry on.
func LoadConfig(project string) (Config, error) {
	def := Config{Dir: DefaultDir}
	path := state.Paths{Project: project}.Settings()
	var doc struct {
		PlansDir any `yaml:"plans_dir"`
	}
	if found, err := state.ReadSettings(path, &doc); !found || err != nil {
		return def, err
	}
	switch v := doc.PlansDir.(type) {
	case nil:
		return def, nil
	case bool:
		if !v {
			return Config{Off: true, Source: path}, nil
		}
		return Config{Dir: DefaultDir, Source: path}, nil
	case string:
		dir := strings.TrimSpace(v)
		switch strings.ToLower(dir) {
		case "off", "false", "no", "none":
			return Config{Off: true, Source: path}, nil
		case "", "on", "true", "yes":
			return Config{Dir: DefaultDir, Source: path}, nil
		}
		clean, err := insideProject(dir)
		if err != nil {
			return def, fmt.Errorf("%s: plans_dir %q: %w", path, dir, err)
		}
		return Config{Dir: clean, Source: path}, nil
	}
	return def, fmt.Errorf("%s: plans_dir is %v; give a folder inside the project, or off", path, doc.PlansDir)
}

// insideProject cleans a relative folder name and refuses one that is
// absolute or climbs out of the project.
func insideProject(dir string) (string, error) {
	dir = filepath.ToSlash(dir)
	if strings.HasPrefix(dir, "/") || filepath.IsAbs(dir) || filepath.VolumeName(dir) != "" {
		return "", errors.New("must be a folder inside the project, not an absolute path")
	}
	if strings.HasPrefix(dir, "~") || strings.Contains(dir, "$") {
		// Nothing expands them: ~/plans would be a folder named "~" in the
		// project, shown as ~/plans/… and read as one in the home folder
		// (review AH3).
		return "", errors.New("must be a folder inside the project, relative to it: ~ and $VARIABLES are not expanded")
	}
	clean := filepath.ToSlash(filepath.Clean(dir))
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", errors.New("must be a folder inside the project")
	}
	for _, own := range []string{".git", ".claude/plansmith"} {
		if clean == own || strings.HasPrefix(clean, own+"/") {
			// git's own folder, or plansmith's working folder, whose
			// archive holds earlier outputs (review AN6).
			return "", fmt.Errorf("must not be inside %s", own)
		}
	}
	return clean, nil
}
