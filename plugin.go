// Package plansmith holds the plugin's own files — the slash commands in
// commands/*.md and the hook registration in hooks/hooks.json — embedded so
// that `plansmith install` can register the same hooks and commands in a
// settings file. The plugin folder stays the single source of that text:
// Claude Code reads it from disk, the binary reads it from this embed.
package plansmith

import "embed"

// Plugin is the plugin's files: commands/*.md, hooks/hooks.json and
// .claude-plugin/plugin.json (whose version is the binary's, see Version).
//
//go:embed commands/*.md hooks/hooks.json .claude-plugin/plugin.json
var Plugin embed.FS
