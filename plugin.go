// Package plansmith holds the plugin's own files — the slash commands in
// commands/*.md and the hook registration in hooks/hooks.json — embedded so
// that `plansmith install` can register the same hooks and commands in a
// settings file. The plugin folder stays the single source of that text:
// Claude Code reads it from disk, the binary reads it from this embed.
package plansmith

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"
)

// Plugin is the plugin's files: commands/*.md, hooks/hooks.json and
// .claude-plugin/plugin.json (whose version is the binary's, see Version).
//
//go:embed commands/*.md hooks/hooks.json .claude-plugin/plugin.json
var Plugin embed.FS

// HookCommands returns the command of every hook hooks/hooks.json
// registers, by its plansmith hook subcommand (the word after the last
// " hook ").
func HookCommands() (map[string]string, error) {
	data, err := Plugin.ReadFile("hooks/hooks.json")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("hooks/hooks.json: %w", err)
	}
	out := map[string]string{}
	for event, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				i := strings.LastIndex(h.Command, " hook ")
				if i < 0 {
					return nil, fmt.Errorf("hooks/hooks.json: a %s command runs no plansmith hook: %s", event, h.Command)
				}
				ev, _, _ := strings.Cut(h.Command[i+len(" hook "):], ";") // the command ends "hook EVENT; x"
				out[strings.TrimSpace(ev)] = h.Command
			}
		}
	}
	return out, nil
}
