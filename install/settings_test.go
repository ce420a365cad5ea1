package install

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith"
)

const bin = "/opt/plansmith/bin/plansmith"

func hooksFor(t *testing.T, binary string) Hooks {
	t.Helper()
	h, err := PluginHooks(binary)
	require.NoError(t, err)
	return h
}

// keysOf lists an object's keys in file order.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	o, err := parseObject(raw)
	require.NoError(t, err)
	var keys []string
	for _, m := range o {
		keys = append(keys, m.key)
	}
	return keys
}

func TestPluginHooksMatchHooksJSON(t *testing.T) {
	h := hooksFor(t, bin)
	assert.Equal(t, []string{"Stop", "PreToolUse", "PostToolUse", "UserPromptSubmit", "SubagentStop", "SessionStart", "SessionEnd", "StopFailure"}, h.Events())
	out, _, err := Merge(nil, h)
	require.NoError(t, err)
	regs, err := Find(out, bin)
	require.NoError(t, err)
	assert.Equal(t, []Registration{
		{"Stop", "", bin, "stop", false, ""},
		{"PreToolUse", "ExitPlanMode", bin, "pretooluse", false, ""},
		{"PreToolUse", "*", bin, "pretooluse-loop", false, ""},
		{"PostToolUse", "Write|Edit|MultiEdit|Agent|Task|SendMessage", bin, "posttooluse", false, ""},
		{"UserPromptSubmit", "", bin, "userpromptsubmit", false, ""},
		{"SubagentStop", "", bin, "subagentstop", false, ""},
		{"SessionStart", "", bin, "sessionstart", false, ""},
		{"SessionEnd", "", bin, "sessionend", false, ""},
		{"StopFailure", "", bin, "stopfailure", false, ""},
	}, regs)
	assert.Contains(t, string(out), strings.ReplaceAll(`trap x EXIT; `+execFailOn+`PLANSMITH_INSTALL=settings GOMAXPROCS=1 exec "/opt/plansmith/bin/plansmith" hook stop; x`, `"`, `\"`)+`"`)
	assert.Contains(t, string(out), `"timeout": 60`)
}

func TestMerge(t *testing.T) {
	other := `{"type": "command", "command": "lint --fix"}`
	tests := []struct {
		name     string
		in       string
		changed  bool
		keys     []string // top-level keys in order
		hookKeys []string // keys of "hooks" in order
		check    func(*testing.T, string)
	}{
		{name: "no file", in: "", changed: true, keys: []string{"hooks"},
			hookKeys: []string{"Stop", "PreToolUse", "PostToolUse", "UserPromptSubmit", "SubagentStop", "SessionStart", "SessionEnd", "StopFailure"}},
		{name: "empty object", in: "{}\n", changed: true, keys: []string{"hooks"}},
		{name: "blank file", in: "  \n", changed: true, keys: []string{"hooks"}},
		{name: "unknown keys keep their order and content",
			in:      `{"zeta": {"b": 1, "a": [1, 2.50, "x\u0026y"]}, "model": "opus", "permissions": {"allow": ["Bash(ls)"]}}`,
			changed: true, keys: []string{"zeta", "model", "permissions", "hooks"},
			check: func(t *testing.T, out string) {
				assert.Contains(t, out, `"a": [`)
				assert.Contains(t, out, `2.50`, "numbers are copied verbatim")
				assert.Contains(t, out, `"x\u0026y"`, "strings are copied verbatim")
				assert.Less(t, strings.Index(out, `"b"`), strings.Index(out, `"a"`))
			}},
		{name: "other hooks for the same event stay first",
			in:      `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + other + `]}], "Notification": [{"hooks": [` + other + `]}]}}`,
			changed: true, keys: []string{"hooks"},
			hookKeys: []string{"PreToolUse", "Notification", "Stop", "PostToolUse", "UserPromptSubmit", "SubagentStop", "SessionStart", "SessionEnd", "StopFailure"},
			check: func(t *testing.T, out string) {
				assert.Equal(t, 2, strings.Count(out, "lint --fix"))
				assert.Less(t, strings.Index(out, `"Bash"`), strings.Index(out, "hook pretooluse"))
			}},
		{name: "old binary path is replaced, not duplicated, in place",
			in: `{"hooks": {"Stop": [{"hooks": [` + other + `]}, {"hooks": [{"type": "command", "command": "\"/old/place/plansmith\" hook stop", "timeout": 60}]}, {"hooks": [{"type": "command", "command": "after"}]}],
			  "Notification": [{"hooks": [{"type": "command", "command": "/old/place/plansmith hook stop"}]}]}}`,
			changed: true,
			check: func(t *testing.T, out string) {
				assert.NotContains(t, out, "/old/place")
				assert.Equal(t, 1, strings.Count(out, `hook stop; x"`))
				assert.Less(t, strings.Index(out, "lint --fix"), strings.Index(out, `hook stop; x"`))
				assert.Less(t, strings.Index(out, `hook stop; x"`), strings.Index(out, `"after"`))
				assert.NotContains(t, out, "Notification", "an event only plansmith filled goes with it")
			}},
		{name: "plansmith entry sharing a group with another hook",
			in:      `{"hooks": {"Stop": [{"hooks": [` + other + `, {"type": "command", "command": "plansmith hook stop"}]}]}}`,
			changed: true,
			check: func(t *testing.T, out string) {
				assert.Equal(t, 1, strings.Count(out, `hook stop; x"`))
				assert.Contains(t, out, "lint --fix")
			}},
		{name: "a plansmith lookalike is not ours",
			in:      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/x/plansmith-old hook stop"}, {"type": "command", "command": "/x/plansmith status"}]}]}}`,
			changed: true,
			check: func(t *testing.T, out string) {
				assert.Contains(t, out, "plansmith-old hook stop")
				assert.Contains(t, out, "/x/plansmith status")
			}},
		{name: "hooks null is treated as absent", in: `{"hooks": null}`, changed: true, keys: []string{"hooks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := Merge([]byte(tt.in), hooksFor(t, bin))
			require.NoError(t, err)
			assert.Equal(t, tt.changed, changed)
			require.True(t, json.Valid(out), "output is JSON:\n%s", out)
			if tt.keys != nil {
				assert.Equal(t, tt.keys, keysOf(t, out))
			}
			doc, _ := parseObject(out)
			hk, _ := doc.get("hooks")
			if tt.hookKeys != nil {
				assert.Equal(t, tt.hookKeys, keysOf(t, hk))
			}
			for _, ev := range []string{"hook stop", "hook pretooluse", "hook posttooluse", "hook userpromptsubmit", "hook subagentstop", "hook sessionstart", "hook sessionend", "hook stopfailure"} {
				assert.Equal(t, 1, strings.Count(string(out), `\"`+bin+`\" `+ev+`; x"`), ev)
			}
			if tt.check != nil {
				tt.check(t, string(out))
			}

			again, changed, err := Merge(out, hooksFor(t, bin))
			require.NoError(t, err)
			assert.False(t, changed, "a second install changes nothing")
			assert.Equal(t, string(out), string(again))
		})
	}
}

