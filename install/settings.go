// Package install registers plansmith's hooks and slash commands in a Claude
// Code settings folder (a project's .claude/ or the user's ~/.claude/), takes
// them out again, and checks an installation (doctor).
//
// The merging is pure — settings bytes in, settings bytes out — and keeps
// every key, value and order it does not own. plansmith's own hook entries
// are recognised by their command, "<path>/plansmith" hook <event>, whatever
// the path, so a reinstall from a moved binary replaces them instead of
// adding a second set.
package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/plansmith/plansmith"
)

// PluginPlaceholder is how the plugin's files name the binary; install puts
// the binary's absolute path in its place.
const PluginPlaceholder = "${CLAUDE_PLUGIN_ROOT}/bin/plansmith"

// Hooks is plansmith's hook registration for one binary, event by event, in
// the order of hooks/hooks.json.
type Hooks struct {
	Binary string
	events []eventGroups
}

type eventGroups struct {
	event  string
	groups []json.RawMessage
}

// Events names the Claude Code events the registration covers.
func (h Hooks) Events() []string {
	out := make([]string, len(h.events))
	for i, e := range h.events {
		out[i] = e.event
	}
	return out
}

// Commands are the registration's hook commands.
func (h Hooks) Commands() []string {
	var out []string
	for _, e := range h.events {
		for _, g := range e.groups {
			_, _ = rewriteCommands(g, func(cmd string) string {
				out = append(out, cmd)
				return cmd
			})
		}
	}
	return out
}

// PluginHooks reads the plugin's hooks/hooks.json and points every command
// at binary, so a settings registration has exactly the plugin's events,
// matchers and timeouts.
func PluginHooks(binary string) (Hooks, error) {
	data, err := fs.ReadFile(plansmith.Plugin, "hooks/hooks.json")
	if err != nil {
		return Hooks{}, fmt.Errorf("reading the embedded hooks/hooks.json: %w", err)
	}
	return hooksOfKind(data, binary, "settings")
}

func hooksFrom(data []byte, binary string) (Hooks, error) { return hooksOfKind(data, binary, "") }

// hooksOfKind points data's hook commands at binary. With a kind (the
// plugin's hooks.json, kind "settings"), each command becomes
// SettingsCommand: the plugin's fast-path shell text is not needed there.
// Without one (Codex's template), the launcher path is replaced in place
// and the rest of the command, such as --agent codex, stays.
func hooksOfKind(data []byte, binary, kind string) (Hooks, error) {
	bad := func(err error) (Hooks, error) {
		return Hooks{}, fmt.Errorf("embedded hooks/hooks.json: %w", err)
	}
	doc, err := parseObject(data)
	if err != nil {
		return bad(err)
	}
	raw, _ := doc.get("hooks")
	byEvent, err := parseObject(raw)
	if err != nil {
		return bad(err)
	}
	h := Hooks{Binary: binary}
	for _, ev := range byEvent {
		groups, ok := parseArray(ev.value)
		if !ok {
			return bad(fmt.Errorf("%s is not an array", ev.key))
		}
		for i, g := range groups {
			groups[i], err = rewriteCommands(g, func(cmd string) string {
				if kind == "" {
					cmd = strings.ReplaceAll(cmd, `"`+PluginPlaceholder+`"`, Quote(binary))
					if ev, ok := codexHookEvent(cmd, binary); ok {
						return FailClosed(ev, StateTest) + "exec " + cmd + "; x"
					}
					return cmd
				}
				if ev, ok := pluginHookEvent(cmd); ok {
					return SettingsCommand(binary, ev)
				}
				return cmd
			})
			if err != nil {
				return bad(err)
			}
		}
		h.events = append(h.events, eventGroups{ev.key, groups})
	}
	return h, nil
}

// rewriteCommands applies f to the command of every hook in a group.
func rewriteCommands(group json.RawMessage, f func(string) string) (json.RawMessage, error) {
	g, err := parseObject(group)
	if err != nil {
		return nil, err
	}
	raw, _ := g.get("hooks")
	entries, ok := parseArray(raw)
	if !ok {
		return nil, fmt.Errorf("a hook group has no hooks array")
	}
	for i, e := range entries {
		o, err := parseObject(e)
		if err != nil {
			return nil, err
		}
		var cmd string
		if c, ok := o.get("command"); ok && json.Unmarshal(c, &cmd) == nil {
			o.set("command", encode(f(cmd)))
		}
		entries[i] = o.marshal()
	}
	g.set("hooks", marshalArray(entries))
	return g.marshal(), nil
}

