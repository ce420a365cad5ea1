package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/templates"
)

func TestSplitPlanArgs(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		prompt []string
		check  func(t *testing.T, o *PlanOptions)
		err    string
	}{
		{name: "plain words", args: []string{"Add", "auth"}, prompt: []string{"Add", "auth"}},
		{name: "flags before", args: []string{"--refine-iterations", "3", "Add"}, prompt: []string{"Add"},
			check: func(t *testing.T, o *PlanOptions) { assert.Equal(t, 3, o.RefineIterations) }},
		{name: "flags after", args: []string{"Add", "auth", "--no-gate"}, prompt: []string{"Add", "auth"},
			check: func(t *testing.T, o *PlanOptions) { assert.True(t, o.NoGate) }},
		{name: "equals form", args: []string{"--max-retries=5", "x"}, prompt: []string{"x"},
			check: func(t *testing.T, o *PlanOptions) { assert.Equal(t, 5, o.MaxRetries) }},
		{name: "triple dash is text", args: []string{"a", "---", "b"}, prompt: []string{"a", "---", "b"}},
		{name: "lone dash is text", args: []string{"a", "-", "b"}, prompt: []string{"a", "-", "b"}},
		{name: "short-looking word is text", args: []string{"use", "-v", "mode"}, prompt: []string{"use", "-v", "mode"}},
		{name: "double dash ends flags", args: []string{"--no-gate", "--", "--verbose", "flag"}, prompt: []string{"--verbose", "flag"}},
		{name: "alias max-iterations", args: []string{"--max-iterations", "4", "x"}, prompt: []string{"x"},
			check: func(t *testing.T, o *PlanOptions) { assert.Equal(t, 4, o.MaxPhases) }},
		{name: "negative number value", args: []string{"--max-phases", "-1", "x"}, prompt: []string{"x"},
			check: func(t *testing.T, o *PlanOptions) { assert.Equal(t, -1, o.MaxPhases) }},
		{name: "unknown flag", args: []string{"--verbose", "x"}, err: "unknown flag --verbose"},
		{name: "missing value", args: []string{"x", "--phases"}, err: "--phases needs a value"},
		{name: "not a number", args: []string{"--gate-retries", "two"}, err: `--gate-retries needs a whole number (got "two")`},
		{name: "bad bool", args: []string{"--no-gate=maybe"}, err: "--no-gate takes no value or true/false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := &PlanOptions{}
			prompt, help, err := splitPlanArgs(planFlags(o), c.args)
			assert.False(t, help)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				var ue *usageError
				assert.True(t, errors.As(err, &ue), "a usage error, so exit status 2")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.prompt, prompt)
			if c.check != nil {
				c.check(t, o)
			}
		})
	}
}

func TestPlanOptionsValidate(t *testing.T) {
	valid := func() *PlanOptions {
		o := &PlanOptions{}
		planFlags(o) // sets defaults
		o.Prompt = []string{"Add", "auth"}
		return o
	}
	cases := []struct {
		name   string
		modify func(o *PlanOptions)
		err    string
	}{
		{"defaults are valid", func(o *PlanOptions) {}, ""},
		{"refine 0", func(o *PlanOptions) { o.RefineIterations = 0 }, "--refine-iterations must be from 1 to 4 (got 0)"},
		{"refine 5", func(o *PlanOptions) { o.RefineIterations = 5 }, "--refine-iterations must be from 1 to 4 (got 5)"},
		{"refine 4", func(o *PlanOptions) { o.RefineIterations = 4 }, ""},
		{"max phases negative", func(o *PlanOptions) { o.MaxPhases = -2 }, "--max-phases must be 0 (unlimited) or more (got -2)"},
		{"gate retries 11", func(o *PlanOptions) { o.GateRetries = 11 }, "--gate-retries must be from 1 to 10"},
		{"max retries negative", func(o *PlanOptions) { o.MaxRetries = -1 }, "--max-retries must be from 0 to 20"},
		{"empty promise", func(o *PlanOptions) { o.CompletionPromise = "  " }, "--completion-promise must not be empty"},
		{"promise with tag", func(o *PlanOptions) { o.CompletionPromise = "a<b" }, "must not contain < or >"},
		{"promise with quotes is fine", func(o *PlanOptions) { o.CompletionPromise = `say "ok"` }, ""},
		{"empty sections", func(o *PlanOptions) { o.RequiredSections = " , ," }, "--required-sections must name at least one section"},
		{"empty phases", func(o *PlanOptions) { o.Phases = "," }, "--phases must name at least one phase"},
		{"empty prompt", func(o *PlanOptions) { o.Prompt = nil }, "a request is required"},
		{"blank prompt", func(o *PlanOptions) { o.Prompt = []string{" ", ""} }, "a request is required"},
		{"invalid UTF-8 request", func(o *PlanOptions) { o.Prompt = []string{"add \xff caching"} }, "plan: the request is not valid UTF-8 text"},
		{"invalid UTF-8 sections", func(o *PlanOptions) { o.RequiredSections = "Goal,\xfe" }, "plan: --required-sections is not valid UTF-8 text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := valid()
			c.modify(o)
			err := o.validate()
			if c.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.err)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestRunExitStatuses(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }, Now: time.Now}
	assert.Equal(t, 2, run([]string{"plan", "--refine-iterations", "9", "x"}, env))
	assert.Equal(t, 2, run([]string{"nonsense"}, env))
	assert.Equal(t, 2, run([]string{"status", "--bogus"}, env))
	assert.Equal(t, 2, run([]string{"status", "extra"}, env), "an argument a command does not take")
	assert.Equal(t, 2, run([]string{"gate", "nonsense"}, env), "an unknown subcommand")
	assert.Equal(t, 2, run([]string{"gate", "check-findings", "a", "b"}, env), "too many arguments")
	assert.Equal(t, 0, run(nil, env), "no command prints the help")
	assert.Equal(t, 0, run([]string{"plan", "x"}, env))
	assert.Equal(t, 1, run([]string{"plan", "y"}, env), "refused while a loop is active")
	assert.Equal(t, 0, run([]string{"cancel"}, env))
}

// A request too long for the state file's frontmatter to be read back is a
// bad value: refused with exit status 2 and no state file, not a loop that
// its first Stop finds corrupt and ends (review CI2).
func TestPlanRefusesARequestTooLongToKeep(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }, Now: time.Now}
	assert.Equal(t, 2, run([]string{"plan", strings.Repeat("a", 1100<<10)}, env))
	assert.Contains(t, stderr.String(), "the request is too long to keep in the loop's state file")
	assert.NoFileExists(t, filepath.Join(dir, ".claude", "plansmith.local.md"))
	assert.Equal(t, 0, run([]string{"plan", strings.Repeat("a", 900<<10)}, env), "a long request that fits starts")
}

// A Codex thread with no record starts no loop, and the message names the
// command to run in a terminal as this install spells it (review FA: it
// said "plansmith plan", another program where plansmith on PATH is not
// this binary).
func TestPlanInAThreadWithNoRecordNamesTheCommandAsItRuns(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	vars := map[string]string{"CODEX_THREAD_ID": "0199ffff-bbbb-7ccc-8ddd-eeeeeeeeeeee", "CODEX_HOME": t.TempDir()}
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return dir, nil }, Now: time.Now}
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	templates.SetNames(func() templates.Names {
		return templates.Names{Kind: templates.KindCodex, CLI: `"/opt/tools/plansmith"`}
	})
	_, err := planPaths(env, "codex")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `run "/opt/tools/plansmith" plan --agent codex in a terminal`)
}
