// Package e2e drives the real Claude Code CLI against a scripted model
// (package modelserver) with a plugin loaded, to prove the plugin's hooks
// and commands behave as designed inside the real client.
//
// Every scenario runs once per Claude Code version in claude-code-versions
// (EachCLI): the pinned CLI and the newest. Tests skip unless the CLIs are
// installed in the repository's cache (.ci/e2e-deps), or PLANSMITH_E2E=1
// asks them to install them; with PLANSMITH_E2E=1 they skip only when the
// npm registry is unreachable.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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
	what    string   // for messages, e.g. "Claude Code CLI 2.1.197"
	script  string   // the installer under e2e/; it prints the path on stdout
	env     []string // KEY=VALUE for the installer
	present string   // relative to the repository: exists once installed
	result  string   // relative to the repository: the path returned when present

	once       sync.Once
	path, skip string
	err        error
}

// versionsFile names the Claude Code versions the tests run against.
const versionsFile = "e2e/claude-code-versions"

// CLIVersions returns the Claude Code versions every end-to-end scenario
// runs against, the pinned one first, from e2e/claude-code-versions.
func CLIVersions() ([]string, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, versionsFile))
	if err != nil {
		return nil, fmt.Errorf("reading the tested Claude Code versions: %w", err)
	}
	return parseVersions(string(b))
}

// parseVersions reads CLAUDE_CODE_PINNED and CLAUDE_CODE_NEWEST from the
// KEY=VALUE lines of the versions file; the newest is left out when it is
// the pinned one.
func parseVersions(text string) ([]string, error) {
	vars := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s: line %q is not KEY=VALUE", versionsFile, line)
		}
		vars[k] = strings.Trim(v, `"'`)
	}
	var out []string
	for _, k := range []string{"CLAUDE_CODE_PINNED", "CLAUDE_CODE_NEWEST"} {
		v := vars[k]
		if !versionRe.MatchString(v) {
			return nil, fmt.Errorf("%s: %s is %q, want a version such as 2.1.197", versionsFile, k, v)
		}
		if len(out) == 0 || out[0] != v {
			out = append(out, v)
		}
	}
	return out, nil
}

var versionRe = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// sdkVersion is the Agent SDK released with Claude Code cli: 0.3.<patch>
// for 2.1.<patch> (install-hook-types.sh checks the SDK's claudeCodeVersion).
func sdkVersion(cli string) string { return "0.3." + cli[strings.LastIndex(cli, ".")+1:] }

var (
	depsMu  sync.Mutex
	clis    = map[string]*npmDependency{}
	typeSet = map[string]*npmDependency{}
)

func claudeCLI(version string) *npmDependency {
	depsMu.Lock()
	defer depsMu.Unlock()
	if d := clis[version]; d != nil {
		return d
	}
	bin := ".cache/claude-code-" + version + "/node_modules/.bin/claude"
	d := &npmDependency{what: "Claude Code CLI " + version, script: "install-claude.sh",
		env: []string{"CLAUDE_CODE_VERSION=" + version}, present: bin, result: bin}
	clis[version] = d
	return d
}

func hookTypesFor(version string) *npmDependency {
	depsMu.Lock()
	defer depsMu.Unlock()
	if d := typeSet[version]; d != nil {
		return d
	}
	dir := ".cache/hook-types-" + sdkVersion(version)
	d := &npmDependency{what: "hook type definitions of Agent SDK " + sdkVersion(version), script: "install-hook-types.sh",
		env: []string{"CLAUDE_CODE_VERSION=" + version}, present: dir + "/installed", result: dir}
	typeSet[version] = d
	return d
}

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
			return "", fmt.Sprintf("%s not installed: run .ci/e2e-deps or set PLANSMITH_E2E=1", d.what), nil
		}
		return filepath.Join(root, d.result), "", nil
	}
	script := filepath.Join(root, "e2e", d.script)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), d.env...)
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

// Claude returns the path of Claude Code CLI version (see npmDependency).
func Claude(t testing.TB, version string) string { return claudeCLI(version).get(t) }

