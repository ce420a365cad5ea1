package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plansmith/plansmith/e2e/codexserver"
)

// CodexVersion is the Codex CLI the Codex end-to-end tests drive
// (e2e/install-codex.sh installs it).
const CodexVersion = "0.169.0"

// CodexModel is the model name the tests ask for. The provider is scripted,
// but Codex picks its tool set from its built-in metadata for the name:
// gpt-5.5 gets exec_command and the freeform apply_patch tool, while a name
// Codex does not know gets no apply_patch at all.
const CodexModel = "gpt-5.5"

var codexCLI = &npmDependency{what: "Codex CLI", script: "install-codex.sh",
	present: ".cache/codex-" + CodexVersion + "/node_modules/.bin/codex",
	result:  ".cache/codex-" + CodexVersion + "/node_modules/.bin/codex"}

// Codex returns the path of the pinned Codex CLI (see npmDependency).
func Codex(t testing.TB) string { return codexCLI.get(t) }

// CodexEnv is one Codex end-to-end setting: a scripted Responses API model,
// a fresh project (a git repository) and CODEX_HOME whose config.toml points
// Codex at the model.
type CodexEnv struct {
	T testing.TB
	// Codex is the CLI's path.
	Codex string
	// Project is the working directory, a fresh git repository.
	Project string
	// Home is CODEX_HOME (and HOME), a fresh folder.
	Home string
	// Model answers Codex's requests.
	Model *codexserver.Server
	// ExtraEnv is appended to the CLI's environment (KEY=VALUE).
	ExtraEnv []string

	last *CodexResult
}

// NewCodexEnv makes a CodexEnv whose model answers with script. It skips the
// test when the CLI is unavailable (see Codex). On failure the last run's
// output and the model's requests are logged.
func NewCodexEnv(t testing.TB, script ...codexserver.Reply) *CodexEnv {
	t.Helper()
	e := &CodexEnv{
		T:       t,
		Codex:   Codex(t),
		Project: realTempDir(t),
		Home:    testHome(t),
		Model:   codexserver.New(script...),
	}
	t.Cleanup(func() {
		e.Model.Close()
		if t.Failed() {
			e.dump()
		}
	})
	git := exec.Command("git", "init", "-q", e.Project)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init %s: %v\n%s", e.Project, err, out)
	}
	e.WriteHomeFile("config.toml", fmt.Sprintf(`model = %q
model_provider = "scripted"

[model_providers.scripted]
name = "scripted"
base_url = "%s/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
`, CodexModel, e.Model.URL))
	return e
}

// CodexResult is one `codex exec` run.
type CodexResult struct {
	ExitCode int
	// LastMessage is the agent's last message (codex exec -o FILE).
	LastMessage string
	// Messages are the agent's messages of the run, in order (from --json).
	Messages []string
	// ThreadID is the session (thread) id Codex reported.
	ThreadID       string
	Stdout, Stderr string
	Elapsed        time.Duration
}

// Run runs `codex exec --json PROMPT` in the project. args go before the
// prompt. The test fails if the CLI does not finish within RunTimeout; a
// non-zero exit is returned for the test to judge.
func (e *CodexEnv) Run(prompt string, args ...string) *CodexResult {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	lastFile := filepath.Join(e.Home, "last-message.txt")
	_ = os.Remove(lastFile)
	argv := append([]string{"exec", "--json", "--skip-git-repo-check", "-o", lastFile}, args...)
	argv = append(argv, "--", prompt)
	out := runCLI(e.T, ctx, "codex exec "+strconv.Quote(prompt), e.Codex, argv, e.Project, e.environ())
	res := &CodexResult{Elapsed: out.elapsed, Stdout: out.stdout, Stderr: out.stderr, ExitCode: out.exitCode}
	e.last = res
	if b, err := os.ReadFile(lastFile); err == nil {
		res.LastMessage = strings.TrimSpace(string(b))
	}
	for _, line := range strings.Split(res.Stdout, "\n") {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Item     struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "thread.started":
			res.ThreadID = ev.ThreadID
		case ev.Type == "item.completed" && ev.Item.Type == "agent_message":
			res.Messages = append(res.Messages, ev.Item.Text)
		}
	}
	return res
}

// WriteHomeFile writes a file under CODEX_HOME, making parents.
func (e *CodexEnv) WriteHomeFile(rel, content string) { e.writeFile(e.Home, rel, content) }

// WriteProjectFile writes a file under the project, making parents.
func (e *CodexEnv) WriteProjectFile(rel, content string) { e.writeFile(e.Project, rel, content) }

func (e *CodexEnv) writeFile(dir, rel, content string) {
	e.T.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// ProjectFile reads a file under the project; "" when absent.
func (e *CodexEnv) ProjectFile(rel string) string {
	b, err := os.ReadFile(filepath.Join(e.Project, rel))
	if err != nil {
		return ""
	}
	return string(b)
}

// environ is the CLI's environment: ours minus what a surrounding Codex or
// Claude Code session would leak in, plus CODEX_HOME and the provider key.
func (e *CodexEnv) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CODEX") || strings.HasPrefix(k, "CLAUDE") || strings.HasPrefix(k, "OPENAI_") || k == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+e.Home,
		"CODEX_HOME="+e.Home,
		"SCRIPTED_API_KEY=test",
	)
	return append(env, e.ExtraEnv...)
}

func (e *CodexEnv) dump() {
	if e.last != nil {
		e.T.Logf("last run: exit %d in %s\nstdout:\n%s\nstderr:\n%s", e.last.ExitCode, e.last.Elapsed, e.last.Stdout, e.last.Stderr)
	}
	for _, r := range e.Model.Requests() {
		outs := ""
		for _, o := range r.Outputs {
			outs += fmt.Sprintf("\n    output %s (%s): %.300s", o.CallID, o.Name, o.Output)
		}
		e.T.Logf("%s hook prompts %q%s", r, r.HookPrompts, outs)
	}
	if u := e.Model.Unhandled(); len(u) > 0 {
		e.T.Logf("unhandled API paths: %v", u)
	}
}
