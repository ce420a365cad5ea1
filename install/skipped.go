package install

import (
	"encoding/json"
	"fmt"
	"slices"
)

// ClaudeSkips says why Claude Code would skip a settings file, and every
// hook in it with plansmith's, or returns "" when this check finds nothing.
// Claude Code validates a settings file as a whole: a file with an error is
// skipped entirely ("Files with errors are skipped entirely, not just the
// invalid settings"). Only shapes seen to make both 2.1.197 and 2.1.330 skip
// the whole file are reported here (a project settings file with the shape
// and a UserPromptSubmit hook that left a mark, or an env variable a Bash
// command looked for; review CE):
//
//   - permissions, env or enabledPlugins not an object (null included), or
//     model not a string (null included), or cleanupPeriodDays a string;
//   - permissions.allow, deny or ask not a list (a string, an object, null);
//     a list whose items are not all strings is NOT skipped (["Bash", 1] ran
//     the hooks on both), nor is a rule of bad syntax ("Bash((");
//   - permissions.additionalDirectories not a list of strings (null, a
//     string, [3]);
//   - permissions.defaultMode none of the modes both know ("bogus",
//     "delegate" and 3 were skipped; "auto" and "dontAsk" were not);
//   - under PreToolUse or PermissionRequest: the event's value not a list
//     (2.1.330 only, see ClaudeMaySkip), a group that is no object, a
//     matcher that is no string (5 or null), a group without a list of hooks
//     (missing or null), a hook with no type or a type neither knows, a
//     command hook without a command string, a prompt hook without a prompt,
//     a timeout that is no number.
//
// Not skipped by either (so not reported): unknown top-level or permissions
// keys, env values that are not strings (1, true, {}), "hooks" that is not
// an object (null, 5, [], "x": the file's env still applied), an event
// name neither knows, an event whose value is null, extra keys in a group
// or hook, an empty command, enabledPlugins values true, false or a list.
// A file that is not JSON (comments, a trailing comma) is skipped too; it
// is reported as not valid JSON before this check. A byte order mark and a
// repeated key (the last one wins) are read by both.
func ClaudeSkips(settings []byte) string {
	sure, _ := claudeSkips(settings)
	return sure
}

// ClaudeMaySkip says why some Claude Code version would skip the whole
// file where another runs its hooks, or returns "". 2.1.197 skips a file
// with a malformed hook group or hook (as listed for ClaudeSkips) under any
// event it knows; 2.1.330 skips it only under PreToolUse and
// PermissionRequest, and runs the file's other hooks for every other event
// seen (Stop, SubagentStop, SubagentStart, SessionStart, SessionEnd,
// PostToolUse, PostToolUseFailure, PostToolBatch, Notification, PreCompact,
// StopFailure). The other way round, PreToolUse or PermissionRequest given
// an object where a list belongs is skipped by 2.1.330 and not by 2.1.197.
// Such a file is worth a warning, not a refusal.
func ClaudeMaySkip(settings []byte) string {
	sure, older := claudeSkips(settings)
	if sure != "" {
		return ""
	}
	return older
}

// strictEvents are the events under which both CLIs skip the whole file for
// a malformed hook group.
var strictEvents = []string{"PreToolUse", "PermissionRequest"}

// knownEvents are the hook events of 2.1.197 (its SDK's HOOK_EVENTS): under
// any of them, a malformed group makes 2.1.197 skip the file. Groups under
// other names are dropped, not validated, by both.
var knownEvents = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
	"Notification", "UserPromptSubmit", "UserPromptExpansion", "SessionStart",
	"SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
	"PreCompact", "PostCompact", "PermissionRequest", "PermissionDenied",
	"Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation",
	"ElicitationResult", "ConfigChange", "WorktreeCreate", "WorktreeRemove",
	"InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay",
}

// permissionModes are the values of permissions.defaultMode both CLIs take.
var permissionModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"}

// claudeSkips returns why both CLIs skip the file (sure) and, failing
// that, why only one of them does (some).
func claudeSkips(settings []byte) (sure, some string) {
	doc, err := loadSettings(settings)
	if err != nil {
		return "", ""
	}
	if why := topLevelSkips(doc); why != "" {
		return why, ""
	}
	raw, ok := doc.get("hooks")
	if !ok || isNull(raw) {
		return "", ""
	}
	hk, err := parseObject(raw)
	if err != nil {
		return "", "" // both drop the hooks and read the rest
	}
	for _, ev := range hk {
		if !slices.Contains(knownEvents, ev.key) || isNull(ev.value) {
			continue
		}
		strict := slices.Contains(strictEvents, ev.key)
		groups, ok := parseArray(ev.value)
		if !ok {
			if strict && some == "" {
				some = fmt.Sprintf(`"hooks.%s" is not a list (Claude Code 2.1.330 skips the file, 2.1.197 does not)`, ev.key)
			}
			continue
		}
		why := groupsSkip(ev.key, groups)
		switch {
		case why == "":
		case strict:
			return why, ""
		case some == "":
			some = why + " (Claude Code 2.1.197 skips the file, 2.1.330 does not)"
		}
	}
	return "", some
}

