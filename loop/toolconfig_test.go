package loop

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/gitcheck"
	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/state"
)

func TestNpmrc(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(home, "code", "app")
	web := filepath.Join(project, "packages", "web")
	src := filepath.Join(web, "src")
	require.NoError(t, os.MkdirAll(src, 0o755))
	write := func(path string) {
		t.Helper()
		require.NoError(t, os.WriteFile(path, []byte("x"), 0o644))
	}
	env := Env{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}

	write(filepath.Join(home, ".npmrc")) // the user's own
	write(filepath.Join(home, "package.json"))
	assert.Empty(t, npmrc(env, src), "$HOME/.npmrc is the user's configuration")

	write(filepath.Join(root, ".npmrc")) // above a folder that is no prefix
	assert.Empty(t, npmrc(env, src), "a folder without package.json or node_modules is no prefix")

	write(filepath.Join(project, "package.json"))
	write(filepath.Join(project, ".npmrc"))
	assert.Equal(t, filepath.Join(project, ".npmrc"), npmrc(env, src), "the project's, found from below")

	require.NoError(t, os.Mkdir(filepath.Join(web, "node_modules"), 0o755))
	write(filepath.Join(web, ".npmrc"))
	assert.Equal(t, filepath.Join(web, ".npmrc"), npmrc(env, src), "the nearest prefix first")

	write(filepath.Join(src, ".npmrc"))
	assert.Equal(t, filepath.Join(src, ".npmrc"), npmrc(env, src), "cwd itself, npm's prefix when none is found")

	require.NoError(t, os.Remove(filepath.Join(src, ".npmrc")))
	require.NoError(t, os.Symlink(filepath.Join(root, "missing"), filepath.Join(src, ".npmrc")))
	assert.Equal(t, filepath.Join(src, ".npmrc"), npmrc(env, src), "a dangling link counts")

	env.Getwd = func() (string, error) { return src, nil }
	assert.Equal(t, filepath.Join(src, ".npmrc"), npmrc(env, ""), "no cwd in the input: the process's folder")
}

// Through the hook: with a loop running, npm is refused where the project
// carries an .npmrc, and judged as before where it does not.
func TestNpmRefusedWithAProjectNpmrc(t *testing.T) {
	env, p, _ := guardedLoop(t)
	npm := ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: []byte(`{"command":"npm ls --depth=0"}`)}

	assert.False(t, PreToolUse(env, npm).Deny, "no .npmrc")
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, ".npmrc"), []byte("logs-dir=./npmlogs\n"), 0o644))
	out := PreToolUse(env, npm)
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, filepath.Join(p.Project, ".npmrc"))
}

// A sub-agent's definition can ask for a worktree as the call's input can
// (isolation: worktree in its frontmatter); such an agent is refused while
// planning (the review of the eighth review's fixes).
func TestAgentDefinitionIsolation(t *testing.T) {
	env, p, _ := guardedLoop(t)
	agents := filepath.Join(p.Project, ".claude", "agents")
	require.NoError(t, os.MkdirAll(filepath.Join(agents, "team"), 0o755))
	define := func(file, text string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(agents, file), []byte(text), 0o644))
	}
	call := func(agent string) ToolOutcome {
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Agent",
			Input: []byte(`{"description":"x","prompt":"x","subagent_type":"` + agent + `"}`)})
	}
	define("reader.md", "---\nname: reader\ndescription: reads\n---\nRead.\n")
	define("team/helper-file.md", "---\r\nname: helper\r\ndescription: h\r\nisolation: worktree\r\n---\r\nHelp.\r\n")
	define("plain.md", "---\nname: plain\nisolation: none\n---\n")

	assert.False(t, call("reader").Deny, "a definition without isolation")
	assert.False(t, call("plain").Deny, "isolation none")
	assert.False(t, call("general-purpose").Deny, "a built-in agent")
	out := call("helper")
	assert.True(t, out.Deny, "named in its frontmatter, in a subfolder, with CRLF lines")
	assert.Contains(t, out.Reason, "worktree")

	// Claude Code keeps the user's agents in $CLAUDE_CONFIG_DIR when it is
	// set (the tenth review: a worktree was made from there); a plugin's
	// agent's definition is not read.
	config := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(config, "agents"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(config, "agents", "iso.md"), []byte("---\nname: iso\nisolation: worktree\n---\n"), 0o644))
	assert.False(t, call("iso").Deny, "not where Claude Code looks")
	getenv := env.Getenv
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return getenv(k)
	}
	assert.True(t, call("iso").Deny, "in $CLAUDE_CONFIG_DIR/agents")
	assert.True(t, call("someplugin:helper").Deny, "a plugin's agent")

	// A definition's settings that start programs or write (review S: its
	// mcpServers and hooks ran the project's script, its skill's ! line
	// ran, its memory made a folder), or any key not known to be inert.
	define("inert.md", "---\nname: inert\ndescription: d\ntools: Read, Grep\nmodel: sonnet\ncolor: blue\nmaxTurns: 3\n---\n")
	assert.False(t, call("inert").Deny, "settings that describe, choose or limit the agent")
	for key, value := range map[string]string{
		"mcpServers":    "\n  - helper:\n      type: stdio\n      command: ./tools/helper.sh",
		"hooks":         "\n  PreToolUse:\n    - matcher: \"*\"\n      hooks:\n        - type: command\n          command: ./tools/helper.sh",
		"skills":        "\n  - probe",
		"memory":        " project",
		"initialPrompt": " /probe",
		"somethingNew":  " x",
	} {
		define(key+".md", "---\nname: "+key+"\ndescription: d\n"+key+":"+value+"\n---\n")
		out := call(key)
		assert.True(t, out.Deny, key)
		assert.Contains(t, out.Reason, key, key)
	}

	define("broken.md", "---\nname: [\n---\n")
	assert.True(t, call("reader").Deny, "a definition that cannot be read may be the one called")
}