// KindEnv is the environment variable that tells the binary which install
// runs it, so its messages name commands that exist there: "plugin" (the
// launcher sets it; /plansmith:cancel, ...) or "settings" (the hook commands
// install registers set it; /plansmith-cancel, ...). Command files cannot set
// it: the read-only policy refuses variable assignments in the agent's shell
// commands.
const KindEnv = "PLANSMITH_INSTALL"

// SettingsCommand is the hook command a settings install registers for one
// plansmith hook event: the binary by its absolute path, told that it runs
// from a settings install, started by exec (no fork of the shell) with
// GOMAXPROCS=1, as the plugin's hooks.json starts it.
//
// Should the binary not start (deleted by `make clean`, say), the command
// still answers (FailClosed): where a loop's state file is, a tool call is
// refused (review Y, A5), and ExitPlanMode always.
func SettingsCommand(binary, event string) string {
	loop := StateTest
	if event == "pretooluse" {
		loop = ":" // the ExitPlanMode entry: the plan-mode gate fails closed (review Z2)
	}
	return FailClosed(event, loop) + KindEnv + "=settings GOMAXPROCS=1 exec " + Quote(binary) + " hook " + event + "; x"
}

// codexHookEvent finds the event of a Codex template command pointed at
// binary: `"<binary>" hook EVENT --agent codex`.
func codexHookEvent(cmd, binary string) (string, bool) {
	rest, ok := strings.CutPrefix(cmd, Quote(binary)+" hook ")
	if !ok {
		return "", false
	}
	words := strings.Fields(rest)
	if len(words) == 0 {
		return "", false
	}
	return words[0], true
}

// pluginHookEvent finds the event a hooks/hooks.json command runs: the word
// after its last "/plansmith" hook.
func pluginHookEvent(cmd string) (string, bool) {
	i := strings.LastIndex(cmd, PluginPlaceholder+`" hook `)
	if i < 0 {
		return "", false
	}
	words := strings.Fields(strings.ReplaceAll(cmd[i+len(PluginPlaceholder+`" hook `):], ";", " ; "))
	if len(words) == 0 || strings.Trim(words[0], "abcdefghijklmnopqrstuvwxyz-") != "" {
		return "", false
	}
	return words[0], true
}

// Quote writes path as one double-quoted shell word.
func Quote(path string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range path {
		if strings.ContainsRune("\"\\$`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// ParseCommand recognises a plansmith hook command: its first word is a file
// named plansmith (quoted or not, any folder), or is self (the binary being
// installed, whatever its name), or the command is in FailClosed's form
// (any name), and the next two are "hook" and one of
// the hook subcommands the plugin's hooks/hooks.json runs. It returns the
// binary's path and the event.
func ParseCommand(cmd, self string) (binary, event string, ok bool) {
	cmd = strings.TrimSpace(cmd)
	guarded := cutFailClosed(cmd)
	// A command in plansmith's own fail-closed form is plansmith's, whatever
	// the binary is called (review Y, C3: one installed as plansmith-0.1
	// was left behind by uninstall and doubled by the next install).
	anyName := guarded != cmd
	cmd = skipAssignments(guarded)
	if rest, ok := strings.CutPrefix(cmd, "exec "); ok {
		cmd = strings.TrimLeft(rest, " \t")
	}
	binary, rest, ok := firstWord(cmd)
	if !ok {
		return "", "", false
	}
	base := filepath.Base(binary)
	if !anyName && base != "plansmith" && base != "plansmith.exe" && (self == "" || binary != self) {
		return "", "", false
	}
	words := strings.Fields(strings.ReplaceAll(rest, ";", " ; ")) // a FailClosed command ends "hook EVENT; x"
	if len(words) < 2 || words[0] != "hook" || !slices.Contains(HookSubcommands(), words[1]) {
		return "", "", false
	}
	return binary, words[1], true
}

// skipAssignments drops leading NAME=value words (unquoted values), such as
// the PLANSMITH_INSTALL=settings and GOMAXPROCS=1 that SettingsCommand writes.
func skipAssignments(s string) string {
	for {
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			return s
		}
		name, _, ok := strings.Cut(s[:end], "=")
		if !ok || name == "" || strings.ContainsAny(s[:end], `"'$`+"`") || strings.TrimLeft(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			return s
		}
		s = strings.TrimLeft(s[end:], " \t")
	}
}

// HookSubcommands names the `plansmith hook EVENT` subcommands the plugin's
// embedded hooks/hooks.json runs, sorted.
var HookSubcommands = sync.OnceValue(func() []string {
	commands, _ := plansmith.HookCommands() // embedded and tested: hooks.TestEventsMatchThePlugin
	var out []string
	for _, cmd := range commands {
		if ev, ok := pluginHookEvent(cmd); ok && !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	slices.Sort(out)
	return out
})

// firstWord splits off one shell word written bare, in double quotes (with
// backslash escapes) or in single quotes.
func firstWord(s string) (word, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	switch s[0] {
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
				b.WriteByte(s[i+1])
				i++
			case c == '"':
				return b.String(), s[i+1:], true
			default:
				b.WriteByte(c)
			}
		}
		return "", "", false
	case '\'':
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		return s[1 : end+1], s[end+2:], true
	default:
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			return s, "", true
		}
		return s[:end], s[end:], true
	}
}