func TestMergeRefusesBadSettings(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"malformed", "{\n  \"model\": \"opus\",\n}", "line 3, column 1"},
		{"top level array", `[1]`, "top level must be an object"},
		{"trailing data", `{} {}`, "line 1"},
		{"hooks not an object", `{"hooks": []}`, `"hooks" must be an object`},
		{"event not an array", `{"hooks": {"Stop": {}}}`, `"hooks.Stop" is not an array`},
		{"two hooks keys (Claude Code reads the last)", `{"hooks": {"Stop": []}, "model": "x", "hooks": {"Stop": []}}`, `the top level has the key "hooks" twice`},
		{"an event twice", `{"hooks": {"Stop": [], "Stop": []}}`, `"hooks" has the key "Stop" twice`},
		{"a command twice in a hook entry", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "plansmith hook stop", "command": "true"}]}]}}`, `"hooks" has the key "command" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Merge([]byte(tt.in), hooksFor(t, bin))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			_, _, err = Remove([]byte(tt.in), bin)
			if tt.name != "event not an array" { // Remove leaves lists it does not understand alone
				assert.Error(t, err)
			}
		})
	}
}

func TestRemoveRestoresTheOriginal(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"empty object", "{}\n"},
		{"unknown keys", "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"1\"\n  }\n}\n"},
		{"other hooks", "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"lint\"\n          }\n        ]\n      }\n    ]\n  },\n  \"z\": 1\n}\n"},
		{"four-space indent", "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Notification\": []\n    }\n}\n"},
		{"tab indent", "{\n\t\"model\": \"opus\"\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			installed, changed, err := Merge([]byte(tt.in), hooksFor(t, bin))
			require.NoError(t, err)
			require.True(t, changed)
			out, changed, err := Remove(installed, bin)
			require.NoError(t, err)
			assert.True(t, changed)
			assert.Equal(t, tt.in, string(out))

			again, changed, err := Remove(out, bin)
			require.NoError(t, err)
			assert.False(t, changed, "a second uninstall changes nothing")
			assert.Equal(t, tt.in, string(again))
		})
	}
}

