package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plansmith/plansmith/bashtool"
	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/planmode"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Level grades one doctor check. Only Problem makes doctor fail.
type Level string

const (
	OK      Level = "ok"
	Warn    Level = "warn"
	Problem Level = "problem"
)

// Check is one line of doctor's report.
type Check struct {
	Name   string `json:"name"`
	Level  Level  `json:"level"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// DoctorEnv is everything doctor looks at.
type DoctorEnv struct {
	Project string // the project directory
	Home    string // the user's home (for ~/.claude); empty skips user settings
	Binary  string // this binary's resolved path
	Version string // this binary's version line
	Getenv  func(string) string
	Now     time.Time
	// LookGo finds the Go toolchain the launcher builds with.
	LookGo func() (string, error)
	// Probe runs `<binary> version` for a registered binary other than this one.
	Probe func(binary string) (string, error)
	// Codex is the codex binary to ask whether it runs plansmith's hooks
	// (CodexHookStatus), run with Environ; "" reads its config files only.
	Codex   string
	Environ []string
}

// StaleAfter is how long an active loop may sit untouched before doctor
// calls it stale.
const StaleAfter = 24 * time.Hour

// Doctor runs every check, in a fixed order.
func Doctor(e DoctorEnv) []Check {
	checks := []Check{{Name: "binary", Level: OK, Detail: fmt.Sprintf("%s at %s", e.Version, e.Binary)}}
	codex := CodexChecks(e)
	claude, codexAlone := codexOnly(registrationChecks(e), e)
	checks = append(checks, claude...)
	checks = append(checks, codex...)
	checks = append(checks, loopCheck(state.Paths{Project: e.Project}, e.Home, e.Now))
	gate, blockCap := GateCheck(e.Project), BlockCapCheck(e.Getenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"))
	if codexAlone {
		gate = forClaudeCodeOnly(gate, "it guards Claude Code's plan mode (ExitPlanMode), which Codex does not have")
		blockCap = forClaudeCodeOnly(blockCap, "Claude Code's alone: Codex obeys every Stop block, and plansmith's retry budget ends a loop there")
	}
	checks = append(checks, gate, blockCap)
	checks = append(checks, goCheck(e.LookGo, e.Binary))
	return checks
}

// Failed reports whether any check is a problem.
func Failed(checks []Check) bool {
	for _, c := range checks {
		if c.Level == Problem {
			return true
		}
	}
	return false
}

// FormatChecks writes one line per check: level, name, detail, and the fix.
func FormatChecks(checks []Check) string {
	var b strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&b, "%-8s %s: %s", c.Level, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, " — fix: %s", c.Fix)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// settingsSource is one settings file that can register hooks.
type settingsSource struct {
	label   string // for messages
	path    string
	install string // the command that manages it
}

// claudeRegistrations reads every settings file that can register hooks
// for the project: the checks of those that register plansmith (or cannot
// be read), where it is registered, and the plugin a settings file enables.
func claudeRegistrations(e DoctorEnv) (checks []Check, registered []string, pluginEnabled string) {
	sources := []settingsSource{
		{"project settings", filepath.Join(e.Project, ".claude", "settings.json"), templates.CLI("install")},
		{"project local settings", filepath.Join(e.Project, ".claude", "settings.local.json"), ""},
	}
	if e.Home != "" {
		sources = append(sources, settingsSource{"user settings", filepath.Join(e.Home, ".claude", "settings.json"), templates.CLI("install --user")})
	}
	for _, s := range sources {
		data, existed, err := readClaudeSettings(s.path)
		if err == nil && !existed {
			continue
		}
		if err != nil {
			fix := "check the file's permissions, or replace it with a regular file"
			if errors.Is(err, plainfile.ErrTooLarge) {
				// Permissions are not the matter (review CQ).
				fix = fmt.Sprintf("make the file smaller: plansmith reads settings files of up to %d MiB", settingsLimit>>20)
			}
			checks = append(checks, Check{"hooks", Problem, fmt.Sprintf("cannot read %s: %v", s.path, errors.Unwrap(err)), fix})
			continue
		}
		regs, err := Find(data, e.Binary)
		if err != nil {
			if !json.Valid(data) {
				checks = append(checks, Check{"hooks", Problem, fmt.Sprintf("%s is not valid settings JSON (%v)", s.path, err), "fix the file; Claude Code cannot read it either"})
			} else {
				// JSON whose hooks plansmith cannot follow ("hooks": 5):
				// Claude Code reads the rest of the file and drops its
				// hooks, so none of them runs.
				checks = append(checks, Check{"hooks", Problem, fmt.Sprintf("%s: %v", s.path, err), "fix the file; Claude Code reads the rest of it but runs none of its hooks"})
			}
			continue
		}
		if why := ClaudeSkips(data); why != "" {
			// Neither its hooks nor the plugins it enables take effect.
			const fix = "fix the file (Claude Code's /doctor lists its settings errors)"
			if len(regs) > 0 {
				checks = append(checks, Check{"hooks", Problem, fmt.Sprintf("%s (%s) registers plansmith, but Claude Code skips the whole file and its hooks: %s", s.label, s.path, why), fix})
			} else if name := enabledPlugin(data); name != "" {
				checks = append(checks, Check{"hooks", Problem, fmt.Sprintf("%s (%s) enables plugin %s, but Claude Code skips the whole file, so the plugin is not enabled: %s", s.label, s.path, name, why), fix})
			}
			continue
		}
		if why := ClaudeMaySkip(data); why != "" && (len(regs) > 0 || enabledPlugin(data) != "") {
			checks = append(checks, Check{"hooks", Warn, fmt.Sprintf("%s (%s): some Claude Code versions skip the whole file, its hooks and the plugins it enables: %s", s.label, s.path, why), "fix the file (Claude Code's /doctor lists its settings errors)"})
		}
		if name := enabledPlugin(data); name != "" && pluginEnabled == "" {
			pluginEnabled = fmt.Sprintf("plugin %s (enabled in %s)", name, s.path)
		}
		if len(regs) == 0 {
			continue
		}
		registered = append(registered, fmt.Sprintf("%s (%s)", s.label, s.path))
		checks = append(checks, sourceCheck(e, s, regs))
	}
	return checks, registered, pluginEnabled
}

// rankedSettings are the Claude Code settings files read here, highest
// rank first, as Claude Code merges them, one list for each way the
// versions rank them: the project's local settings outrank the project's,
// which outrank the user's (seen with 2.1.197 and 2.1.330: a local false
// kept the hooks of a project disableAllHooks true, a project false those
// of a user true). Claude Code 2.1.330 also reads the local settings of
// the git repository the session starts in at the repository's root,
// however deep, above all of those (review FG1: its disableAllHooks true
// turned the hooks off over a false in both of the session folder's
// files; an LD_PRELOAD there reached every hook); 2.1.197 does not read
// it, so a false there does not keep its hooks. Each file is decoded to
// its top-level keys; a file that is missing, cannot be read or is skipped
// by Claude Code (ClaudeSkips) sets nothing and is left out. repo is set
// for the project's files, which a repository can carry.
func rankedSettings(e DoctorEnv) [][]settingsKeys {
	// A session started in the home folder has the user's settings for
	// its project's, unless they move HOME there: Claude Code 2.1.197
	// gives the Bash tool, plan included, the HOME a project's settings
	// set, and one set to the project would pass for it (review FD5).
	repo := e.Home == "" || filepath.Clean(e.Project) != filepath.Clean(e.Home) || bashtool.SettingsSet("HOME", e.Project)
	files := []settingsKeys{
		{path: filepath.Join(e.Project, ".claude", "settings.local.json"), repo: repo},
		{path: filepath.Join(e.Project, ".claude", "settings.json"), repo: repo},
	}
	if e.Home != "" && repo {
		files = append(files, settingsKeys{path: filepath.Join(e.Home, ".claude", "settings.json")})
	}
	var roots []settingsKeys
	for _, root := range bashtool.LocalSettingsRoots(filepath.Clean(e.Project)) {
		if e.Home == "" || root != filepath.Clean(e.Home) || bashtool.SettingsSet("HOME", e.Project) {
			roots = append(roots, settingsKeys{path: filepath.Join(root, ".claude", "settings.local.json"), repo: true})
		}
	}
	rankings := [][]settingsKeys{readSettingsKeys(files)}
	if roots := readSettingsKeys(roots); len(roots) > 0 {
		rankings = append(rankings, append(roots, rankings[0]...))
	}
	return rankings
}

// readSettingsKeys is files, each with its keys, less those that set
// nothing.
func readSettingsKeys(files []settingsKeys) []settingsKeys {
	var out []settingsKeys
	for _, f := range files {
		data, existed, err := readClaudeSettings(f.path)
		if err != nil || !existed || ClaudeSkips(data) != "" || json.Unmarshal(data, &f.keys) != nil {
			continue
		}
		out = append(out, f)
	}
	return out
}

type settingsKeys struct {
	path string
	repo bool
	keys map[string]json.RawMessage
}

// hooksBypassed says why Claude Code would not act on what plansmith's
// hooks answer, and what to do about it, or "", "". A settings file sets
// disableAllHooks to true, and none ranked above it sets it otherwise:
// Claude Code runs no hook, plansmith's included. Or the env of the
// project's own settings sets CLAUDE_CODE_SHELL_PREFIX: Claude Code then
// runs every hook command, plansmith's included, through the program it
// names, which gets to say what Claude Code receives. A repository can
// carry either: with disableAllHooks, a loop's touch went through, its
// Stop hook never ran, and plan said the session was read-only (review
// FD2); with a prefix that dropped the hook's answer, the same (FD3). A
// user's own prefix (in their settings or environment) is theirs, and
// trusted to hand the answer on.
func hooksBypassed(e DoctorEnv) (why, fix string) {
	for _, files := range rankedSettings(e) {
		if why, fix := bypassedBy(files); why != "" {
			return why, fix
		}
	}
	return "", ""
}

// bypassedBy is hooksBypassed for the settings files of one ranking.
func bypassedBy(files []settingsKeys) (why, fix string) {
	for _, f := range files {
		v, ok := f.keys["disableAllHooks"]
		if !ok {
			continue
		}
		if string(bytes.TrimSpace(v)) == "true" {
			return "Claude Code runs no hooks, plansmith's included: disableAllHooks is true in " + f.path,
				"remove disableAllHooks from that file (a repository can carry one), then start Claude Code again"
		}
		break
	}
	// Each variable takes its value from the highest-ranked file that sets
	// it under env.
	seen := map[string]bool{}
	var names []string
	for _, f := range files {
		var env map[string]json.RawMessage
		if json.Unmarshal(f.keys["env"], &env) != nil {
			continue
		}
		names = names[:0]
		for name := range env {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if seen[name] {
				continue
			}
			seen[name] = true
			var value string
			if !f.repo || !hookStartEnv(name) || json.Unmarshal(env[name], &value) == nil && value == "" {
				continue
			}
			return "the project's " + f.path + " sets " + name + " under env, which Claude Code gives its hooks too: " + hookStartWhy(name) + "; a program the project carries can thus decide what Claude Code receives of plansmith's answers",
				"remove " + name + " from that file's env (a repository can carry one), then start Claude Code again"
		}
	}
	return "", ""
}

// hookStartEnv reports whether a variable changes how plansmith's hook
// command starts rather than only what a command of the agent's does:
// CLAUDE_CODE_SHELL_PREFIX (Claude Code runs every hook command through the
// program it names, review FD3), the dynamic loader's LD_* (the hook's
// /bin/sh loads a library LD_PRELOAD names before it starts plansmith:
// one that ended the shell at once let a touch through while planning,
// seen with 2.1.197 and 2.1.330, review FD4) and plansmith's own
// PLANSMITH_* (PLANSMITH_BIN names the binary the hook runs: a project
// script there that answered nothing did the same, FD4).
func hookStartEnv(name string) bool {
	return name == "CLAUDE_CODE_SHELL_PREFIX" || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "PLANSMITH_")
}

func hookStartWhy(name string) string {
	switch {
	case name == "CLAUDE_CODE_SHELL_PREFIX":
		return "it runs every hook, plansmith's included, through the program it names"
	case strings.HasPrefix(name, "LD_"):
		return "the shell that starts each hook loads what the dynamic loader is told to"
	}
	// Only PLANSMITH_BIN names the program; the others change what
	// plansmith's launcher does (review FI8).
	return "plansmith's hooks read their PLANSMITH_ variables (PLANSMITH_BIN names the program they run)"
}

// UnenforcedFix is what to do when Unenforced's answer for Claude Code is
// one that installing again does not change (hooksBypassed), or "".
func UnenforcedFix(e DoctorEnv) string {
	_, fix := hooksBypassed(e)
	return fix
}

// Unenforced says why no hook of plansmith's would run for a loop in the
// project for agent ("codex" for Codex CLI, else Claude Code), or "" when
// one is registered: in a settings file, as an enabled plugin or as the
// loadable plugin this binary belongs to, or in Codex's hooks file. A loop
// started where nothing runs the hooks is checked by nothing, and plan says
// so (review AN9: it claimed the session was read-only).
func Unenforced(e DoctorEnv, agent string) string {
	if agent == "codex" {
		found, _ := codexRegistrations(e)
		if len(found) == 0 {
			return "plansmith's hooks are not registered for Codex CLI"
		}
		// Registered is not enough: Codex runs a hook only once trusted
		// (review BK4: the banner promised read-only while writes went
		// through).
		s, config := found[0], filepath.Join(codexHome(e), "config.toml")
		if s.name == "project" && !codexTrusts(config, e.Project) {
			return "Codex reads .codex/hooks.json only in a trusted project, and " + e.Project + " is not marked trusted in " + config
		}
		return codexRunsHooks(e, s)
	}
	if why, _ := hooksBypassed(e); why != "" {
		return why
	}
	checks, registered, pluginEnabled := claudeRegistrations(e)
	for _, c := range checks {
		if c.Level == Problem {
			// Registered, but not whole: a settings file with only some
			// of the events, or one that cannot be read (review AX5).
			return "plansmith's hooks are not all registered (" + c.Detail + ")"
		}
	}
	if _, loadable := PluginRoot(e.Binary); len(registered) > 0 || pluginEnabled != "" || loadable {
		return ""
	}
	return "plansmith's hooks are not registered for this project (no settings file names them and this binary is not in a plugin)"
}

func registrationChecks(e DoctorEnv) []Check {
	checks, registered, pluginEnabled := claudeRegistrations(e)
	if why, fix := hooksBypassed(e); why != "" {
		checks = append(checks, Check{"hooks", Problem, why, fix})
	}
	root, loadable := PluginRoot(e.Binary)
	if pluginEnabled != "" {
		registered = append(registered, pluginEnabled)
	}
	switch {
	case len(registered) > 1:
		checks = append(checks, Check{"hooks", Problem,
			fmt.Sprintf("registered %d times — %s — so every hook runs %d times", len(registered), strings.Join(registered, "; "), len(registered)),
			"keep one: '" + templates.CLI("uninstall") + "' (project) or '" + templates.CLI("uninstall --user") + "', or disable the plugin"})
	case len(registered) == 1 && loadable && pluginEnabled == "":
		checks = append(checks, Check{"hooks", Warn,
			fmt.Sprintf("this binary also sits in a loadable plugin (%s): loading it with 'claude --plugin-dir' as well would run every hook twice", root),
			"use either the plugin or the settings registration, not both"})
	case len(registered) == 0 && loadable:
		checks = append(checks, Check{"hooks", OK,
			fmt.Sprintf("no settings registration; the plugin at %s is loadable (claude --plugin-dir %s)", root, root), ""})
	case len(registered) == 0:
		checks = append(checks, Check{"hooks", Problem, "plansmith's hooks are not registered anywhere, so no planning loop can run",
			"run '" + templates.CLI("install") + "' in the project (or '" + templates.CLI("install --user") + "'), or load the plugin with 'claude --plugin-dir'"})
	}
	if loadable {
		if c, ok := pluginPathCheck(root); ok {
			checks = append(checks, c)
		}
	}
	return checks
}

// pluginPathCheck warns about a plugin folder whose path the slash commands
// cannot hold. Claude Code writes the folder into each command's text in
// place of ${CLAUDE_PLUGIN_ROOT}, inside the double quotes of the shell line
// the agent runs ("${CLAUDE_PLUGIN_ROOT}/bin/plansmith" plan ...): a ", $, `
// or newline in it, or a \ before one of them, is read by the shell, not
// kept, and the line runs something else or nothing (review CQ, seen with
// 2.1.197 and 2.1.330; the hooks, which read the variable, are not
// affected). A Windows path's other backslashes stay as they are.
func pluginPathCheck(root string) (Check, bool) {
	i := unquotable(root)
	if i < 0 {
		return Check{}, false
	}
	return Check{"plugin folder", Warn,
		fmt.Sprintf("the plugin's path %q holds %q: Claude Code writes that path into the slash commands' shell lines, inside double quotes, where the shell reads it as code, so /plansmith:plan and the other commands run something else or fail (its hooks still run)", root, root[i:i+1]),
		"keep the plugin in a folder whose path has no \", $, ` or \\ (for a marketplace added from a folder, move that folder and add it again)"}, true
}

// sourceCheck judges one settings file's plansmith entries: every event
// present once, each running an existing executable.
func sourceCheck(e DoctorEnv, s settingsSource, regs []Registration) Check {
	fix := s.install
	if fix == "" {
		fix = "edit " + s.path + " by hand, or remove its plansmith entries and run '" + templates.CLI("install") + "'"
	} else {
		fix = "run '" + fix + "' to register this binary again"
	}
	// An event may have more than one entry (PreToolUse: the plan-mode gate
	// and the loop's policy), so entries are told apart by their subcommand.
	entry := func(r Registration) string { return r.Event + " (" + r.Hook + ")" }
	want, _ := PluginHooks(e.Binary)
	fresh, _, _ := Merge([]byte("{}"), want)
	wanted, _ := Find(fresh, e.Binary)
	count := map[string]int{}
	binaries := map[string]bool{}
	for _, r := range regs {
		count[entry(r)]++
		binaries[r.Binary] = true
	}
	var missing, doubled []string
	for _, r := range wanted {
		switch count[entry(r)] {
		case 0:
			missing = append(missing, entry(r))
		case 1:
		default:
			doubled = append(doubled, entry(r))
		}
	}
	where := s.label + " (" + s.path + ")"
	switch {
	case len(missing) > 0:
		return Check{"hooks", Problem, fmt.Sprintf("%s: no plansmith hook for %s", where, strings.Join(missing, ", ")), fix}
	case len(doubled) > 0:
		return Check{"hooks", Problem, fmt.Sprintf("%s: plansmith is registered more than once for %s", where, strings.Join(doubled, ", ")), fix}
	}
	var others []string
	for b := range binaries {
		if _, err := ResolveBinary(b); err != nil {
			return Check{"hooks", Problem, fmt.Sprintf("%s: hooks run %s, which is not an executable file (%v)", where, b, err), fix}
		}
		if b != e.Binary {
			others = append(others, b)
		}
	}
	for _, r := range regs {
		if r.Unguarded {
			return Check{"hooks", Warn, fmt.Sprintf("%s: registered by an older plansmith, whose hook commands let tool calls through should plansmith fail to start", where), fix}
		}
	}
	// An older plansmith's tools for an event: this one's hooks miss the
	// calls the older matcher leaves out (the gate's SendMessage, say).
	matchers := map[string]string{}
	for _, r := range regs {
		matchers[entry(r)] = r.Matcher
	}
	for _, r := range wanted {
		if m := matchers[entry(r)]; m != r.Matcher {
			return Check{"hooks", Warn, fmt.Sprintf("%s: %s runs for %q, not for %q as this plansmith registers it (an older plansmith wrote it, or it was edited)", where, entry(r), m, r.Matcher), fix}
		}
	}
	if len(others) > 0 {
		slices.Sort(others)
		detail := fmt.Sprintf("%s: hooks run %s, not this binary", where, strings.Join(others, ", "))
		if e.Probe != nil {
			out, err := e.Probe(others[0])
			if err != nil {
				return Check{"hooks", Problem, fmt.Sprintf("%s: hooks run %s, which fails to run (%v)", where, others[0], err), fix}
			}
			detail += " (" + strings.TrimSpace(out) + ")"
		}
		return Check{"hooks", Warn, detail, fix + " if this binary is the one to use"}
	}
	return Check{"hooks", OK, fmt.Sprintf("%s: all %d events registered, running this binary", where, len(want.Events())), ""}
}

// enabledPlugin names a plansmith plugin a settings file enables
// ("enabledPlugins": {"plansmith@market": true}).
func enabledPlugin(settings []byte) string {
	var s struct {
		Enabled map[string]any `json:"enabledPlugins"`
	}
	if json.Unmarshal(settings, &s) != nil {
		return ""
	}
	for name, on := range s.Enabled {
		if b, ok := on.(bool); ok && b && (name == "plansmith" || strings.HasPrefix(name, "plansmith@")) {
			return name
		}
	}
	return ""
}

// PluginRoot finds the plugin folder a binary belongs to, and whether
// Claude Code could load it: the launcher builds into <root>/build/, and a
// dist tree keeps <root>/bin/native/ (the platform's binary, placed by the
// launcher) and <root>/bin/prebuilt/. The nearest folder up to three levels
// above the binary that holds a plugin manifest and hooks is the root.
func PluginRoot(binary string) (string, bool) {
	first := filepath.Dir(filepath.Dir(binary))
	dir := filepath.Dir(binary)
	for i := 0; i < 3; i++ {
		dir = filepath.Dir(dir)
		if isPlugin(dir) {
			return dir, true
		}
	}
	return first, false
}

func isPlugin(root string) bool {
	for _, f := range []string{".claude-plugin/plugin.json", "hooks/hooks.json"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			return false
		}
	}
	return true
}

