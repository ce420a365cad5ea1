package install

import (
	"encoding/json"
	"fmt"
)

// ClaudeSkips says why Claude Code would skip a settings file, and every
// hook in it with plansmith's, or returns "" when this check finds nothing.
// Claude Code validates a settings file as a whole: a file with an error is
// skipped entirely ("Files with errors are skipped entirely, not just the
// invalid settings"), and 2.1.197 treats a malformed hook group the same
// way. Seen with both CLIs (review BV): permissions not an object, or its
// allow or deny list not a list of strings, dropped every hook of the file,
// so a loop's tool calls ran unchecked while install, doctor and plan said
// the hooks were registered; a hook group that is no object, a matcher that
// is no string, or a command hook with no command string did so on 2.1.197.
// Only what was seen is checked here: the full schema is Claude Code's.
func ClaudeSkips(settings []byte) string {
	doc, err := loadSettings(settings)
	if err != nil {
		return ""
	}
	if raw, ok := doc.get("permissions"); ok && !isNull(raw) {
		perms, err := parseObject(raw)
		if err != nil {
			return `"permissions" is not an object`
		}
		for _, key := range []string{"allow", "deny", "ask", "additionalDirectories"} {
			if list, ok := perms.get(key); ok && !stringList(list) {
				return fmt.Sprintf(`"permissions.%s" is not a list of strings`, key)
			}
		}
	}
	raw, ok := doc.get("hooks")
	if !ok || isNull(raw) {
		return ""
	}
	hk, err := parseObject(raw)
	if err != nil {
		return ""
	}
	for _, ev := range hk {
		groups, ok := parseArray(ev.value)
		if !ok {
			return fmt.Sprintf(`"hooks.%s" is not a list`, ev.key)
		}
		for i, g := range groups {
			where := fmt.Sprintf("hooks.%s[%d]", ev.key, i)
			obj, err := parseObject(g)
			if err != nil {
				return fmt.Sprintf("%q is not an object", where)
			}
			if m, ok := obj.get("matcher"); ok && !isNull(m) && !isString(m) {
				return fmt.Sprintf("%q has a matcher that is not a string", where)
			}
			entries, ok := parseArray(mustGet(obj, "hooks"))
			if !ok {
				return fmt.Sprintf("%q has no list of hooks", where)
			}
			for j, e := range entries {
				h, err := parseObject(e)
				if err != nil {
					return fmt.Sprintf("%q is not an object", fmt.Sprintf("%s.hooks[%d]", where, j))
				}
				var kind string
				if t, ok := h.get("type"); !ok || json.Unmarshal(t, &kind) != nil {
					return fmt.Sprintf("%q has no type", fmt.Sprintf("%s.hooks[%d]", where, j))
				}
				if c, ok := h.get("command"); kind == "command" && (!ok || !isString(c)) {
					return fmt.Sprintf("%q is a command hook with no command", fmt.Sprintf("%s.hooks[%d]", where, j))
				}
			}
		}
	}
	return ""
}

func mustGet(o object, key string) json.RawMessage {
	v, _ := o.get(key)
	return v
}

func isString(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil
}

func stringList(raw json.RawMessage) bool {
	var l []string
	return json.Unmarshal(raw, &l) == nil && !isNull(raw)
}