func TestRemoveWithoutFileOrHooks(t *testing.T) {
	for _, in := range []string{"", `{"model":"x"}`, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"lint"}]}]}}`} {
		out, changed, err := Remove([]byte(in), bin)
		require.NoError(t, err)
		assert.False(t, changed, in)
		assert.Equal(t, in, string(out))
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		cmd, bin, event string
		ok              bool
	}{
		{`"/a b/plansmith" hook stop`, "/a b/plansmith", "stop", true},
		{`/usr/bin/plansmith hook pretooluse`, "/usr/bin/plansmith", "pretooluse", true},
		{`'/x/plansmith' hook posttooluse --extra`, "/x/plansmith", "posttooluse", true},
		{`"${CLAUDE_PLUGIN_ROOT}/bin/plansmith" hook userpromptsubmit`, "${CLAUDE_PLUGIN_ROOT}/bin/plansmith", "userpromptsubmit", true},
		{`"/a \"q\"/plansmith" hook stop`, `/a "q"/plansmith`, "stop", true},
		{`/usr/bin/plansmith hook`, "", "", false},
		{`/usr/bin/plansmith hook sessionstart`, "/usr/bin/plansmith", "sessionstart", true},
		{`/usr/bin/plansmith hook precompact`, "", "", false},
		{`/usr/bin/plansmith status`, "", "", false},
		{`/usr/bin/other hook stop`, "", "", false},
		{`"/self/ps" hook stop`, "/self/ps", "stop", true},
		{`/elsewhere/ps hook stop`, "", "", false},
		{`"/unterminated/plansmith hook stop`, "", "", false},
		{`PLANSMITH_INSTALL=settings "/a b/plansmith" hook stop`, "/a b/plansmith", "stop", true},
		{`PLANSMITH_INSTALL=settings GOMAXPROCS=1 exec "/a b/plansmith" hook pretooluse-loop`, "/a b/plansmith", "pretooluse-loop", true},
		{`exec /usr/bin/plansmith hook stop`, "/usr/bin/plansmith", "stop", true},
		{`exec  rm hook stop`, "", "", false},
		{`A=1 B_2=x /usr/bin/plansmith hook stop`, "/usr/bin/plansmith", "stop", true},
		{`A="x y" /usr/bin/plansmith hook stop`, "", "", false},
		{`n="${CLAUDE_PLUGIN_ROOT}/bin/native/plansmith"; exec "$n" hook stop`, "", "", false},
		{``, "", "", false},
		// The fail-closed form, new with the review Y fixes: plansmith's
		// whatever the binary is called (review Y, C3).
		{SettingsCommand("/opt/plansmith-0.1", "stop"), "/opt/plansmith-0.1", "stop", true},
		{SettingsCommand("/opt/plansmith/bin/plansmith", "pretooluse-loop"), "/opt/plansmith/bin/plansmith", "pretooluse-loop", true},
		{FailClosed("stop", StateTest) + `exec "/opt/other" status; x`, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			b, e, ok := ParseCommand(tt.cmd, "/self/ps")
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.bin, b)
			assert.Equal(t, tt.event, e)
		})
	}
}

// TestSettingsCommandRoundTrips: what install registers, doctor and
// uninstall recognise, for every event hooks/hooks.json runs.
func TestSettingsCommandRoundTrips(t *testing.T) {
	for _, ev := range []string{"stop", "pretooluse", "posttooluse", "userpromptsubmit"} {
		b, e, ok := ParseCommand(SettingsCommand("/with space/plansmith", ev), "")
		require.True(t, ok, ev)
		assert.Equal(t, "/with space/plansmith", b)
		assert.Equal(t, ev, e)
	}
}

func TestPluginHookEvent(t *testing.T) {
	data, err := fs.ReadFile(plansmith.Plugin, "hooks/hooks.json")
	require.NoError(t, err)
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	seen := map[string]bool{}
	for _, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				ev, ok := pluginHookEvent(h.Command)
				require.True(t, ok, h.Command)
				seen[ev] = true
			}
		}
	}
	assert.Len(t, seen, 9)
	_, ok := pluginHookEvent(`"${CLAUDE_PLUGIN_ROOT}/bin/other" hook stop`)
	assert.False(t, ok)
	_, ok = pluginHookEvent(`"${CLAUDE_PLUGIN_ROOT}/bin/plansmith" hook "$x"`)
	assert.False(t, ok)
}

func TestQuoteRoundTrips(t *testing.T) {
	for _, p := range []string{"/plain/plansmith", "/with space/plansmith", `/we"ird/$HOME/` + "`x`" + `\/plansmith`} {
		b, _, ok := ParseCommand(Quote(p)+" hook stop", "")
		require.True(t, ok, p)
		assert.Equal(t, p, b)
	}
}

func FuzzMerge(f *testing.F) {
	for _, s := range []string{"", "{}", `{"hooks":{"Stop":[{"hooks":[{"command":"plansmith hook stop"}]}]}}`, `{"a":[1,{"b":null}]}`, `[`, `{"hooks":{"Stop":"x"}}`} {
		f.Add(s)
	}
	h, err := PluginHooks(bin)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := Merge([]byte(in), h)
		if err != nil {
			return
		}
		require.True(t, json.Valid(out))
		again, changed, err := Merge(out, h)
		require.NoError(t, err)
		require.False(t, changed)
		require.Equal(t, out, again)
		removed, _, err := Remove(out, bin)
		require.NoError(t, err)
		regs, err := Find(removed, bin)
		require.NoError(t, err)
		require.Empty(t, regs)
	})
}

// A duplicate key plansmith does not edit is the user's business (review
// AA8: a second "model" stood in the way of uninstall).
func TestADuplicateKeyElsewhereIsLeftAlone(t *testing.T) {
	in := `{"model": "opus", "model": "sonnet"}`
	out, changed, err := Merge([]byte(in), hooksFor(t, bin))
	require.NoError(t, err)
	assert.True(t, changed)
	_, changed, err = Remove(out, bin)
	require.NoError(t, err)
	assert.True(t, changed)
}
