// Package e2e drives the real Claude Code CLI against a scripted model
// (package modelserver) with a plugin loaded, to prove the plugin's hooks
// and commands behave as designed inside the real client.
//
// Tests skip unless the pinned CLI is installed in the repository's cache
// (e2e/install-claude.sh), or PLANSMITH_E2E=1 asks them to install it; with
// PLANSMITH_E2E=1 they skip only when the npm registry is unreachable.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/plansmith/plansmith/e2e/modelserver"
)

// RunTimeout bounds one CLI run; the context kills the process after it.
const RunTimeout = 120 * time.Second

// installUnreachable is install-claude.sh's exit status when the npm
// registry cannot be reached.
const installUnreachable = 3

// RepoRoot returns the repository root: the nearest directory at or above
// the working directory that holds go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding repo root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("finding repo root: no go.mod above the working directory")
		}
		dir = parent
	}
}

func mustRepoRoot(t testing.TB) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// npmDependency is something the end-to-end tests need from the npm
// registry, installed into .cache/ by a script under e2e/. It is looked up
// (or installed) once per test process.
type npmDependency struct {
	what    string // for messages, e.g. "Claude Code CLI"
	script  string // the installer under e2e/; it prints the path on stdout
	present string // relative to the repository: exists once installed
	result  string // relative to the repository: the path returned when present

	once       sync.Once
	path, skip string
	err        error
}

var (
	claudeCLI = &npmDependency{what: "Claude Code CLI", script: "install-claude.sh",
		present: ".cache/claude-code/node_modules/.bin/claude", result: ".cache/claude-code/node_modules/.bin/claude"}
	hookTypes = &npmDependency{what: "hook type definitions", script: "install-hook-types.sh",
		present: ".cache/hook-types/installed", result: ".cache/hook-types"}
)

// get returns the dependency's path, installing it when PLANSMITH_E2E=1. It
// skips the test when it is absent and installing was not asked for, or
// when the npm registry is unreachable.
func (d *npmDependency) get(t testing.TB) string {
	t.Helper()
	d.once.Do(func() { d.path, d.skip, d.err = d.find() })
	if d.err != nil {
		t.Fatal(d.err)
	}
	if d.skip != "" {
		t.Skip(d.skip)
	}
	return d.path
}

func (d *npmDependency) find() (path, skip string, err error) {
	root, err := RepoRoot()
	if err != nil {
		return "", "", err
	}
	if os.Getenv("PLANSMITH_E2E") != "1" {
		if _, err := os.Stat(filepath.Join(root, d.present)); err != nil {
			return "", fmt.Sprintf("%s not installed: run e2e/%s or set PLANSMITH_E2E=1", d.what, d.script), nil
		}
		return filepath.Join(root, d.result), "", nil
	}
	script := filepath.Join(root, "e2e", d.script)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == installUnreachable:
		return "", fmt.Sprintf("npm registry unreachable, cannot install the %s: %s", d.what, strings.TrimSpace(stderr.String())), nil
	case err != nil:
		return "", "", fmt.Errorf("running %s: %w\n%s", script, err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), "", nil
}

// Claude returns the path of the pinned Claude Code CLI (see npmDependency).
func Claude(t testing.TB) string { return claudeCLI.get(t) }

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// BuildPlansmith builds ./cmd/plansmith once per test process into the
// repository's cache (.cache/e2e/plansmith) and returns the binary's path.
func BuildPlansmith(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		out := filepath.Join(root, ".cache", "e2e", "plansmith")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/plansmith")
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/plansmith: %w\n%s", err, b)
			return
		}
		buildPath = out
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Env is one end-to-end setting: a scripted model, a fresh project folder
// and HOME, and the plugin folder the CLI loads.
type Env struct {
	T testing.TB
	// Claude is the CLI's path.
	Claude string
	// PluginDir is passed as --plugin-dir (the repository root by default).
	PluginDir string
	// Project is the CLI's working directory, an empty temp folder.
	Project string
	// Home is HOME for the CLI, an empty temp folder.
	Home string
	// Model answers the CLI's API requests.
	Model *modelserver.Server
	// ExtraEnv is appended to the CLI's environment (KEY=VALUE).
	ExtraEnv []string
	// PermissionMode is passed as --permission-mode (bypassPermissions by default).
	PermissionMode string

	last *Result
}

// NewEnv makes an Env whose model answers with script, loading the plugin at
// the repository root. It skips the test when the CLI is unavailable (see
// Claude). Everything is cleaned up when the test ends; on failure the last
// run's output and the model's requests are logged.
func NewEnv(t testing.TB, script ...modelserver.Reply) *Env {
	t.Helper()
	e := &Env{
		T:              t,
		Claude:         Claude(t),
		PluginDir:      mustRepoRoot(t),
		Project:        realTempDir(t),
		Home:           realTempDir(t),
		Model:          modelserver.New(script...),
		PermissionMode: "bypassPermissions",
	}
	t.Cleanup(func() {
		e.Model.Close()
		if t.Failed() {
			e.dump()
		}
	})
	return e
}

