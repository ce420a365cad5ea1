package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/plansmith/plansmith/internal/plainfile"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Codex CLI reads hooks from hooks.json in $CODEX_HOME (~/.codex) or in a
// project's .codex/, in the same shape as Claude Code's settings "hooks"
// object, and skills from $CODEX_HOME/skills/<name>/SKILL.md or a project's
// .agents/skills/<name>/SKILL.md (docs/codex.md). plansmith registers its
// hooks there with `--agent codex` after the event, so ParseCommand, Merge,
// Remove and Find treat them exactly as the Claude Code ones.

// CodexOptions says where to install for Codex CLI and for which binary.
type CodexOptions struct {
	Dir    string    // the folder of hooks.json: <project>/.codex or $CODEX_HOME
	Skills string    // the skills folder: <project>/.agents/skills or $CODEX_HOME/skills
	Binary string    // absolute path of the plansmith binary the hooks run
	Now    time.Time // names the hooks.json backup
}

// HooksFile is the hooks.json install edits.
func (o CodexOptions) HooksFile() string { return filepath.Join(o.Dir, "hooks.json") }

// codexEnforcing are the events whose hooks keep a loop going and the
// project read-only: Codex must run them for a loop to be checked.
// SessionStart only tells a new thread of a loop another thread left
// (review DA2): without it, an install from before it still checks a loop.
var codexEnforcing = []string{"PreToolUse", "Stop", "UserPromptSubmit"}

// CodexSkill names the skill that starts a loop from Codex.
const CodexSkill = "plansmith-plan"

// SkillFile is where the skill goes.
func (o CodexOptions) SkillFile() string { return filepath.Join(o.Skills, CodexSkill, "SKILL.md") }

// CodexHooks is plansmith's hook registration for Codex CLI: Stop,
// PreToolUse, UserPromptSubmit and SessionStart, each running `<binary>
// hook EVENT --agent codex`.
func CodexHooks(binary string) (Hooks, error) {
	data, err := templates.Text("codex/hooks.json")
	if err != nil {
		return Hooks{}, err
	}
	return hooksFrom([]byte(data), binary)
}

// CodexSkillText is the skill file for binary.
func CodexSkillText(binary string) ([]byte, error) {
	s, err := templates.Render("codex/skill-plan.md", map[string]string{"Binary": Quote(binary)})
	return []byte(s), err
}

// InstallCodex registers the hooks in hooks.json and writes the skill. Like
// Install it changes nothing when hooks.json cannot be parsed, nothing that
// is already in place, and backs up a hooks.json it changes. A skill file
// that differs from what it would write is kept.
func InstallCodex(o CodexOptions) (Result, error) {
	return retryChanged(func() (Result, error) { return installCodex(o) })
}

func installCodex(o CodexOptions) (Result, error) {
	var r Result
	h, err := CodexHooks(o.Binary)
	if err != nil {
		return r, err
	}
	skill, err := CodexSkillText(o.Binary)
	if err != nil {
		return r, err
	}
	old, existed, err := readSettings(o.HooksFile())
	if err != nil {
		return r, err
	}
	merged, changed, err := Merge(old, h)
	if err != nil {
		return r, hooksFileError(o.HooksFile(), err)
	}
	if changed {
		did := "registered hooks for " + strings.Join(h.Events(), ", ")
		if err := writeBackedUp(o.HooksFile(), merged, old, existed, o.Now, &did); err != nil {
			return r, err
		}
		r.add("hooks.json", true, "%s", did)
	} else {
		r.add("hooks.json", false, "hooks already registered")
	}

	rel := filepath.Join(CodexSkill, "SKILL.md")
	cur, err := readWritten(o.SkillFile())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := state.WriteFile(o.SkillFile(), skill); err != nil {
			return r, err
		}
		r.add(rel, true, "written to %s%s", o.Skills, throughLink(filepath.Dir(o.Dir), o.SkillFile()))
	case err != nil:
		return r, fmt.Errorf("reading %s: %w", o.SkillFile(), err)
	case string(cur) == string(skill):
		r.add(rel, false, "already up to date")
	case isCodexSkill(cur):
		if err := state.WriteFile(o.SkillFile(), skill); err != nil {
			return r, err
		}
		r.add(rel, true, "updated (it ran another binary)")
	default:
		r.add(rel, false, "kept: plansmith install did not write it (move it away and run install again to replace it)")
	}
	return r, nil
}

// UninstallCodex takes out what InstallCodex added: plansmith's entries in
// hooks.json (other hooks stay; a file left empty is removed) and the skill,
// unless it was edited.
func UninstallCodex(o CodexOptions) (Result, error) {
	return retryChanged(func() (Result, error) { return uninstallCodex(o) })
}

