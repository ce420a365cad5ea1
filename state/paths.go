package state

import "path/filepath"

// Paths names every file plansmith keeps in a user's project.
type Paths struct {
	Project string // the project directory
}

// State is the active loop's file.
func (p Paths) State() string { return filepath.Join(p.Project, ".claude", "plansmith.local.md") }

// Output is the saved plan.
func (p Paths) Output() string {
	return filepath.Join(p.Project, ".claude", "plansmith-output.local.md")
}

// Memory is the Reflexion memory file.
func (p Paths) Memory() string {
	return filepath.Join(p.Project, ".claude", "plansmith-memory.local.md")
}

// Work is the folder of working files (gate prompts, archive, lock).
func (p Paths) Work() string { return filepath.Join(p.Project, ".claude", "plansmith") }

// Archive holds finished loops.
func (p Paths) Archive() string { return filepath.Join(p.Work(), "archive") }

// Gate holds the gate's prompt files.
func (p Paths) Gate() string { return filepath.Join(p.Work(), "gate") }

// Lock is the file whose flock serialises every read-modify-write.
func (p Paths) Lock() string { return filepath.Join(p.Work(), "lock") }

// Cleared is where a hook notes the /clear of a session holding the loop,
// for the session the clear starts (loop.SessionEnd).
func (p Paths) Cleared() string { return filepath.Join(p.Work(), "cleared") }

// Steers is where a hook that could not take the lock notes a message the
// agent sent a gate run (loop.RecordSubagent), for the next Stop to apply.
func (p Paths) Steers() string { return filepath.Join(p.Work(), "steers") }

// Rel returns path relative to the project, for messages.
func (p Paths) Rel(path string) string {
	if r, err := filepath.Rel(p.Project, path); err == nil {
		return r
	}
	return path
}
