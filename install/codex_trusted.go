package install

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// Whether Codex will run plansmith's hooks, as far as its config.toml
// tells: each hook needs a trust entry (hooks.state."<key>".trusted_hash,
// written by the /hooks review or by install --trust), must not be turned
// off there (enabled = false), and the hooks feature must be on. Whether
// a recorded hash still matches the hook is Codex's to compute; a hook
// changed since it was trusted is not seen here (review BK4).

// codexHookKeys returns the keys Codex may give plansmith's hooks in the
// hooks file at file (data, its contents), by event: "<file>:
// <event_snake_case>:<group>:<index>", with the file's path as given and
// with its links resolved.
func codexHookKeys(data []byte, file, self string) map[string][]string {
	paths := []string{file}
	if canon, err := filepath.EvalSymlinks(file); err == nil && canon != file {
		paths = append(paths, canon)
	}
	keys := map[string][]string{}
	d, err := loadSettings(data)
	if err != nil {
		return keys
	}
	hk, err := hooksObject(d)
	if err != nil {
		return keys
	}
	for _, ev := range hk {
		groups, _ := parseArray(ev.value)
		for g, group := range groups {
			o, err := parseObject(group)
			if err != nil {
				continue
			}
			raw, _ := o.get("hooks")
			entries, _ := parseArray(raw)
			for i, e := range entries {
				if _, _, _, ours := entryCommand(e, self); ours {
					for _, p := range paths {
						keys[ev.key] = append(keys[ev.key], fmt.Sprintf("%s:%s:%d:%d", p, snakeCase(ev.key), g, i))
					}
				}
			}
		}
	}
	return keys
}

// snakeCase is Codex's name of an event in a hook's key: PreToolUse is
// pre_tool_use.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexConfigLimit bounds the read of config.toml.
const codexConfigLimit = 4 << 20

// codexUntrusted says why Codex would not run plansmith's hooks, from its
// config.toml: the hooks feature turned off, or the events (among keys)
// whose hook has no trust entry or is turned off. "" when nothing there
// stands in the way.
func codexUntrusted(configFile string, keys map[string][]string) string {
	data, _ := plainfile.Read(configFile, codexConfigLimit)
	trusted, disabled := map[string]bool{}, map[string]bool{}
	table := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			table = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if i := strings.Index(v, "#"); i >= 0 && !strings.HasPrefix(v, `"`) {
			v = strings.TrimSpace(v[:i])
		}
		switch {
		case table == "features" && k == "hooks" && v == "false":
			return "the hooks feature is turned off in " + configFile + " ([features] hooks = false)"
		case strings.HasPrefix(table, "hooks.state."):
			key := tomlKey(strings.TrimPrefix(table, "hooks.state."))
			switch k {
			case "trusted_hash":
				trusted[key] = strings.Trim(v, `"'`) != ""
			case "enabled":
				disabled[key] = v == "false"
			}
		}
	}
	var untrusted, off []string
	for _, ev := range []string{"PreToolUse", "Stop", "UserPromptSubmit"} {
		candidates, ok := keys[ev]
		if !ok {
			continue
		}
		isTrusted, isOff := false, false
		for _, key := range candidates {
			isTrusted = isTrusted || trusted[key]
			isOff = isOff || disabled[key]
		}
		switch {
		case isOff:
			off = append(off, ev)
		case !isTrusted:
			untrusted = append(untrusted, ev)
		}
	}
	hooks := func(evs []string) string {
		if len(evs) == 1 {
			return evs[0] + " hook"
		}
		return strings.Join(evs, ", ") + " hooks"
	}
	switch {
	case len(off) == 1:
		return fmt.Sprintf("plansmith's %s is turned off in %s", hooks(off), configFile)
	case len(off) > 1:
		return fmt.Sprintf("plansmith's %s are turned off in %s", hooks(off), configFile)
	case len(untrusted) > 0:
		return fmt.Sprintf("Codex has no trust recorded for plansmith's %s in %s, and runs no hook until it is trusted", hooks(untrusted), configFile)
	}
	return ""
}

// tomlKey reads one TOML key as written in a table header: quoted (basic,
// with backslash escapes, or literal) or bare.
func tomlKey(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) && len(s) >= 2:
		s = s[1 : len(s)-1]
		s = strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(s)
	case strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") && len(s) >= 2:
		s = s[1 : len(s)-1]
	}
	return s
}