func loopCheck(p state.Paths, home string, now time.Time) Check {
	rel := p.Rel(p.State())
	info, err := os.Stat(p.State())
	if errors.Is(err, fs.ErrNotExist) {
		return Check{"loop", OK, "no planning loop in this project", ""}
	}
	if err != nil {
		return Check{"loop", Problem, fmt.Sprintf("cannot read %s: %v", rel, err), "check the file's permissions"}
	}
	f, err := state.Load(p.State())
	if err != nil {
		return Check{"loop", Problem, fmt.Sprintf("%s cannot be read as a loop (%v): while it is there the tool hook refuses every call that could write, and the next prompt, session start or Stop may move it aside, ending the loop", rel, unwrapCorrupt(err)),
			"run '" + templates.CLI("cancel") + "' to archive it"}
	}
	if l := f.Loop; l.Active && l.Project != "" && !samePath(l.Project, p.Project) {
		return Check{"loop", Warn, fmt.Sprintf("%s holds a loop started in another folder (%s), which the hooks leave alone (a repository can carry such a file)", rel, l.Project),
			"run '" + templates.CLI("cancel") + "' to archive it"}
	}
	if l := f.Loop; l.Active && loop.NotStartedHere(home, p, &l) {
		// Nothing the file says is repeated: a repository may have written
		// it (review AN1: its phase and a resume were reported as a loop's).
		return Check{"loop", Warn, fmt.Sprintf("%s holds a planning loop plansmith did not start on this machine (a repository can carry such a file): no session takes it on, but while it is there tool calls stay read-only", rel),
			"run '" + templates.CLI("cancel") + "' to archive it"}
	}
	return LoopCheck(rel, f.Loop, now.Sub(info.ModTime()))
}