// The review of the plumbing (I, F2, F3): Claude Code follows links in its
// agent folders and reads .claude/agents in the folders above the project;
// a definition with a hundred thousand keys took minutes to decode (into a
// map) while the hook held the project's lock, and the timeout let the call
// through.
func TestAgentDefinitionsThroughLinksAndAbove(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	env, p, _ := guardedLoop(t)
	claude := filepath.Join(p.Project, ".claude")
	call := func(agent string) ToolOutcome {
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Agent",
			Input: []byte(`{"description":"x","prompt":"x","subagent_type":"` + agent + `"}`)})
	}
	real := filepath.Join(claude, "agents-real")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "deep"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(real, "explorer.md"), []byte("---\nname: explorer\nisolation: worktree\n---\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(real, "deep", "digger.md"), []byte("---\nisolation: worktree\n---\n"), 0o644))
	require.NoError(t, os.Symlink("agents-real", filepath.Join(claude, "agents")))
	out := call("explorer")
	assert.True(t, out.Deny, ".claude/agents is a link")
	assert.Contains(t, out.Reason, "worktree")
	assert.True(t, call("digger").Deny, "a subfolder through the link")
	require.NoError(t, os.Symlink("..", filepath.Join(real, "deep", "loop")))
	assert.True(t, call("digger").Deny, "a link cycle is read once")
	assert.False(t, call("reader").Deny, "an agent defined nowhere")
	require.NoError(t, os.Remove(filepath.Join(claude, "agents")))

	// A definition in a folder above the project (a monorepo's root).
	above := filepath.Join(filepath.Dir(p.Project), ".claude", "agents")
	require.NoError(t, os.MkdirAll(above, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(above, "explorer.md"), []byte("---\nname: explorer\nisolation: {mode: worktree}\n---\n"), 0o644))
	assert.True(t, call("explorer").Deny, "defined above the project, as a mapping")
	require.NoError(t, os.Remove(filepath.Join(above, "explorer.md")))

	// A hundred thousand keys: decoded in linear time, under no lock.
	var b strings.Builder
	b.WriteString("---\nname: helper\n")
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	b.WriteString("---\n")
	require.NoError(t, os.MkdirAll(filepath.Join(claude, "agents"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(claude, "agents", "helper.md"), []byte(b.String()), 0o644))
	done := make(chan ToolOutcome, 1)
	go func() { done <- call("general-purpose") }()
	select {
	case out := <-done:
		assert.False(t, out.Deny, out.Reason)
	case <-time.After(20 * time.Second):
		t.Fatal("an agent definition with many keys held the hook up")
	}
}

// PreToolUse judges with the project's lock released: a lookup the
// project can slow down must not hold up the session's other hooks.
func TestPreToolUseJudgesWithoutTheLock(t *testing.T) {
	env, p, _ := guardedLoop(t)
	var held bool
	env.Getenv = func(k string) string {
		if k == "PATH" {
			// Called while the call is judged: try the lock then.
			unlock, err := lockNow(p)
			held = err != nil
			if unlock != nil {
				unlock()
			}
			return "/usr/bin:bin"
		}
		return ""
	}
	PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: []byte(`{"command":"ls"}`)})
	assert.False(t, held, "the lock was free while the call was judged")
}