// Registration is one plansmith hook entry found in a settings file.
type Registration struct {
	Event   string // the Claude Code event key, e.g. PreToolUse
	Matcher string
	Binary  string
	Hook    string // the plansmith hook subcommand, e.g. pretooluse
	// Unguarded is set for a command an older plansmith registered, with no
	// answer of its own should the binary not start (FailClosed).
	Unguarded bool
	// Stale says, for a command an older plansmith registered with a
	// fail-closed start since corrected (execFailOnBefore), what its
	// commands do wrong under zsh; "" for any other.
	Stale string
}

// Find lists plansmith's hook entries in settings; self is this binary's
// path (see ParseCommand).
func Find(settings []byte, self string) ([]Registration, error) {
	doc, err := loadSettings(settings)
	if err != nil {
		return nil, err
	}
	hk, err := hooksObject(doc)
	if err != nil {
		return nil, err
	}
	var out []Registration
	for _, ev := range hk {
		groups, ok := parseArray(ev.value)
		if !ok {
			continue
		}
		for _, g := range groups {
			obj, err := parseObject(g)
			if err != nil {
				continue
			}
			var matcher string
			if m, ok := obj.get("matcher"); ok {
				_ = json.Unmarshal(m, &matcher)
			}
			raw, _ := obj.get("hooks")
			entries, _ := parseArray(raw)
			for _, e := range entries {
				if bin, hook, cmd, ok := entryCommand(e, self); ok {
					rest, stale := cutFailClosedStart(cmd)
					out = append(out, Registration{ev.key, matcher, bin, hook, rest == cmd, stale})
				}
			}
		}
	}
	return out, nil
}

func entryCommand(entry json.RawMessage, self string) (binary, event, cmd string, ok bool) {
	o, err := parseObject(entry)
	if err != nil {
		return "", "", "", false
	}
	c, found := o.get("command")
	if !found || json.Unmarshal(c, &cmd) != nil {
		return "", "", "", false
	}
	binary, event, ok = ParseCommand(cmd, self)
	return binary, event, cmd, ok
}

// Merge returns settings with h's hook entries registered: earlier plansmith
// entries (from any binary path) are taken out, and the new ones put where
// the first old one stood in each event, else at the end. Everything else is
// kept as it was, in order. changed is false, and out is settings itself,
// when the registration is already exactly in place.
func Merge(settings []byte, h Hooks) (out []byte, changed bool, err error) {
	doc, err := loadSettings(settings)
	if err != nil {
		return nil, false, err
	}
	hk, err := hooksObject(doc)
	if err != nil {
		return nil, false, err
	}
	firstAt, emptied := strip(hk, h.Binary)
	for _, want := range h.events {
		var groups []json.RawMessage
		if raw, ok := hk.get(want.event); ok && !isNull(raw) {
			if groups, ok = parseArray(raw); !ok {
				return nil, false, fmt.Errorf(`"hooks.%s" is not an array`, want.event)
			}
		}
		at, ok := firstAt[want.event]
		if !ok {
			at = len(groups)
		}
		groups = slices.Insert(groups, at, want.groups...)
		hk.set(want.event, marshalArray(groups))
		delete(emptied, want.event)
	}
	for ev := range emptied {
		hk.remove(ev)
	}
	doc.set("hooks", hk.marshal())
	return finish(settings, doc)
}