func topLevelSkips(doc object) string {
	if raw, ok := doc.get("model"); ok && !isString(raw) {
		return `"model" is not a string`
	}
	if raw, ok := doc.get("cleanupPeriodDays"); ok && isString(raw) {
		return `"cleanupPeriodDays" is not a number`
	}
	for _, key := range []string{"env", "enabledPlugins", "permissions"} {
		if raw, ok := doc.get(key); ok {
			if _, err := parseObject(raw); err != nil {
				return fmt.Sprintf("%q is not an object", key)
			}
		}
	}
	if raw, ok := doc.get("enabledPlugins"); ok {
		plugins, _ := parseObject(raw)
		for _, p := range plugins {
			var on bool
			if _, list := parseArray(p.value); json.Unmarshal(p.value, &on) != nil && (!list || isNull(p.value)) {
				return fmt.Sprintf(`"enabledPlugins.%s" is neither true, false nor a list`, p.key)
			}
		}
	}
	raw, ok := doc.get("permissions")
	if !ok {
		return ""
	}
	perms, _ := parseObject(raw)
	for _, key := range []string{"allow", "deny", "ask"} {
		if list, ok := perms.get(key); ok {
			if _, isList := parseArray(list); !isList || isNull(list) {
				return fmt.Sprintf(`"permissions.%s" is not a list`, key)
			}
		}
	}
	if list, ok := perms.get("additionalDirectories"); ok && !stringList(list) {
		return `"permissions.additionalDirectories" is not a list of strings`
	}
	if m, ok := perms.get("defaultMode"); ok {
		var mode string
		if json.Unmarshal(m, &mode) != nil || isNull(m) || !slices.Contains(permissionModes, mode) {
			return fmt.Sprintf(`"permissions.defaultMode" is %s, not one of the modes Claude Code knows`, m)
		}
	}
	return ""
}

// groupsSkip says what is malformed in the hook groups of one event.
func groupsSkip(event string, groups []json.RawMessage) string {
	for i, g := range groups {
		where := fmt.Sprintf("hooks.%s[%d]", event, i)
		obj, err := parseObject(g)
		if err != nil {
			return fmt.Sprintf("%q is not an object", where)
		}
		if m, ok := obj.get("matcher"); ok && !isString(m) {
			return fmt.Sprintf("%q has a matcher that is not a string", where)
		}
		list, _ := obj.get("hooks")
		entries, ok := parseArray(list)
		if !ok || isNull(list) {
			return fmt.Sprintf("%q has no list of hooks", where)
		}
		for j, e := range entries {
			at := fmt.Sprintf("%s.hooks[%d]", where, j)
			h, err := parseObject(e)
			if err != nil {
				return fmt.Sprintf("%q is not an object", at)
			}
			var kind string
			if t, ok := h.get("type"); !ok || json.Unmarshal(t, &kind) != nil || isNull(t) {
				return fmt.Sprintf("%q has no type", at)
			}
			if !slices.Contains([]string{"command", "prompt", "agent", "http", "mcp_tool"}, kind) {
				return fmt.Sprintf("%q has a type Claude Code does not know (%q)", at, kind)
			}
			if c, ok := h.get("command"); kind == "command" && (!ok || !isString(c)) {
				return fmt.Sprintf("%q is a command hook with no command", at)
			}
			if p, ok := h.get("prompt"); kind == "prompt" && (!ok || !isString(p)) {
				return fmt.Sprintf("%q is a prompt hook with no prompt", at)
			}
			if t, ok := h.get("timeout"); ok {
				var n float64
				if json.Unmarshal(t, &n) != nil || isNull(t) {
					return fmt.Sprintf("%q has a timeout that is not a number", at)
				}
			}
		}
	}
	return ""
}

// isString: a JSON string (null is not one).
func isString(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && !isNull(raw)
}

func stringList(raw json.RawMessage) bool {
	var l []string
	if json.Unmarshal(raw, &l) != nil || isNull(raw) {
		return false
	}
	items, _ := parseArray(raw)
	return !slices.ContainsFunc(items, isNull) // null reads as "" into a string
}