// bareRepository makes dir look like a bare repository to git: HEAD,
// objects and refs, and a config whose fsmonitor writes marker, as a
// clone can carry them (plain files).
func bareRepository(t *testing.T, dir, marker string) {
	t.Helper()
	for _, d := range []string{"objects", "refs"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch '" + marker + "'; false\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config"), []byte(config), 0o644))
}

func TestGitRepositoryLookup(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "project")
	evil := filepath.Join(project, "vendor", "evil")
	require.NoError(t, os.MkdirAll(filepath.Join(project, "src"), 0o755))
	checkoutGit := func(dotgit, head string) {
		t.Helper()
		for _, d := range []string{"objects", "refs"} {
			require.NoError(t, os.MkdirAll(filepath.Join(dotgit, d), 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dotgit, "HEAD"), []byte(head), 0o644))
	}
	checkoutGit(filepath.Join(project, ".git"), "ref: refs/heads/main\n")
	bareRepository(t, evil, filepath.Join(root, "marker"))
	env := Env{}

	// The project's folder itself holds HEAD and objects: without its .git
	// git would take it for a bare repository.
	// Should git pass over the .git after all (review N: a .git whose
	// commondir leads nowhere), it would take the folder for a bare
	// repository: refused.
	for _, d := range []string{"HEAD", "objects"} {
		require.NoError(t, os.MkdirAll(filepath.Join(project, d), 0o755))
	}
	assert.Contains(t, gitRepository(env, project, "", gitcheck.User{}), "holds a .git and also HEAD and objects")
	for _, d := range []string{"HEAD", "objects"} {
		require.NoError(t, os.RemoveAll(filepath.Join(project, d)))
	}
	assert.Empty(t, gitRepository(env, project, "", gitcheck.User{}), "the checkout's .git")
	// A .git git passes over does not stop the walk (the review of the fix:
	// git went on to take evil for a bare repository).
	dotgit := filepath.Join(evil, ".git")
	require.NoError(t, os.Mkdir(dotgit, 0o755))
	assert.Contains(t, gitRepository(env, project, "vendor/evil", gitcheck.User{}), evil, "an empty .git")
	checkoutGit(dotgit, "not a ref\n")
	assert.Contains(t, gitRepository(env, project, "vendor/evil", gitcheck.User{}), evil, "a .git whose HEAD names nothing")
	require.NoError(t, os.Remove(filepath.Join(dotgit, "HEAD")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dotgit, "HEAD"), 0o644))
	assert.Contains(t, gitRepository(env, project, "vendor/evil", gitcheck.User{}), evil, "a pipe for HEAD, not waited on")
	require.NoError(t, os.RemoveAll(dotgit))

	assert.Empty(t, gitRepository(env, project, "", gitcheck.User{}), "the checkout's own .git")
	assert.Empty(t, gitRepository(env, project, "src", gitcheck.User{}))
	assert.Empty(t, gitRepository(env, project, "missing", gitcheck.User{}), "git cannot start there")
	assert.Contains(t, gitRepository(env, project, "vendor/evil", gitcheck.User{}), evil)
	assert.Contains(t, gitRepository(env, project, "vendor/evil/refs", gitcheck.User{}), evil, "found from below")
	assert.Contains(t, gitRepository(env, evil, "", gitcheck.User{}), evil, "a session already in it")
	assert.Contains(t, gitRepository(env, project, evil+"/objects", gitcheck.User{}), evil, "an absolute -C")
	assert.Empty(t, gitRepository(env, project, "vendor/evil/..", gitcheck.User{}))

	// chdir resolves a link before "..": link/.. is the folder above its target.
	require.NoError(t, os.Symlink(filepath.Join(evil, "refs"), filepath.Join(project, "src", "link")))
	assert.Contains(t, gitRepository(env, project, "src/link/..", gitcheck.User{}), evil)
	assert.Empty(t, gitRepository(env, project, "src/link/../../..", gitcheck.User{}))

	// A commondir stands for objects; a .git (a nested clone's, or a
	// worktree's file) is what git takes first.
	common := filepath.Join(project, "common")
	require.NoError(t, os.MkdirAll(common, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(common, "HEAD"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(common, "commondir"), []byte("../vendor/evil\n"), 0o644))
	assert.Contains(t, gitRepository(env, project, "common", gitcheck.User{}), common)
	require.NoError(t, os.WriteFile(filepath.Join(evil, ".git"), []byte("gitdir: ../../.git\n"), 0o644))
	assert.Contains(t, gitRepository(env, project, "vendor/evil", gitcheck.User{}), "holds a .git and also HEAD and objects", "evil is a bare repository's layout too")
	for _, d := range []string{"HEAD", "objects", "refs", "config"} {
		require.NoError(t, os.RemoveAll(filepath.Join(evil, d)))
	}
	assert.Empty(t, gitRepository(env, project, "vendor/evil", gitcheck.User{}), "a .git file names the repository")

	env.Getwd = func() (string, error) { return common, nil }
	assert.Contains(t, gitRepository(env, "", "", gitcheck.User{}), common, "no cwd in the input: the process's folder")
	env.Getwd = nil
	assert.NotEmpty(t, gitRepository(env, "", "", gitcheck.User{}), "no folder at all")
}