func unwrapCorrupt(err error) error {
	var c *state.CorruptError
	if errors.As(err, &c) {
		return c.Err
	}
	return err
}

// LoopCheck judges a loop whose state file was last written idle ago.
func LoopCheck(rel string, l state.Loop, idle time.Duration) Check {
	switch {
	case !l.Active:
		return Check{"loop", OK, fmt.Sprintf("%s holds an ended loop (%s); the next '"+templates.CLI("plan")+"' archives it", rel, orNone(l.ExitReason)), ""}
	case idle > StaleAfter:
		return Check{"loop", Problem,
			fmt.Sprintf("%s is active (phase %s) but untouched for %s: a stale loop would judge unrelated replies", rel, l.Phase, roundIdle(idle)),
			"run '" + templates.CLI("cancel") + "' unless you mean to continue it"}
	case l.Paused:
		// A pause has several causes (the stop-hook cap, an answer that
		// could not be read, a plan or gate files that could not be
		// written); the message the user got at the pause says which
		// (review AN2: every pause was put down to the cap).
		return Check{"loop", Warn, fmt.Sprintf("the loop in %s is paused (phase %s) until the next message in its session", rel, l.Phase),
			"fix what the pause message named, if anything, then send any message in its session to resume; or run '" + templates.CLI("cancel") + "'"}
	default:
		return Check{"loop", OK, fmt.Sprintf("a loop is active (phase %s, last activity %s ago)", l.Phase, roundIdle(idle)), ""}
	}
}