func uninstallCodex(o CodexOptions) (Result, error) {
	var r Result
	old, existed, err := readSettings(o.HooksFile())
	if err != nil {
		return r, err
	}
	if existed {
		out, changed, err := Remove(old, o.Binary)
		if err != nil {
			return r, hooksFileError(o.HooksFile(), err)
		}
		switch {
		case changed && sameJSON(out, []byte("{}")) && isPlainFile(o.HooksFile()):
			if err := unchangedSince(o.HooksFile(), old); err != nil {
				return r, err
			}
			where := throughLink(filepath.Dir(o.Dir), o.HooksFile())
			if err := os.Remove(o.HooksFile()); err != nil {
				return r, fmt.Errorf("removing %s: %w", o.HooksFile(), err)
			}
			if where != "" {
				// A folder linked elsewhere: the user's own file (review FI6).
				r.add("hooks.json", true, "removed%s: it held only plansmith's hooks", where)
			} else {
				r.add("hooks.json", true, "removed (it held only plansmith's hooks)")
			}
		case changed:
			did := "removed plansmith's hooks"
			if moved := codexHooksMoved(old, out, o.Binary); len(moved) > 0 {
				// Codex keys a hook's trust by its place in the file
				// (event, group, index): a hook of the user's that moved
				// up is skipped until trusted again (review BK2).
				did += fmt.Sprintf("; %d hook(s) of yours moved up to fill their place (%s), and Codex keys a hook's trust by its place: "+
					"it will not run them until you trust them again in /hooks", len(moved), strings.Join(moved, "; "))
			}
			if err := writeBackedUp(o.HooksFile(), out, old, true, o.Now, &did); err != nil {
				return r, err
			}
			r.add("hooks.json", true, "%s", did)
		default:
			r.add("hooks.json", false, "no plansmith hooks registered")
		}
	}

	rel := filepath.Join(CodexSkill, "SKILL.md")
	cur, err := readWritten(o.SkillFile())
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return r, fmt.Errorf("reading %s: %w", o.SkillFile(), err)
	case isUnchangedCodexSkill(cur):
		if err := os.Remove(o.SkillFile()); err != nil {
			return r, fmt.Errorf("removing %s: %w", o.SkillFile(), err)
		}
		removeEmptyFolder(filepath.Dir(o.SkillFile()))
		r.add(rel, true, "removed")
	default:
		r.add(rel, false, "kept: it was edited since install, or plansmith did not write it")
	}
	if r.Changed() {
		// The folders install made, when nothing else is left in them, as
		// Uninstall does for .claude (review CQ: a project was left with an
		// empty .codex/ and .agents/skills/).
		removeEmptyFolder(o.Skills)
		if filepath.Base(filepath.Dir(o.Skills)) == ".agents" {
			removeEmptyFolder(filepath.Dir(o.Skills))
		}
		removeEmptyFolder(o.Dir)
	}
	return r, nil
}

// codexSkillMarker is in every skill file install writes.
const codexSkillMarker = "<!-- plansmith skill for Codex CLI: written by `plansmith install --agent codex`"

func isCodexSkill(data []byte) bool { return strings.Contains(string(data), codexSkillMarker) }

// isUnchangedCodexSkill reports whether data is exactly what install writes
// for some binary: the skill with that binary's path in it.
func isUnchangedCodexSkill(data []byte) bool {
	if !isCodexSkill(data) {
		return false
	}
	// The binary is the first word of the first code line that runs `plan`.
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		word, rest, ok := firstWord(line)
		if !ok || !strings.HasPrefix(strings.TrimSpace(rest), "plan --agent codex") {
			continue
		}
		want, err := CodexSkillText(word)
		return err == nil && string(want) == string(data)
	}
	return false
}

func hooksFileError(path string, err error) error {
	return fmt.Errorf("%s is not valid hooks JSON (%w); nothing was changed — fix the file, then run the command again", path, err)
}