// Through the hook: with a loop running, git is refused where it would take
// a folder the project carries for its repository, and allowed in the
// checkout. Without the refusal, git really runs what that config names.
func TestGitRefusedInAProjectBareRepository(t *testing.T) {
	env, p, _ := guardedLoop(t)
	marker := filepath.Join(t.TempDir(), "ran")
	bareRepository(t, filepath.Join(p.Project, "evil"), marker)
	call := func(cmd string) ToolOutcome {
		input, err := json.Marshal(map[string]string{"command": cmd})
		require.NoError(t, err)
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: input})
	}
	out := call("git -C evil status")
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, filepath.Join(p.Project, "evil"))
	assert.True(t, call("cd evil && git status").Deny)
	assert.False(t, call("git -C . log -1").Deny, "the project's folder is no repository here: git stops")

	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to show the harm with")
	}
	cmd := exec.Command(git, "-C", "evil", "status")
	cmd.Dir, cmd.Env = p.Project, append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	_ = cmd.Run() // it fails after running the program
	assert.FileExists(t, marker, "git ran the config's fsmonitor")
}

// The project's policy file widens the policy only once the user approved
// it (policy.Trust); until then a refusal says why its entries did not
// count. A repository can carry one (the tenth review: allow: [bash]).
func TestProjectPolicyFileNeedsApproval(t *testing.T) {
	env, p, _ := guardedLoop(t)
	home := t.TempDir()
	env.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	file := filepath.Join(p.Project, policy.ConfigFile)
	require.NoError(t, os.WriteFile(file, []byte("allow:\n  - bash\n"), 0o644))
	call := ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: []byte(`{"command":"bash -c 'touch x'"}`)}

	out := PreToolUse(env, call)
	assert.True(t, out.Deny, "not approved: not used")
	assert.Contains(t, out.Reason, "plansmith policy trust")
	_, err := policy.Trust(p.Project, home)
	require.NoError(t, err)
	assert.False(t, PreToolUse(env, call).Deny, "approved: the user's choice")
}

// A repository can make the policy file or an agent definition a pipe (or a
// link to the hook's own output, /proc/self/fd/1): reading it must not hold
// the hook up, since Claude Code lets a call through when a PreToolUse hook
// times out (the review of the day's fixes: every call waited 60 s, then ran).
func TestPipesInThePolicysWayDoNotHoldTheHookUp(t *testing.T) {
	env, p, _ := guardedLoop(t)
	within := func(what string, call ToolEvent) ToolOutcome {
		t.Helper()
		done := make(chan ToolOutcome, 1)
		go func() { done <- PreToolUse(env, call) }()
		select {
		case out := <-done:
			return out
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the hook did not answer", what)
		}
		return ToolOutcome{}
	}
	require.NoError(t, syscall.Mkfifo(filepath.Join(p.Project, policy.ConfigFile), 0o644))
	touch := ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: []byte(`{"command":"touch x"}`)}
	assert.True(t, within("a pipe for the policy file", touch).Deny)

	agents := filepath.Join(p.Project, ".claude", "agents")
	require.NoError(t, os.MkdirAll(agents, 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(agents, "helper.md"), 0o644))
	agent := ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Agent",
		Input: []byte(`{"description":"x","prompt":"x","subagent_type":"helper"}`)}
	assert.True(t, within("a pipe for an agent definition", agent).Deny, "a definition that cannot be read counts as isolated")
}

// lockNow takes the project's lock without waiting: an error when another
// holds it.
func lockNow(p state.Paths) (func(), error) {
	f, err := os.OpenFile(p.Lock(), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
