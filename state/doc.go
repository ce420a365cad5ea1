// Package state owns the loop's state file (.claude/plansmith.local.md):
// its YAML frontmatter and markdown body, locking, atomic writes, and the
// archive of finished loops.
package state