// Remove returns settings without plansmith's hook entries (self: see
// ParseCommand). An event list, or the hooks object, that only plansmith's
// entries filled is removed too.
func Remove(settings []byte, self string) (out []byte, changed bool, err error) {
	doc, err := loadSettings(settings)
	if err != nil {
		return nil, false, err
	}
	raw, ok := doc.get("hooks")
	if !ok || isNull(raw) {
		return settings, false, nil
	}
	hk, err := hooksObject(doc)
	if err != nil {
		return nil, false, err
	}
	_, emptied := strip(hk, self)
	if len(hk) == len(emptied) && len(emptied) > 0 {
		doc.remove("hooks")
		return finish(settings, doc)
	}
	for ev := range emptied {
		hk.remove(ev)
	}
	doc.set("hooks", hk.marshal())
	return finish(settings, doc)
}

// strip takes plansmith's entries out of every event in hk, in place. It
// reports, per event, the index of the first group that held one, and the
// events whose lists it left empty.
func strip(hk object, self string) (firstAt map[string]int, emptied map[string]bool) {
	firstAt, emptied = map[string]int{}, map[string]bool{}
	for i, ev := range hk {
		groups, ok := parseArray(ev.value)
		if !ok {
			continue // not a list of groups: not ours to judge
		}
		kept := groups[:0:0]
		touched := false
		for _, g := range groups {
			ng, removed, gone := stripGroup(g, self)
			if removed {
				touched = true
				if _, seen := firstAt[ev.key]; !seen {
					firstAt[ev.key] = len(kept)
				}
			}
			if !gone {
				kept = append(kept, ng)
			}
		}
		if !touched {
			continue
		}
		hk[i].value = marshalArray(kept)
		if len(kept) == 0 {
			emptied[ev.key] = true
		}
	}
	return firstAt, emptied
}

// stripGroup removes plansmith's entries from one matcher group. gone means
// the group held nothing else and should go.
func stripGroup(group json.RawMessage, self string) (out json.RawMessage, removed, gone bool) {
	g, err := parseObject(group)
	if err != nil {
		return group, false, false
	}
	raw, _ := g.get("hooks")
	entries, ok := parseArray(raw)
	if !ok {
		return group, false, false
	}
	kept := entries[:0:0]
	for _, e := range entries {
		if _, _, _, ours := entryCommand(e, self); ours {
			removed = true
			continue
		}
		kept = append(kept, e)
	}
	if !removed {
		return group, false, false
	}
	if len(kept) == 0 {
		return nil, true, true
	}
	g.set("hooks", marshalArray(kept))
	return g.marshal(), true, false
}

// loadSettings parses a settings file's bytes; empty (or all blank) is an
// empty object, as Claude Code treats it.
func loadSettings(settings []byte) (object, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return object{}, nil
	}
	if !json.Valid(settings) {
		var v any
		return nil, syntaxError(settings, json.Unmarshal(settings, &v))
	}
	doc, err := parseObject(settings)
	if err != nil {
		return nil, fmt.Errorf("the top level must be an object: %w", err)
	}
	if err := refuseDuplicate(doc, "the top level", "hooks"); err != nil {
		return nil, err
	}
	return doc, nil
}

func hooksObject(doc object) (object, error) {
	raw, ok := doc.get("hooks")
	if !ok || isNull(raw) {
		return object{}, nil
	}
	hk, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf(`"hooks" must be an object: %w`, err)
	}
	if k := duplicateKey(raw); k != "" {
		// Within what plansmith edits, every duplicate matters: it reads
		// the first, Claude Code's JSON.parse the last (review AB4).
		return nil, fmt.Errorf(`"hooks" has the key %q twice in one object (Claude Code reads only the last); merge the two into one`, k)
	}
	return hk, nil
}

// finish formats doc like the original (its indentation) and reports
// whether anything but whitespace changed.
func finish(original []byte, doc object) ([]byte, bool, error) {
	var out bytes.Buffer
	if err := json.Indent(&out, doc.marshal(), "", indentOf(original)); err != nil {
		return nil, false, fmt.Errorf("formatting settings: %w", err)
	}
	out.WriteByte('\n')
	if sameJSON(original, out.Bytes()) {
		return original, false, nil
	}
	return out.Bytes(), true, nil
}

func sameJSON(a, b []byte) bool {
	if len(bytes.TrimSpace(a)) == 0 {
		a = []byte("{}")
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// indentOf returns the leading whitespace of the first indented line, so a
// file indented with tabs or four spaces stays that way; two spaces (what
// Claude Code writes) otherwise.
func indentOf(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if n := len(line) - len(trimmed); n > 0 && len(bytes.TrimSpace(trimmed)) > 0 {
			return string(line[:n])
		}
	}
	return "  "
}
