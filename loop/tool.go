package loop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/plansmith/plansmith/bashtool"
	"github.com/plansmith/plansmith/gitcheck"
	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/planmode"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// PreToolUse keeps an active loop's session read-only (the tool policy)
// and counts tool calls, which reset the agent's consecutive-block count.
// ExitPlanMode is judged by the plan-mode gate whether or not a loop runs.
func PreToolUse(env Env, ev ToolEvent) ToolOutcome {
	if ev.Tool == "ExitPlanMode" {
		return denyIf(planmode.CheckExit(planCall(env, ev), env.Stderr))
	}
	t, err := openToolSession(env, ev.Session)
	if err != nil {
		// A loop may be running, but its state cannot be read: refuse what
		// the policy would judge rather than let it through unjudged.
		env.note("%v", err)
		if policy.Guarded(ev.Tool) {
			return ToolOutcome{Deny: true, Reason: policy.Unreadable(ev.Tool, err.Error()).Reason}
		}
		return ToolOutcome{}
	}
	if t == nil {
		return ToolOutcome{}
	}
	l := t.file.Loop
	paths := t.paths
	if ev.AgentID == "" && endsBlockRun(ev.Tool) && endBlocks(&t.file.Loop, ev.ID) {
		t.dirty = true
	}
	project := t.paths.Project
	// The call is judged after the lock is released: the policy's lookups
	// (policyConfig) read files the project carries (agent definitions, .git, go.mod, the
	// policy file), and a slow one must not hold up the session's other
	// hooks, whose timeout would let their calls through.
	t.close(env)
	if !l.BlockTools {
		return ToolOutcome{}
	}
	cfg, cfgErr := policyConfig(env, ev, project, &l)
	d := policy.Tool(ev.Tool, ev.Input, cfg)
	if d.Allow {
		return ToolOutcome{}
	}
	var untrusted *policy.UntrustedError
	if errors.As(cfgErr, &untrusted) {
		// Say why its entries did not count, where the user will see it.
		d.Reason += "\n- Note: " + cfgErr.Error() + "."
	}
	head := ""
	switch {
	case elsewhere(&l, project) && movedFrom(&l, ev.Session):
		// Not "plansmith is planning": the loop is not run here, and the
		// agent would go on trying (review CK).
		head = strings.TrimSpace(templates.Show("messages/loop-moved-refusal.md", map[string]any{"From": l.Project}))
	case plantedHere(env, paths, &l):
		// Only a refusal reads the record, off the hot path. The headline
		// "plansmith is planning" gives way to what the loop is.
		head = strings.TrimSpace(templates.Show("messages/planted-loop-refusal.md", nil))
	}
	if head != "" {
		if _, rest, ok := strings.Cut(d.Reason, "\n\n"); ok {
			d.Reason = head + "\n\n" + rest
		} else {
			d.Reason += "\n\n" + head
		}
	}
	return ToolOutcome{Deny: true, Reason: d.Reason}
}