func orNone(s string) string {
	if s == "" {
		return "no exit reason"
	}
	return s
}

func roundIdle(d time.Duration) string {
	if d < time.Minute {
		return "under a minute"
	}
	if d < 2*time.Hour {
		return d.Round(time.Minute).String()
	}
	return fmt.Sprintf("%dh", int(d.Round(time.Hour).Hours()))
}

// GateCheck reports the project's plan-mode gate switch, read by the same
// function the hooks use (planmode.LoadSetting): on unless
// `plan_mode_gate: off` is set in .claude/plansmith.yaml.
func GateCheck(project string) Check {
	const name = "plan-mode gate"
	s, err := planmode.LoadSetting(project)
	var untrusted *planmode.UntrustedOffError
	// Where the project's settings set HOME, no approval and no file of
	// the user's counts until that HOME goes (review FI3).
	const dropHome = "remove HOME from the env of the project's .claude/settings.json or settings.local.json and start Claude Code again, then "
	if errors.As(err, &untrusted) {
		fix := "read " + untrusted.Path + ", then run '" + templates.CLI("policy trust") + "' in the project to turn the gate off"
		if untrusted.ProjectHome {
			// The error's own advice would be said twice.
			return Check{name, Warn, "on: " + untrusted.Path + " turns the plan-mode gate off, but the project's Claude Code settings set HOME, so plansmith cannot tell your approvals from the repository's",
				dropHome + fix}
		}
		return Check{name, Warn, "on: " + err.Error(), fix}
	}
	if errors.Is(err, planmode.ErrProjectHome) {
		return Check{name, Problem, err.Error() + "; the gate stays on",
			dropHome + "your ~/.claude/plansmith.yaml counts; or put 'plan_mode_gate: on' in " + planmode.SettingsFile + " to keep the gate on without this problem"}
	}
	if err != nil {
		return Check{name, Problem, err.Error() + "; the gate stays on",
			"set 'plan_mode_gate: on' or 'plan_mode_gate: off' in " + planmode.SettingsFile}
	}
	switch {
	case !s.On:
		return Check{name, OK, "off (" + s.Source + "): ExitPlanMode is not gated in this project", ""}
	case s.Source != "":
		return Check{name, OK, "on (" + s.Source + ")", ""}
	}
	return Check{name, OK, "on (the default)", ""}
}

