package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/plansmith/plansmith"
)

// PlanMeta is the saved plan's frontmatter: how the plan came to be.
type PlanMeta struct {
	GeneratedAt    time.Time      `yaml:"generated_at"`
	ExitReason     string         `yaml:"exit_reason"`
	Verified       bool           `yaml:"verified"` // the gate passed (false when it failed or was off)
	Request        string         `yaml:"request"`
	SessionID      string         `yaml:"session_id,omitempty"`
	Phases         []string       `yaml:"phases"`
	PhasesRun      []string       `yaml:"phases_run"`
	Retries        int            `yaml:"retries"`
	CritiqueRounds int            `yaml:"critique_rounds"`
	PrincipleFails map[string]int `yaml:"principle_fails"`
	Gate           any            `yaml:"gate,omitempty"`
	Converge       any            `yaml:"converge,omitempty"`
	Problems       []string       `yaml:"problems,omitempty"`
	// Version is the plansmith that saved the plan (plansmith.Version);
	// EncodePlan fills it in when empty.
	Version string `yaml:"plansmith_version,omitempty"`
}

// SaveOutput writes the saved plan. An earlier saved plan is moved into the
// archive first, so approving a new plan never destroys an old one; where
// it went is returned (previous), for the user to hear of it (review AH8:
// the only copy of a run that did not complete moved without a word).
func SaveOutput(p Paths, meta PlanMeta, plan string, now time.Time) (previous string, err error) {
	doc, err := EncodePlan(meta, plan)
	if err != nil {
		return "", err
	}
	if err := CheckOwned(p.Output()); err != nil {
		return "", err
	}
	if _, err := os.Lstat(p.Output()); err == nil {
		dst, err := archiveName(p, "output", now)
		if err != nil {
			return "", err
		}
		if err := os.Rename(p.Output(), dst); err != nil {
			return "", fmt.Errorf("archiving the previous plan %s: %w", p.Output(), err)
		}
		previous = dst
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("checking %s: %w", p.Output(), err)
	}
	if err := WriteOwned(p.Output(), doc); err != nil {
		if previous == "" {
			return "", err
		}
		// The earlier plan goes back where it was (a rename needs no room
		// on a full disk): a failed save must not leave the user's saved
		// plan in the archive with no word of it (review BG2).
		if rerr := os.Rename(previous, p.Output()); rerr != nil {
			return previous, fmt.Errorf("%w; the plan saved before is now %s (moving it back failed: %v)", err, previous, rerr)
		}
		return "", err
	}
	return previous, nil
}

// EncodePlan renders a saved plan: the metadata as YAML frontmatter, then
// the plan's text ending in a newline. It is the one spelling of a saved
// plan, used for the output file and for plans kept in the project.
func EncodePlan(meta PlanMeta, plan string) ([]byte, error) {
	if meta.Version == "" {
		meta.Version = plansmith.Version()
	}
	var buf bytes.Buffer
	if err := writeFrontmatter(&buf, meta); err != nil {
		return nil, fmt.Errorf("encoding plan metadata: %w", err)
	}
	buf.WriteString(plan)
	if len(plan) > 0 && plan[len(plan)-1] != '\n' {
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}