// policyConfig is the tool policy's Config for ev's call in project, whose
// loop is l: the project's policy extension (a broken or unapproved one is
// noted and the call judged with none; its error is returned for the
// refusal to mention), and what the call's text alone cannot tell, each
// looked up only when the policy asks.
func policyConfig(env Env, ev ToolEvent, project string, l *state.Loop) (policy.Config, error) {
	cfg, cfgErr := policy.LoadConfig(project, env.Getenv("HOME"))
	if cfgErr == nil && len(cfg.Allow)+len(cfg.Tools) > 0 && l.Agent != state.AgentCodex &&
		bashtool.SettingsSet("HOME", project, env.Getenv("CLAUDE_PROJECT_DIR")) {
		// A HOME the project's Claude Code settings set holds the
		// repository's approvals, not the user's: Claude Code 2.1.197
		// gives it to the hooks, and a project's own trust list there made
		// its plansmith-policy.yaml count (review FD5). Looked for only
		// when an approval would widen the policy.
		cfg, cfgErr = policy.LoadConfig(project, "")
	}
	if cfgErr != nil {
		// A broken or unapproved extension file must not widen the policy:
		// judge with none.
		env.note("%v (ignoring the project's policy extension)", cfgErr)
	}
	cfg.Ours = ours(env)
	cfg.Blind = ev.Blind
	cfg.ShellEnv = ev.ShellEnv
	cfg.CmdExe = ev.CmdExe
	if l.Agent != state.AgentCodex {
		// Claude Code's own settings files: Codex reads none of them.
		cfg.SettingsEnv = func() string {
			return bashtool.SettingsEnv(env.Getenv("HOME"), project, env.Getenv("CLAUDE_PROJECT_DIR"))
		}
	}
	// Codex has no command the user types that its hooks could tell apart
	// from words the agent read: there the agent may cancel (docs/codex.md).
	cfg.CancelAsked = l.CancelAsked || l.Agent == state.AgentCodex
	// The user's shell (the client's snapshots of it) is read, and PATH
	// looked into, only when a command needs them: most calls while
	// planning are reads (Read, Grep, Glob), which never ask. Codex runs
	// its commands from its own snapshots, never Claude Code's
	// (bashtool/codex.go, review FA1).
	read := bashtool.Read
	if l.Agent == state.AgentCodex {
		read = bashtool.ReadCodex
	}
	shell := sync.OnceValue(func() bashtool.Shell { return read(env.Getenv) })
	lookup := sync.OnceValue(func() func(string) string {
		return shell().Lookup(env.Getenv("PATH"), project, pluginBin(env), env.Getenv("SHELL"))
	})
	cfg.PathLookup = func(name string) string { return lookup()(name) }
	cfg.NpmConfig = func() string { return npmrc(env, ev.Cwd) }
	// The user's git configuration is read once a call, when a git (or go
	// list) command needs it.
	gitUser := sync.OnceValue(func() gitcheck.User { return gitcheck.ReadUser(env.Getenv) })
	cfg.GitRepository = func(dir string) string { return gitRepository(env, ev.Cwd, dir, gitUser()) }
	cfg.GitShowsSignatures = func() bool { return gitUser().ShowsSignatures() }
	cfg.GoToolchain = func() string { return goToolchain(env, ev.Cwd, localGo) }
	cfg.GoVCS = func() string { return goVCS(env, ev.Cwd, gitUser()) }
	cfg.ShellDefines = func(name string) string { return shell().Defines(name, env.Getenv("SHELL")) }
	// With allexport on in the user's shell (the snapshot keeps its
	// options), every assignment is an export.
	cfg.Inherited = func(name string) bool { return env.Getenv(name) != "" || shell().ExportsAll() }
	cfg.AgentDefinition = func(agent string) string { return agentTrouble(agentDirs(env, project), agent) }
	return cfg, cfgErr
}

// PostToolUse maintains the plan-mode gate's metadata after the agent
// writes its plan file in plan mode (planmode.Maintain). It answers only
// when the metadata could not be written: ExitPlanMode would refuse the
// plan as unassessed, and running the gate again would not help (review
// FB3: a full disk under the home was told on stderr alone).
func PostToolUse(env Env, ev ToolEvent) PromptOutcome {
	var stale *planmode.NotMaintainedError
	if errors.As(planmode.Maintain(planCall(env, ev), env.Now(), env.Stderr), &stale) {
		text := stale.Message()
		return PromptOutcome{Context: text, Message: text}
	}
	return PromptOutcome{}
}

// UndecodableTool judges a tool call whose input could not be decoded: raw
// is what was read, err why it failed, s and tool whatever could be read
// ("" when not). Input that names ExitPlanMode is refused (the plan-mode
// gate fails closed), and so are the calls the policy would judge (edits,
// Bash, or a tool it cannot name) whenever a loop may be running; other
// calls pass, and with no state file at all there is no loop to guard.
func UndecodableTool(env Env, s Session, tool string, raw []byte, err error) ToolOutcome {
	if o := denyIf(planmode.CheckMalformed(project(env, s), raw, err, env.Stderr)); o.Deny {
		return o
	}
	if !policy.Guarded(tool) {
		return ToolOutcome{}
	}
	p, exists, serr := stateFile(env, s)
	switch {
	case serr != nil:
		err = fmt.Errorf("%w; %w", err, serr)
	case exists:
		err = fmt.Errorf("%w; a loop's state file exists at %s", err, p.State())
	default:
		return ToolOutcome{}
	}
	return ToolOutcome{Deny: true, Reason: policy.Unreadable(tool, err.Error()).Reason}
}

// stateFile reports whether s's project has a state file, and an error when
// it cannot even be looked for (either way a loop may be running): a call
// whose project cannot be found (no cwd in the input, and the hook's own
// folder gone) is not one to let through (review X, F1).
func stateFile(env Env, s Session) (state.Paths, bool, error) {
	p, err := env.Paths(s)
	if err != nil {
		return p, false, fmt.Errorf("the project cannot be found, so whether a planning loop runs there cannot be checked: %w", err)
	}
	_, err = os.Lstat(p.State())
	switch {
	case err == nil:
		return p, true, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return p, false, nil
	}
	return p, false, fmt.Errorf("the loop's state file cannot be checked: %w", err)
}