// realTempDir is t.TempDir with symlinks resolved, so paths compare equal
// to the cwd the CLI reports (macOS puts temp folders behind /var → /private/var).
func realTempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Result is the CLI's --output-format json summary of one run, plus its
// raw streams.
type Result struct {
	Type              string             `json:"type"`
	Subtype           string             `json:"subtype"`
	IsError           bool               `json:"is_error"`
	NumTurns          int                `json:"num_turns"`
	Result            string             `json:"result"`
	SessionID         string             `json:"session_id"`
	DurationMS        int                `json:"duration_ms"`
	PermissionDenials []PermissionDenial `json:"permission_denials"`

	// ExitCode is the CLI's exit status.
	ExitCode int `json:"-"`
	// Elapsed is the wall time of the run, as seen by the harness.
	Elapsed time.Duration `json:"-"`
	// Stdout and Stderr are the raw streams.
	Stdout, Stderr string `json:"-"`
}

// PermissionDenial is a tool call the client refused.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Run runs `claude -p prompt` in the project with the plugin loaded and
// returns its parsed result. args are extra CLI arguments. The test fails
// if the CLI times out or its output is not a result object; a non-zero
// exit with a result is returned for the test to judge.
func (e *Env) Run(prompt string, args ...string) *Result {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	argv := []string{"-p", prompt,
		"--plugin-dir", e.PluginDir,
		"--output-format", "json",
		"--permission-mode", e.PermissionMode,
	}
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, e.Claude, argv...)
	cmd.Dir = e.Project
	cmd.Env = e.environ()
	// Hooks may leave children holding the pipes; do not wait on them forever.
	cmd.WaitDelay = 5 * time.Second
	// The CLI gets a process group of its own, and the whole group goes when
	// the run ends or times out: hooks, shells and sub-processes it started
	// never outlive the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := &Result{Elapsed: time.Since(start), Stdout: stdout.String(), Stderr: stderr.String()}
	e.last = res
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		e.T.Fatalf("claude -p %q: no result within %s", prompt, RunTimeout)
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		e.T.Fatalf("claude -p %q: %v", prompt, err)
	}
	if err := json.Unmarshal(lastJSONLine(stdout.Bytes()), res); err != nil {
		e.T.Fatalf("claude -p %q: reading result JSON: %v (exit %d)\nstdout:\n%s\nstderr:\n%s",
			prompt, err, res.ExitCode, res.Stdout, res.Stderr)
	}
	return res
}

// Resume continues session with a new prompt (`--resume SESSION`).
func (e *Env) Resume(session, prompt string, args ...string) *Result {
	e.T.Helper()
	return e.Run(prompt, append([]string{"--resume", session}, args...)...)
}

// ProjectFile reads a file under the project folder; "" when absent.
func (e *Env) ProjectFile(rel string) string {
	b, err := os.ReadFile(filepath.Join(e.Project, rel))
	if err != nil {
		return ""
	}
	return string(b)
}

// WriteProjectFile writes a file under the project folder, making parents.
func (e *Env) WriteProjectFile(rel, content string) {
	e.T.Helper()
	p := filepath.Join(e.Project, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// environ is the CLI's environment: ours minus whatever a surrounding
// Claude Code session or user config would leak in, plus the settings that
// point it at the scripted model and keep it offline.
func (e *Env) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CLAUDE") || strings.HasPrefix(k, "ANTHROPIC_") ||
			strings.HasPrefix(k, "DISABLE_") || k == "HOME" || k == "IS_SANDBOX" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+e.Home,
		"ANTHROPIC_BASE_URL="+e.Model.URL,
		"ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		// The CLI refuses bypassPermissions as root unless told it is sandboxed.
		"IS_SANDBOX=1",
	)
	return append(env, e.ExtraEnv...)
}

// lastJSONLine picks the result object out of stdout: the last line that
// looks like a JSON object (the CLI prints one, but be lenient).
func lastJSONLine(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := bytes.TrimSpace(lines[i]); len(l) > 0 && l[0] == '{' {
			return l
		}
	}
	return bytes.TrimSpace(b)
}

// dump logs what helps diagnose a failed scenario.
func (e *Env) dump() {
	if e.last != nil {
		e.T.Logf("last run: exit %d in %s\nstdout:\n%s\nstderr:\n%s", e.last.ExitCode, e.last.Elapsed, e.last.Stdout, e.last.Stderr)
	}
	for _, r := range e.Model.Requests() {
		results := ""
		for _, tr := range r.ToolResults {
			results += fmt.Sprintf("\n    tool_result %s (%s) is_error=%v: %.300s", tr.ToolUseID, tr.ToolName, tr.IsError, tr.Content)
		}
		e.T.Logf("request %d (overrun=%v, %d messages): last user text: %.500q%s", r.Index, r.Overrun, r.Messages, r.LastUserText, results)
	}
	if u := e.Model.Unhandled(); len(u) > 0 {
		e.T.Logf("unhandled API paths: %v", u)
	}
}