// BlockCapCheck judges CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: the number of
// consecutive Stop-hook blocks Claude Code obeys, which plansmith pauses
// before reaching.
func BlockCapCheck(v string) Check {
	const name = "stop-hook block cap"
	if strings.TrimSpace(v) == "" {
		return Check{name, OK, "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP unset: Claude Code's default of 8, and plansmith pauses before it", ""}
	}
	n := loop.BlockCap(v) // what the Stop hook reads: never more than Claude Code could
	_, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
		return Check{name, Warn, fmt.Sprintf("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%q is not a whole number; Claude Code may read it otherwise than plansmith, which pauses before %d consecutive blocks (the lowest reading)", v, n),
			"set it to a whole number, or unset it"}
	case n == 0:
		return Check{name, Warn, fmt.Sprintf("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%s disables the cap: a looping Stop hook is never cut off, and plansmith never pauses (only its retry budget ends a loop)", strings.TrimSpace(v)),
			"unset it, or set a positive number"}
	case n == loop.DefaultBlockCap:
		return Check{name, OK, "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=8, the default; plansmith pauses before it", ""}
	default:
		return Check{name, OK, fmt.Sprintf("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%d (default 8); plansmith pauses before %d consecutive blocks", n, n), ""}
	}
}

// goCheck looks for the Go toolchain, which only a source checkout's
// launcher uses (it builds build/plansmith there). A plugin tree made by
// `make dist` runs its prebuilt binary and never builds, and a settings
// install runs a built binary: for them a missing Go is no fault (review CQ:
// doctor told every user of a prebuilt plugin, who has no Go, to install it).
func goCheck(look func() (string, error), binary string) Check {
	if look == nil {
		return Check{"go toolchain", Warn, "not checked", ""}
	}
	v, err := look()
	if err != nil && !inSourceCheckout(binary) {
		return Check{"go toolchain", OK, fmt.Sprintf("not found (%v), and not needed: only a source checkout's launcher builds plansmith, and %s runs as built", err, binary), ""}
	}
	if err != nil {
		return Check{"go toolchain", Warn,
			fmt.Sprintf("not found (%v): the plugin's bin/plansmith launcher cannot build or rebuild the binary", err),
			"install Go 1.26 or newer from https://go.dev/dl/ (a settings install that points at a built binary does not need it)"}
	}
	return Check{"go toolchain", OK, v, ""}
}

// inSourceCheckout reports whether binary belongs to a plugin folder that
// holds plansmith's sources (go.mod and cmd/plansmith/), where the launcher
// builds it; a plugin tree made by `make dist` has neither.
func inSourceCheckout(binary string) bool {
	root, ok := PluginRoot(binary)
	if !ok {
		return false
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return false
	}
	info, err := os.Stat(filepath.Join(root, "cmd", "plansmith"))
	return err == nil && info.IsDir()
}

// unquotable is the index of the first byte of path that a shell does not
// keep as it is inside double quotes, or -1.
func unquotable(path string) int {
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '"', '$', '`', '\n':
			return i
		case '\\':
			if i+1 < len(path) && strings.IndexByte("\"$`\\\n", path[i+1]) >= 0 {
				return i
			}
		}
	}
	return -1
}