// CodexChecks are doctor's checks of a Codex CLI installation: plansmith's
// hooks in $CODEX_HOME/hooks.json and the project's .codex/hooks.json, the
// binary they run, and the project trust Codex needs to read project hooks.
// Hook trust itself (Codex's /hooks review) is not visible from outside.
func CodexChecks(e DoctorEnv) []Check {
	found, bad := codexRegistrations(e)
	if bad != nil {
		return []Check{*bad}
	}
	home := codexHome(e)
	switch len(found) {
	case 0:
		return []Check{{Name: "codex", Level: OK, Detail: "not installed for Codex CLI", Fix: "to plan in Codex too: " + templates.CLI("install --agent codex [--user]")}}
	case 2:
		return []Check{{Name: "codex", Level: Warn, Detail: "plansmith's hooks are in both " + found[0].file + " and " + found[1].file + ": Codex would run every hook twice",
			Fix: "keep one: " + templates.CLI("uninstall --agent codex") + " (project) or " + templates.CLI("uninstall --agent codex --user")}}
	}
	s := found[0]
	want, _ := CodexHooks(e.Binary)
	var have []string
	var bins []string
	for _, r := range s.regs {
		have = append(have, r.Event)
		if r.Binary != e.Binary {
			bins = append(bins, r.Binary)
		}
	}
	var missing []string
	for _, ev := range want.Events() {
		if !strings.Contains(" "+strings.Join(have, " ")+" ", " "+ev+" ") {
			missing = append(missing, ev)
		}
	}
	flag := ""
	if s.name == "user" {
		flag = " --user"
	}
	var checks []Check
	switch {
	case len(missing) > 0 && !slices.ContainsFunc(missing, func(ev string) bool { return slices.Contains(codexEnforcing, ev) }):
		checks = append(checks, Check{Name: "codex", Level: Warn, Detail: fmt.Sprintf("%s is missing plansmith's %s hooks: loops are checked, but a thread begun while another thread's loop is active is not told of it", s.file, strings.Join(missing, ", ")),
			Fix: templates.CLI("install --agent codex"+flag) + ", then trust the new hook in codex's /hooks review (or add --trust)"})
	case len(missing) > 0:
		checks = append(checks, Check{Name: "codex", Level: Problem, Detail: fmt.Sprintf("%s is missing plansmith's %s hooks", s.file, strings.Join(missing, ", ")),
			Fix: templates.CLI("install --agent codex" + flag)})
	default:
		checks = append(checks, Check{Name: "codex", Level: OK, Detail: "hooks registered in " + s.file})
	}
	if i := slices.IndexFunc(s.regs, func(r Registration) bool { return r.Stale != "" }); i >= 0 {
		checks = append(checks, Check{Name: "codex hooks", Level: Warn,
			Detail: s.file + ": written by an older plansmith, whose hook commands, run by zsh (Codex runs hooks with your login shell; zsh is macOS's default), " + s.regs[i].Stale,
			Fix:    templates.CLI("install --agent codex" + flag + " --trust")})
	}
	if why := codexRunsHooks(e, s); why != "" {
		checks = append(checks, Check{Name: "codex hook trust", Level: Warn, Detail: why + ": a loop started in Codex would be checked by nothing",
			Fix: "trust them in codex's /hooks review, or run " + templates.CLI("install --agent codex"+flag+" --trust")})
	} else if len(missing) == 0 {
		detail := "Codex's config.toml records trust for plansmith's hooks (whether a hook changed since is Codex's to tell; codex was not found to ask)"
		if e.Codex != "" {
			detail = "Codex (" + e.Codex + ") lists plansmith's hooks trusted and enabled"
		}
		checks = append(checks, Check{Name: "codex hook trust", Level: OK, Detail: detail})
	}
	for _, b := range bins {
		if _, err := ResolveBinary(b); err != nil {
			checks = append(checks, Check{Name: "codex binary", Level: Problem, Detail: fmt.Sprintf("%s runs %s: %v", s.file, b, err),
				Fix: templates.CLI("install --agent codex" + flag)})
			break
		}
	}
	if s.name == "project" && !codexTrusts(filepath.Join(home, "config.toml"), e.Project) {
		checks = append(checks, Check{Name: "codex trust", Level: Warn,
			Detail: "Codex reads .codex/hooks.json only in a trusted project, and " + e.Project + " is not marked trusted in " + filepath.Join(home, "config.toml"),
			Fix:    "open codex in the project and trust it (or run codex exec --trust once), or install with --user"})
	}
	return checks
}

// codexSource is a Codex hooks file that registers plansmith.
type codexSource struct {
	name, file string
	data       []byte // the file's contents
	regs       []Registration
}

// codexHome is Codex's folder for the doctor's environment.
func codexHome(e DoctorEnv) string {
	getenv := func(k string) string {
		if k == "HOME" {
			return e.Home
		}
		if e.Getenv == nil {
			return ""
		}
		return e.Getenv(k)
	}
	return loop.CodexHome(getenv)
}

