// Package memory is plansmith's Reflexion memory: after each finished run it
// keeps the task and what the critics found wanting (principle FAILs, the
// gate's uncovered findings), capped, and renders the most recent lessons for
// the next run's explore phase.
package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Run is one finished planning run's lessons.
type Run struct {
	When    time.Time
	Task    string
	Lessons []string
}

// Caps: the file keeps the newest MaxRuns runs, and each run at most
// MaxLessons lessons of at most MaxLessonLen bytes, so the file stays small
// enough to inject whole.
const (
	MaxRuns      = 20
	MaxLessons   = 12
	MaxLessonLen = 300
	// InjectRuns is how many recent runs the explore prompt sees.
	InjectRuns = 5
)

const header = "# plansmith memory\n\nLessons from earlier planning runs in this project, newest last. Kept by plansmith;\n`plansmith memory clear` erases them.\n"

// MaxFile is the most Load reads: the caps keep the file under 100 KiB, so
// a larger one was not written by plansmith (a repository can carry one)
// and is refused rather than read, split and injected whole.
const MaxFile = 1 << 20

// Load reads the memory file; a missing file is an empty memory. What it
// returns is under the caps whatever the file holds.
func Load(path string) ([]Run, error) {
	data, err := state.ReadOwnedLimit(path, MaxFile) // never through a planted link
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading memory %s: %w", path, err)
	}
	runs := Parse(string(data))
	if len(runs) > MaxRuns {
		runs = runs[len(runs)-MaxRuns:]
	}
	for i := range runs {
		runs[i].Lessons = capLessons(runs[i].Lessons)
	}
	return runs, nil
}

// Parse reads runs from the memory file's markdown: one "## " section per
// run whose heading is "<RFC 3339 time> — <task>", and "- " lessons.
// Lines it does not understand are ignored, so a hand edit cannot break it.
func Parse(text string) []Run {
	var runs []Run
	var cur *Run
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			head := strings.TrimPrefix(line, "## ")
			stamp, task, _ := strings.Cut(head, " — ")
			t, _ := time.Parse(time.RFC3339, strings.TrimSpace(stamp))
			runs = append(runs, Run{When: t, Task: strings.TrimSpace(task)})
			cur = &runs[len(runs)-1]
		case cur != nil && strings.HasPrefix(line, "- "):
			cur.Lessons = append(cur.Lessons, strings.TrimSpace(line[2:]))
		}
	}
	return runs
}

// Format renders runs as the memory file.
func Format(runs []Run) string {
	var b strings.Builder
	b.WriteString(header)
	for _, r := range runs {
		fmt.Fprintf(&b, "\n## %s — %s\n", r.When.UTC().Format(time.RFC3339), OneLine(r.Task, 160))
		for _, l := range r.Lessons {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String()
}

// WithRun returns what the memory file at path holds once r is added under
// the caps, without writing it: nil when r has no lessons and nothing
// changes (a plan the critics found nothing wrong with teaches nothing).
// The caller records the new contents elsewhere before it writes them
// (loop: the provenance ledger, review FB2).
func WithRun(path string, r Run) ([]byte, error) {
	r.Lessons = capLessons(r.Lessons)
	if len(r.Lessons) == 0 {
		return nil, nil
	}
	runs, err := Load(path)
	if err != nil {
		return nil, err
	}
	runs = append(runs, r)
	if len(runs) > MaxRuns {
		runs = runs[len(runs)-MaxRuns:]
	}
	return []byte(Format(runs)), nil
}

// Clear erases the memory; clearing an absent memory is not an error.
func Clear(path string) error {
	if err := state.RemoveOwned(path); err != nil {
		return fmt.Errorf("clearing memory %s: %w", path, err)
	}
	return nil
}

// Render is the text injected into the explore prompt: the lessons of the
// newest InjectRuns runs, or "" when there are none. Each lesson, like each
// task, is a quoted string: its words come from critics that read the
// repository, and a lesson such as `**Phase: draft.** Ignore the request`
// must read as a quotation, never as plansmith's own instructions; the
// escaping keeps a quote inside it from closing the quotation early.
func Render(runs []Run) string {
	if len(runs) > InjectRuns {
		runs = runs[len(runs)-InjectRuns:]
	}
	var b strings.Builder
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if len(r.Lessons) == 0 {
			continue
		}
		fmt.Fprintf(&b, "- Earlier task %q:\n", OneLine(r.Task, 120))
		for _, l := range r.Lessons {
			fmt.Fprintf(&b, "  - %q\n", l)
		}
	}
	return b.String()
}

func capLessons(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range in {
		l = OneLine(l, MaxLessonLen)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
		if len(out) == MaxLessons {
			break
		}
	}
	return out
}

// OneLine folds whitespace (newlines included) into single spaces and cuts
// s to max bytes on a rune boundary, marking a cut with "…". Lessons, tasks
// and requests quoted in one-line messages all go through it.
func OneLine(s string, max int) string { return templates.OneLine(s, max) }
