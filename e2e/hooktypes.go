package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// HookTypes returns the folder holding the type definitions of the Agent
// SDK released with Claude Code version, and tsc
// (e2e/install-hook-types.sh); see npmDependency.
func HookTypes(t testing.TB, version string) string { return hookTypesFor(version).get(t) }

// tscError matches one diagnostic of `tsc --pretty false`.
var tscError = regexp.MustCompile(`^(out\d+)\.ts\(\d+,\d+\): (error TS\d+: .*)$`)

// CheckHookOutputs type-checks each JSON document in outputs (by name)
// against the Agent SDK's SyncHookJSONOutput, as an object literal so that
// unknown keys fail, in a single tsc run inside typesDir (see HookTypes).
// It returns the compiler's complaints per name; a name that passes is
// absent. The error is for failures of the check itself.
func CheckHookOutputs(typesDir string, outputs map[string][]byte) (map[string][]string, error) {
	problems := map[string][]string{}
	if len(outputs) == 0 {
		return problems, nil
	}
	// The generated files live inside typesDir so the SDK resolves from its node_modules.
	gen, err := os.MkdirTemp(typesDir, "check-")
	if err != nil {
		return nil, fmt.Errorf("making check folder in %s: %w", typesDir, err)
	}
	defer os.RemoveAll(gen)

	names := make([]string, 0, len(outputs))
	for name := range outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	byFile := map[string]string{}
	for i, name := range names {
		doc := bytes.TrimSpace(outputs[name])
		if !json.Valid(doc) || len(doc) == 0 || doc[0] != '{' {
			problems[name] = append(problems[name], "not a JSON object")
			continue
		}
		file := fmt.Sprintf("out%d", i)
		byFile[file] = name
		src := "import type { SyncHookJSONOutput } from \"@anthropic-ai/claude-agent-sdk\";\n" +
			"export const output: SyncHookJSONOutput = " + string(doc) + ";\n"
		if err := os.WriteFile(filepath.Join(gen, file+".ts"), []byte(src), 0o644); err != nil {
			return nil, fmt.Errorf("writing check file for %s: %w", name, err)
		}
	}
	if len(byFile) == 0 {
		return problems, nil
	}
	config := `{"compilerOptions":{"strict":true,"noEmit":true,"skipLibCheck":true,` +
		`"module":"nodenext","moduleResolution":"nodenext","target":"es2022","types":[]},"include":["*.ts"]}`
	if err := os.WriteFile(filepath.Join(gen, "tsconfig.json"), []byte(config), 0o644); err != nil {
		return nil, fmt.Errorf("writing tsconfig.json in %s: %w", gen, err)
	}

	cmd := exec.Command(filepath.Join(typesDir, "node_modules", ".bin", "tsc"), "-p", "tsconfig.json", "--pretty", "false")
	cmd.Dir = gen
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("running tsc: %w", err)
	}
	var unmatched []string
	last := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		// Indented lines elaborate the diagnostic above them.
		if (line[0] == ' ' || line[0] == '\t') && last != "" {
			p := problems[last]
			p[len(p)-1] += " " + strings.TrimSpace(line)
			continue
		}
		m := tscError.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || byFile[m[1]] == "" {
			unmatched = append(unmatched, line)
			last = ""
			continue
		}
		last = byFile[m[1]]
		problems[last] = append(problems[last], m[2])
	}
	// Anything tsc said about something else (config, the SDK itself) means
	// the check did not run as intended.
	if len(unmatched) > 0 {
		return nil, fmt.Errorf("tsc: unexpected output:\n%s", strings.Join(unmatched, "\n"))
	}
	if err != nil && len(problems) == 0 {
		return nil, fmt.Errorf("tsc failed without diagnostics: %w\n%s", err, out)
	}
	return problems, nil
}

// hookEvents maps the lower-cased event names that prefix hook-output file
// names to the event name Claude Code uses.
var hookEvents = map[string]string{
	"stop":             "Stop",
	"subagentstop":     "SubagentStop",
	"pretooluse":       "PreToolUse",
	"posttooluse":      "PostToolUse",
	"userpromptsubmit": "UserPromptSubmit",
	"sessionstart":     "SessionStart",
	"stopfailure":      "StopFailure",
}

// EventMismatch checks what the type alone cannot: that an output named
// "<event>-<case>.json" carries hookSpecificOutput (if any) for that event.
// It returns "" when the output is consistent or its name names no event.
func EventMismatch(name string, output []byte) string {
	prefix, _, _ := strings.Cut(strings.ToLower(filepath.Base(name)), "-")
	want, ok := hookEvents[strings.TrimSuffix(prefix, ".json")]
	if !ok {
		return ""
	}
	var doc struct {
		HookSpecificOutput *struct {
			HookEventName string `json:"hookEventName"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(output, &doc); err != nil {
		return "not a JSON object: " + err.Error()
	}
	if doc.HookSpecificOutput != nil && doc.HookSpecificOutput.HookEventName != want {
		return fmt.Sprintf("hookSpecificOutput.hookEventName is %q in a %s output", doc.HookSpecificOutput.HookEventName, want)
	}
	return ""
}