// codexRegistrations reads Codex's user and project hooks files: those
// that register plansmith, or the problem with one that cannot be read as
// hooks.
func codexRegistrations(e DoctorEnv) ([]codexSource, *Check) {
	home := codexHome(e)
	var found []codexSource
	for _, s := range []codexSource{{name: "user", file: filepath.Join(home, "hooks.json")}, {name: "project", file: filepath.Join(e.Project, ".codex", "hooks.json")}} {
		if s.file == "hooks.json" { // no Codex home known
			continue
		}
		data, existed, err := readSettings(s.file)
		if err != nil || !existed {
			continue
		}
		regs, err := Find(data, e.Binary)
		if err != nil {
			return nil, &Check{Name: "codex", Level: Problem, Detail: hooksFileError(s.file, err).Error()}
		}
		if len(regs) > 0 {
			s.regs, s.data = regs, data
			found = append(found, s)
		}
	}
	return found, nil
}

// codexTrusts reports whether Codex's config.toml marks project trusted:
// projects."<project>".trust_level = "trusted", read as codexUntrusted
// reads the file (tomlPairs: a comment after the value, any quoting).
func codexTrusts(configFile, project string) bool {
	data, err := plainfile.Read(configFile, codexConfigLimit)
	if err != nil {
		return false
	}
	for _, kv := range tomlPairs(string(data)) {
		if kv.key == "projects."+project+".trust_level" && strings.Trim(kv.value, `"'`) == "trusted" {
			return true
		}
	}
	return false
}

// codexOnly softens Claude Code's "hooks not registered anywhere" to a
// warning when plansmith is installed for Codex: planning works there.
// Installed twice for Codex (project and user) is installed too: codex's
// own check warns of that (review FA: "no planning loop can run", exit
// status 1, for a user whose Codex ran every hook).
// It reports whether it did: plansmith runs for Codex alone.
func codexOnly(claude []Check, e DoctorEnv) ([]Check, bool) {
	if found, bad := codexRegistrations(e); bad != nil || len(found) == 0 {
		return claude, false
	}
	out := append([]Check(nil), claude...)
	only := false
	for i, c := range out {
		if c.Name == "hooks" && c.Level == Problem && strings.Contains(c.Detail, "not registered anywhere") {
			out[i].Level = Warn
			out[i].Detail += " for Claude Code (installed for Codex only)"
			only = true
		}
	}
	return out, only
}

// forClaudeCodeOnly says of a check about a setting of Claude Code's (its
// plan mode, its cap on Stop blocks), shown where plansmith is installed
// for Codex alone, that Codex has no such thing (review FA4).
func forClaudeCodeOnly(c Check, what string) Check {
	c.Detail += " — " + what
	return c
}

// eachHookEntry calls f for each hook entry of the hooks document doc, in
// order: its event, matcher group and index in the group, and whether it
// is self's. A document that cannot be read has none.
func eachHookEntry(doc []byte, self string, f func(event string, group, index int, ours bool)) {
	d, err := loadSettings(doc)
	if err != nil {
		return
	}
	hk, err := hooksObject(d)
	if err != nil {
		return
	}
	for _, ev := range hk {
		groups, _ := parseArray(ev.value)
		for g, group := range groups {
			o, err := parseObject(group)
			if err != nil {
				continue
			}
			raw, _ := o.get("hooks")
			entries, _ := parseArray(raw)
			for i, e := range entries {
				_, _, _, ours := entryCommand(e, self)
				f(ev.key, g, i, ours)
			}
		}
	}
}

// codexHooksMoved lists the hooks in before, other than self's, whose place
// (event, matcher group, index in the group) is another in after, where
// self's entries are gone and the others keep their order. Each is told as
// "Stop group 2 hook 1 → group 1 hook 1" (counted from 1).
func codexHooksMoved(before, after []byte, self string) []string {
	places := func(doc []byte, skipOurs bool) map[string][][2]int {
		out := map[string][][2]int{}
		eachHookEntry(doc, self, func(event string, g, i int, ours bool) {
			if !ours || !skipOurs {
				out[event] = append(out[event], [2]int{g, i})
			}
		})
		return out
	}
	was, now := places(before, true), places(after, false)
	var moved []string
	events := make([]string, 0, len(was))
	for ev := range was {
		events = append(events, ev)
	}
	sort.Strings(events)
	for _, ev := range events {
		for k, p := range was[ev] {
			if k < len(now[ev]) && now[ev][k] != p {
				q := now[ev][k]
				moved = append(moved, fmt.Sprintf("%s group %d hook %d → group %d hook %d", ev, p[0]+1, p[1]+1, q[0]+1, q[1]+1))
			}
		}
	}
	return moved
}