// Versions returns CLIVersions, failing the test when the file is wrong.
func Versions(t testing.TB) []string {
	t.Helper()
	vs, err := CLIVersions()
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// EachCLI runs scenario as a parallel subtest per tested Claude Code
// version, named "claude-<version>", so every scenario proves itself on the
// pinned CLI and on the newest.
func EachCLI(t *testing.T, scenario func(t *testing.T, cli string)) {
	t.Helper()
	for _, v := range Versions(t) {
		t.Run("claude-"+v, func(t *testing.T) {
			t.Parallel()
			scenario(t, v)
		})
	}
}

// EachCLIAtOnce runs scenario once per Claude Code version like EachCLI,
// but all versions at the same time within the calling test's own parallel
// slot, from the moment that test gets one. It is for a scenario that
// mostly waits (the interactive CLI in tmux): as parallel subtests its runs
// would queue behind every other test and finish last, adding their
// waiting to the suite's time; here the waiting overlaps the others' work.
func EachCLIAtOnce(t *testing.T, scenario func(t *testing.T, cli string)) {
	t.Helper()
	var wg sync.WaitGroup
	for _, v := range Versions(t) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run("claude-"+v, func(t *testing.T) { scenario(t, v) })
		}()
	}
	wg.Wait()
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// BuildPlansmith builds ./cmd/plansmith once per test process into the
// checkout's build/e2e/plansmith and returns the binary's path. Not into
// .cache/: worktrees share that folder, and a concurrent run elsewhere
// would swap the binary under this one's hooks.
func BuildPlansmith(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		out := filepath.Join(root, "build", "e2e", "plansmith")
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
	// Version is the CLI's version; Claude is its path.
	Version string
	Claude  string
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

// NewEnv makes an Env on Claude Code CLI version whose model answers with
// script, loading the plugin at the repository root. It skips the test when
// the CLI is unavailable (see Claude). Everything is cleaned up when the test ends; on failure the last
// run's output and the model's requests are logged.
func NewEnv(t testing.TB, version string, script ...modelserver.Reply) *Env {
	t.Helper()
	e := &Env{
		T:              t,
		Version:        version,
		Claude:         Claude(t, version),
		PluginDir:      mustRepoRoot(t),
		Project:        realTempDir(t),
		Home:           testHome(t),
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

// DenyPrefix is what the CLI puts before a PreToolUse hook's deny reason in
// the tool_result the model receives: nothing up to 2.1.197,
// "PreToolUse:<tool> hook error: " in 2.1.330.
func (e *Env) DenyPrefix(tool string) string {
	if versionLess(e.Version, "2.1.330") {
		return ""
	}
	return "PreToolUse:" + tool + " hook error: "
}

// versionLess compares dotted numeric versions.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// EmptyPlugin gives the CLI's --plugin-dir a plugin with nothing in it, so
// that plansmith comes only from what the test installs.
func (e *Env) EmptyPlugin() {
	e.T.Helper()
	e.PluginDir = realTempDir(e.T)
	if err := os.MkdirAll(filepath.Join(e.PluginDir, ".claude-plugin"), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.PluginDir, ".claude-plugin", "plugin.json"), []byte(`{"name": "empty"}`), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// Plansmith runs plansmith's binary bin with args in the project, with the
// test's HOME, as a user would in a terminal there.
func (e *Env) Plansmith(bin string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = e.Project
	cmd.Env = append(os.Environ(), "HOME="+e.Home, "CLAUDE_PROJECT_DIR="+e.Project, "PLANSMITH_BIN=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// testHome is a temporary folder to serve as HOME, with Go's telemetry
// off in it. plansmith doctor asks go for its version, and go then starts a
// telemetry process of its own, outside the run's process group, that goes
// on writing under $HOME/.config/go after the test: the folder's removal at
// the test's end failed with "directory not empty".
func testHome(t testing.TB) string {
	t.Helper()
	home := realTempDir(t)
	dir := filepath.Join(home, ".config", "go", "telemetry")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mode"), []byte("off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
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
	out := runCLI(e.T, ctx, "claude -p "+strconv.Quote(prompt), e.Claude, argv, e.Project, e.environ())
	res := &Result{Elapsed: out.elapsed, Stdout: out.stdout, Stderr: out.stderr, ExitCode: out.exitCode}
	e.last = res
	if err := json.Unmarshal(lastJSONLine([]byte(res.Stdout)), res); err != nil {
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

// finished is one CLI process that ran to its end: its output, exit status
// and how long it took.
type finished struct {
	stdout, stderr string
	exitCode       int
	elapsed        time.Duration
}

// runCLI runs bin with args in dir, with env, in a process group of its own
// that is killed whole when the run ends or ctx expires: hooks, shells and
// sub-processes it started never outlive the test. A timeout or a failure
// to start fails the test (what names the run); a non-zero exit is returned
// for the caller to judge.
func runCLI(t testing.TB, ctx context.Context, what, bin string, args []string, dir string, env []string) finished {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	// Hooks may leave children holding the pipes; do not wait on them forever.
	cmd.WaitDelay = 5 * time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	out := finished{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s: not finished within %s", what, RunTimeout)
	case errors.As(err, &exit):
		out.exitCode = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", what, err)
	}
	return out
}

// RunTurns runs one CLI process that receives prompts as consecutive user
// messages (`-p --input-format stream-json`), each sent only once the
// previous turn's result has come out, so the session's state (its working
// directory, say) carries from one turn to the next as in an interactive
// session. The output is stream-json with hook events (read them back with
// hookOutputs); each Result holds its turn's lines, its result object last.
func (e *Env) RunTurns(prompts []string, args ...string) []*Result {
	e.T.Helper()
	return e.RunTurnsThen(prompts, nil, args...)
}

// RunTurnsThen is RunTurns calling between(i, res) once turn i (from 0) has
// come out and before the next prompt is sent, so a test can look at the
// project and the model's requests between turns, as it would between two
// runs, without starting the CLI twice.
func (e *Env) RunTurnsThen(prompts []string, between func(turn int, res *Result), args ...string) []*Result {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	argv := append([]string{"-p",
		"--input-format", "stream-json",
		"--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--plugin-dir", e.PluginDir,
		"--permission-mode", e.PermissionMode,
	}, args...)
	what := fmt.Sprintf("claude -p --input-format stream-json (%d turns)", len(prompts))
	cmd := exec.CommandContext(ctx, e.Claude, argv...)
	cmd.Dir = e.Project
	cmd.Env = e.environ()
	cmd.WaitDelay = 5 * time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	send := func(prompt string) {
		msg, _ := json.Marshal(map[string]any{
			"type":    "user",
			"message": map[string]any{"role": "user", "content": prompt},
		})
		if _, err := stdin.Write(append(msg, '\n')); err != nil {
			e.T.Errorf("%s: sending %q: %v", what, prompt, err)
		}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		e.T.Fatalf("%s: %v", what, err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	send(prompts[0])
	var results []*Result
	var turn strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		turn.WriteString(line + "\n")
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(line), &head) != nil || head.Type != "result" {
			continue
		}
		res := &Result{Stdout: turn.String(), Elapsed: time.Since(start)}
		if err := json.Unmarshal([]byte(line), res); err != nil {
			e.T.Fatalf("%s: reading result JSON of turn %d: %v", what, len(results)+1, err)
		}
		results = append(results, res)
		e.last = res
		turn.Reset()
		if len(results) == len(prompts) {
			_ = stdin.Close()
			break
		}
		if between != nil {
			between(len(results)-1, res)
		}
		send(prompts[len(results)])
	}
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		e.T.Fatalf("%s: not finished within %s (%d of %d turns)\nstderr:\n%s", what, RunTimeout, len(results), len(prompts), stderr.String())
	case len(results) < len(prompts):
		e.T.Fatalf("%s: %d of %d turns finished (%v)\nlast output:\n%s\nstderr:\n%s", what, len(results), len(prompts), err, turn.String(), stderr.String())
	case errors.As(err, &exit):
		results[len(results)-1].ExitCode = exit.ExitCode()
	}
	for _, r := range results {
		r.Stderr = stderr.String()
	}
	return results
}