// openToolSession is openSessionWith for PreToolUse: it never binds, reads
// only the frontmatter (state.LoadHead: the answers in the body, however
// large, are neither read nor rewritten), and fails closed: a
// state file that exists but cannot be checked, locked, read or understood
// is an error for the caller to refuse on, not a reason to let the call
// through. A corrupt file is left where it is; the session's own Stop or
// prompt moves it aside with a note, and plansmith cancel ends the loop.
// Otherwise it answers as openSessionWith: nil when there is no running loop
// of s's.
func openToolSession(env Env, s Session) (*txn, error) {
	p, exists, err := stateFile(env, s)
	if err != nil || !exists {
		return nil, err
	}
	t, err := beginWith(p, false, state.LoadHead)
	var lock *lockError
	if errors.As(err, &lock) && !heldWithoutLock(p, s) {
		return nil, nil // no lock to be had, and no loop of this session: nothing to guard
	}
	if err != nil {
		if t != nil {
			t.commit() // releases the lock; nothing was loaded, nothing is saved
		}
		return nil, fmt.Errorf("the loop's state cannot be read: %w", err)
	}
	if !t.active() {
		t.commit()
		return nil, nil
	}
	l := &t.file.Loop
	if elsewhere(l, p.Project) && !movedFrom(l, s) {
		// A loop its session carried here when the project moved is
		// judged as its own (review CI4: the session wrote freely).
		t.commit()
		return nil, nil
	}
	if l.SessionID != "" && s.ID == "" {
		// An input that names no session cannot be told apart from the
		// planning session's (review X, F2: it was let through as
		// another session's).
		t.commit()
		return nil, errors.New("the hook input names no session, and a planning loop runs in this project")
	}
	if l.SessionID != "" && !l.HeldBy(s.ID) && !s.continues(l) {
		t.commit()
		return nil, nil
	}
	return t, nil
}

func planCall(env Env, ev ToolEvent) planmode.Call {
	c := sessionPlanCall(env, ev.Session)
	c.PermissionMode, c.Tool, c.Input, c.Response = ev.PermissionMode, ev.Tool, ev.Input, ev.Response
	return c
}

// sessionPlanCall is the plan-mode gate's view of s: where the project,
// Claude Code's project root and config folder, and HOME are.
func sessionPlanCall(env Env, s Session) planmode.Call {
	return planmode.Call{
		Project:   project(env, s),
		Root:      env.Getenv("CLAUDE_PROJECT_DIR"),
		Home:      env.Getenv("HOME"),
		ConfigDir: env.Getenv("CLAUDE_CONFIG_DIR"),
		SessionID: s.ID,
	}
}

// project is s's project folder, or "" when it cannot be found.
func project(env Env, s Session) string {
	p, _ := env.Paths(s)
	return p.Project
}

func denyIf(reason string) ToolOutcome {
	if reason == "" {
		return ToolOutcome{}
	}
	return ToolOutcome{Deny: true, Reason: reason}
}

// ours reports whether an absolute path names plansmith itself: this
// binary, by the path it runs from or that path with its links resolved (a
// settings or Codex install writes it into the commands it installs), or
// the plugin's launcher, ${CLAUDE_PLUGIN_ROOT}/bin/plansmith, as the
// plugin's slash commands name it. The tool policy lets the agent run
// plansmith's read-only commands there and nowhere else. The path is
// compared as written, never followed: a link in the project to the binary
// (or to /proc/self/exe, or to the launcher, which finds the plugin from
// the path it was started by) runs something else.
func ours(env Env) func(string) bool {
	var paths []string
	if exe, err := os.Executable(); err == nil {
		paths = append(paths, filepath.Clean(exe))
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			paths = append(paths, real)
		}
	}
	if root := env.Getenv("CLAUDE_PLUGIN_ROOT"); filepath.IsAbs(root) {
		paths = append(paths, filepath.Join(root, "bin", "plansmith"))
	}
	// As written: "evil/../bin/plansmith" cleans to a path of ours, but the
	// kernel follows evil first, which may be a link out of the project.
	return func(p string) bool { return p == filepath.Clean(p) && slices.Contains(paths, p) }
}

// pluginBin is the folder Claude Code adds to the Bash tool's PATH for the
// plugin ($CLAUDE_PLUGIN_ROOT/bin), or "".
func pluginBin(env Env) string {
	if root := env.Getenv("CLAUDE_PLUGIN_ROOT"); filepath.IsAbs(root) {
		return filepath.Join(root, "bin")
	}
	return ""
}
