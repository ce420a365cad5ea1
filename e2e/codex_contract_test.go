package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCodexHookOutputsMatchCodexSchemas checks what plansmith's Codex hooks
// print against the JSON schemas of hook outputs embedded in the installed
// Codex binary (read from it at test time, never copied into the
// repository), plus the rules Codex enforces beyond them (docs/codex.md): a
// deny carries a reason, allow and ask are never said, a block has a reason.
func TestCodexHookOutputsMatchCodexSchemas(t *testing.T) {
	t.Parallel()
	native := codexNative(t)
	schemas, err := embeddedSchemas(native, "stop.command.output", "pre-tool-use.command.output", "user-prompt-submit.command.output", "session-start.command.output")
	require.NoError(t, err)
	for title, sc := range schemas {
		m, _ := sc.(map[string]any)
		require.Contains(t, m, "properties", "%s is a schema with properties", title)
	}
	// The checker refuses what Codex refuses, so a pass means something.
	for title, bad := range map[string]string{
		"stop.command.output":               `{"decision":"approve","reason":"x"}`,
		"pre-tool-use.command.output":       `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","bogus":1}}`,
		"user-prompt-submit.command.output": `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"x"}}`,
		"session-start.command.output":      `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"x"}}`,
	} {
		var v any
		require.NoError(t, json.Unmarshal([]byte(bad), &v))
		c := &schemaChecker{root: schemas[title]}
		assert.NotEmpty(t, c.check(v, schemas[title], "$"), "%s should refuse %s", title, bad)
	}

	bin := BuildPlansmith(t)
	dir := realTempDir(t)
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = io.Discard
		require.NoError(t, cmd.Run(), "plansmith %v", args)
		return out.String()
	}
	input := func(event string, extra string) string {
		return fmt.Sprintf(`{"session_id":"thread-1","turn_id":"t","transcript_path":null,"cwd":%q,"hook_event_name":%q,"model":"gpt-5.5","permission_mode":"bypassPermissions"%s}`, dir, event, extra)
	}
	run("", "plan", "--agent", "codex", "--max-retries", "1", "--", request)

	outputs := map[string][]string{}
	outputs["pre-tool-use.command.output"] = append(outputs["pre-tool-use.command.output"],
		run(input("PreToolUse", `,"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"},"tool_use_id":"c1"`), "hook", "pretooluse", "--agent", "codex"),
		run(input("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_use_id":"c2"`), "hook", "pretooluse", "--agent", "codex"))
	outputs["user-prompt-submit.command.output"] = append(outputs["user-prompt-submit.command.output"],
		run(input("UserPromptSubmit", `,"prompt":"go on"`), "hook", "userpromptsubmit", "--agent", "codex"))
	// The planning thread resumed gets its phase back; another thread is
	// told of the loop (review DA2).
	other := strings.Replace(input("SessionStart", `,"source":"startup"`), `"thread-1"`, `"thread-2"`, 1)
	outputs["session-start.command.output"] = append(outputs["session-start.command.output"],
		run(input("SessionStart", `,"source":"resume"`), "hook", "sessionstart", "--agent", "codex"),
		run(other, "hook", "sessionstart", "--agent", "codex"))
	// A failed answer blocks; with --max-retries 1 the next failure ends the
	// loop with a message for the user.
	outputs["stop.command.output"] = append(outputs["stop.command.output"],
		run(input("Stop", `,"stop_hook_active":false,"last_assistant_message":null`), "hook", "stop", "--agent", "codex"),
		run(input("Stop", `,"stop_hook_active":true,"last_assistant_message":"no idea"`), "hook", "stop", "--agent", "codex"))

	for title, outs := range outputs {
		for i, out := range outs {
			require.NotEmpty(t, strings.TrimSpace(out), "%s %d: plansmith said nothing", title, i)
			var v any
			require.NoError(t, json.Unmarshal([]byte(out), &v), out)
			s := &schemaChecker{root: schemas[title]}
			assert.Empty(t, s.check(v, schemas[title], "$"), "%s %d: %s", title, i, out)
			m := v.(map[string]any)
			if hso, ok := m["hookSpecificOutput"].(map[string]any); ok {
				if d, ok := hso["permissionDecision"]; ok {
					assert.Equal(t, "deny", d, out)
					assert.NotEmpty(t, strings.TrimSpace(fmt.Sprint(hso["permissionDecisionReason"])), out)
				}
			}
			if m["decision"] == "block" {
				assert.NotEmpty(t, strings.TrimSpace(fmt.Sprint(m["reason"])), out)
			}
		}
	}
	starts := outputs["session-start.command.output"]
	assert.Contains(t, starts[0], `"additionalContext":"plansmith: this session is in a planning loop`)
	assert.Contains(t, starts[1], `"systemMessage":"plansmith: a planning loop another session started is active`)
	stops := outputs["stop.command.output"]
	assert.Contains(t, stops[0], `"decision":"block"`)
	assert.Contains(t, stops[1], `"systemMessage"`, "the loop ended")
	assert.NotContains(t, stops[1], `"decision"`)
}

// codexNative finds the native binary the npm launcher runs.
func codexNative(t *testing.T) string {
	t.Helper()
	launcher := Codex(t)
	modules := filepath.Dir(filepath.Dir(launcher)) // …/node_modules
	found, err := filepath.Glob(filepath.Join(modules, "@openai", "codex-*", "vendor", "*", "bin", "codex"))
	require.NoError(t, err)
	require.NotEmpty(t, found, "no native Codex binary under %s", modules)
	return found[0]
}

// embeddedSchemas reads the JSON schemas Codex embeds as "<title>{…}" from
// its binary, streaming it (it is hundreds of MB).
func embeddedSchemas(path string, titles ...string) (map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	out := map[string]any{}
	for _, title := range titles {
		marker := []byte(title + "{")
		off, err := findInFile(f, marker)
		if err != nil {
			return nil, fmt.Errorf("schema %s in %s: %w", title, path, err)
		}
		dec := json.NewDecoder(io.NewSectionReader(f, off+int64(len(marker))-1, 1<<20))
		var schema any
		if err := dec.Decode(&schema); err != nil {
			return nil, fmt.Errorf("schema %s in %s: %w", title, path, err)
		}
		out[title] = schema
	}
	return out, nil
}

func findInFile(f *os.File, marker []byte) (int64, error) {
	const chunk = 8 << 20
	buf := make([]byte, chunk+len(marker))
	var base int64
	carry := 0
	for {
		n, err := f.ReadAt(buf[carry:], base+int64(carry))
		if n > 0 {
			if i := bytes.Index(buf[:carry+n], marker); i >= 0 {
				return base + int64(i), nil
			}
		}
		if err == io.EOF || n == 0 {
			return 0, fmt.Errorf("%q not found", marker)
		}
		if err != nil {
			return 0, err
		}
		keep := len(marker) - 1
		total := carry + n
		copy(buf, buf[total-keep:total])
		base += int64(total - keep)
		carry = keep
	}
}

// schemaChecker validates a decoded JSON value against the draft-07 subset
// Codex's hook schemas use: type, const, enum, properties, required,
// additionalProperties false, allOf and local $ref.
type schemaChecker struct{ root any }

func (c *schemaChecker) check(v, schema any, at string) []string {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil // true: anything goes
	}
	if ref, ok := s["$ref"].(string); ok {
		return c.check(v, c.resolve(ref), at)
	}
	var errs []string
	for _, sub := range list(s["allOf"]) {
		errs = append(errs, c.check(v, sub, at)...)
	}
	if want, ok := s["const"]; ok && fmt.Sprint(want) != fmt.Sprint(v) {
		errs = append(errs, fmt.Sprintf("%s: %v, want const %v", at, v, want))
	}
	if enum := list(s["enum"]); enum != nil && !containsValue(enum, v) {
		errs = append(errs, fmt.Sprintf("%s: %v not in %v", at, v, enum))
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		errs = append(errs, fmt.Sprintf("%s: %T, want type %v", at, v, t))
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		return errs
	}
	props, _ := s["properties"].(map[string]any)
	for _, r := range list(s["required"]) {
		if _, ok := obj[fmt.Sprint(r)]; !ok {
			errs = append(errs, fmt.Sprintf("%s: missing required %v", at, r))
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, known := props[k]
		if !known {
			if s["additionalProperties"] == false {
				errs = append(errs, fmt.Sprintf("%s: unknown field %q", at, k))
			}
			continue
		}
		errs = append(errs, c.check(obj[k], p, at+"."+k)...)
	}
	return errs
}

func (c *schemaChecker) resolve(ref string) any {
	var cur any = c.root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := cur.(map[string]any)
		cur = m[part]
	}
	return cur
}

func list(v any) []any { l, _ := v.([]any); return l }

func containsValue(l []any, v any) bool {
	for _, x := range l {
		if fmt.Sprint(x) == fmt.Sprint(v) {
			return true
		}
	}
	return false
}

func typeMatches(t, v any) bool {
	for _, name := range append(list(t), t) {
		switch name {
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "null":
			if v == nil {
				return true
			}
		}
	}
	return false
}
