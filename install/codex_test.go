package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/templates"
)

func codexOpts(t *testing.T) CodexOptions {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	return CodexOptions{Dir: filepath.Join(dir, ".codex"), Skills: filepath.Join(dir, ".agents", "skills"), Binary: bin,
		Now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
}

const otherCodexHooks = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]}
    ],
    "SessionStart": [
      {"hooks": [{"type": "command", "command": "hello.sh"}]}
    ]
  }
}
`

func TestInstallCodexRegistersHooksAndSkill(t *testing.T) {
	o := codexOpts(t)
	res, err := InstallCodex(o)
	require.NoError(t, err)
	assert.True(t, res.Changed())

	data, err := os.ReadFile(o.HooksFile())
	require.NoError(t, err)
	regs, err := Find(data, o.Binary)
	require.NoError(t, err)
	var got []string
	for _, r := range regs {
		got = append(got, r.Event+" "+r.Hook)
		assert.Equal(t, o.Binary, r.Binary)
	}
	assert.Equal(t, []string{"Stop stop", "PreToolUse pretooluse", "UserPromptSubmit userpromptsubmit", "SessionStart sessionstart"}, got)
	assert.Contains(t, string(data), `hook pretooluse --agent codex`)

	skill, err := os.ReadFile(o.SkillFile())
	require.NoError(t, err)
	assert.Contains(t, string(skill), "name: plansmith-plan\n")
	assert.Contains(t, string(skill), Quote(o.Binary)+" plan --agent codex -- ")

	// Again: nothing changes, no backup.
	res, err = InstallCodex(o)
	require.NoError(t, err)
	assert.False(t, res.Changed(), res.Lines())
	backups, _ := filepath.Glob(o.HooksFile() + ".plansmith-backup-*")
	assert.Empty(t, backups)
}

func TestInstallCodexMergesWithOtherHooksAndUninstallRemovesExactlyItsOwn(t *testing.T) {
	o := codexOpts(t)
	require.NoError(t, os.MkdirAll(o.Dir, 0o755))
	require.NoError(t, os.WriteFile(o.HooksFile(), []byte(otherCodexHooks), 0o600))

	res, err := InstallCodex(o)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "backup: hooks.json.plansmith-backup-20261123T120000Z")
	backup, err := os.ReadFile(o.HooksFile() + ".plansmith-backup-20261123T120000Z")
	require.NoError(t, err)
	assert.Equal(t, otherCodexHooks, string(backup))
	data, err := os.ReadFile(o.HooksFile())
	require.NoError(t, err)
	assert.Contains(t, string(data), "guard.sh")
	assert.Contains(t, string(data), "hello.sh")
	info, err := os.Stat(o.HooksFile())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the file keeps its mode")

	res, err = UninstallCodex(o)
	require.NoError(t, err)
	assert.True(t, res.Changed())
	data, err = os.ReadFile(o.HooksFile())
	require.NoError(t, err)
	assert.JSONEq(t, otherCodexHooks, string(data), "only plansmith's entries went")
	_, err = os.Stat(o.SkillFile())
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(filepath.Dir(o.SkillFile()))
	assert.ErrorIs(t, err, os.ErrNotExist, "the skill's folder goes with it")
}

// Codex keys a hook's trust by its place in hooks.json: a hook the user
// added after plansmith's moves up when plansmith's go, and Codex skips it
// until trusted again, so uninstall says which moved (review BK2).
func TestUninstallCodexNamesTheHooksThatMoved(t *testing.T) {
	o := codexOpts(t)
	_, err := InstallCodex(o)
	require.NoError(t, err)
	data, err := os.ReadFile(o.HooksFile())
	require.NoError(t, err)
	var doc map[string]map[string][]any
	require.NoError(t, json.Unmarshal(data, &doc))
	doc["hooks"]["Stop"] = append(doc["hooks"]["Stop"], map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo ran >> marker"}}})
	data, err = json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(o.HooksFile(), data, 0o600))

	res, err := UninstallCodex(o)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "1 hook(s) of yours moved up to fill their place (Stop group 2 hook 1 → group 1 hook 1)")
	assert.Contains(t, res.Lines(), "trust them again in /hooks")

	// Where nothing of the user's moved, nothing is said of it.
	o = codexOpts(t)
	require.NoError(t, os.MkdirAll(o.Dir, 0o755))
	require.NoError(t, os.WriteFile(o.HooksFile(), []byte(otherCodexHooks), 0o600))
	_, err = InstallCodex(o)
	require.NoError(t, err)
	res, err = UninstallCodex(o)
	require.NoError(t, err)
	assert.NotContains(t, res.Lines(), "moved up")
}

func TestUninstallCodexRemovesAFileThatHeldOnlyPlansmith(t *testing.T) {
	o := codexOpts(t)
	_, err := InstallCodex(o)
	require.NoError(t, err)
	res, err := UninstallCodex(o)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "removed (it held only plansmith's hooks)")
	_, err = os.Stat(o.HooksFile())
	assert.ErrorIs(t, err, os.ErrNotExist)
	for _, dir := range []string{o.Dir, o.Skills, filepath.Dir(o.Skills)} {
		_, err = os.Stat(dir)
		assert.ErrorIs(t, err, os.ErrNotExist, "the folders install made are gone: %s", dir)
	}

	res, err = UninstallCodex(o)
	require.NoError(t, err)
	assert.False(t, res.Changed(), "a second uninstall has nothing to do")

	// A folder that holds something else stays.
	require.NoError(t, os.MkdirAll(o.Dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(o.Dir, "config.toml"), nil, 0o644))
	_, err = InstallCodex(o)
	require.NoError(t, err)
	_, err = UninstallCodex(o)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(o.Dir, "config.toml"))
	assert.NoError(t, err)
}

func TestCodexSkillIsKeptWhenEdited(t *testing.T) {
	o := codexOpts(t)
	_, err := InstallCodex(o)
	require.NoError(t, err)
	skill, err := os.ReadFile(o.SkillFile())
	require.NoError(t, err)
	edited := strings.Replace(string(skill), "# Plan with plansmith", "# Plan with plansmith (our team's notes)", 1)
	require.NoError(t, os.WriteFile(o.SkillFile(), []byte(edited), 0o644))

	res, err := UninstallCodex(o)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "kept: it was edited since install")
	b, err := os.ReadFile(o.SkillFile())
	require.NoError(t, err)
	assert.Equal(t, edited, string(b))
}

func TestInstallCodexRefreshesASkillForAnotherBinary(t *testing.T) {
	o := codexOpts(t)
	old := o
	old.Binary = "/old/place/plansmith"
	require.NoError(t, os.MkdirAll(filepath.Dir(o.SkillFile()), 0o755))
	text, err := CodexSkillText(old.Binary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(o.SkillFile(), text, 0o644))
	assert.True(t, isUnchangedCodexSkill(text))

	res, err := InstallCodex(o)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "updated")
	b, err := os.ReadFile(o.SkillFile())
	require.NoError(t, err)
	assert.Contains(t, string(b), Quote(o.Binary))
}

func TestInstallCodexLeavesBadJSONAlone(t *testing.T) {
	o := codexOpts(t)
	require.NoError(t, os.MkdirAll(o.Dir, 0o755))
	require.NoError(t, os.WriteFile(o.HooksFile(), []byte("{ not json"), 0o644))
	_, err := InstallCodex(o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not valid hooks JSON")
	b, _ := os.ReadFile(o.HooksFile())
	assert.Equal(t, "{ not json", string(b))
	_, err = os.Stat(o.SkillFile())
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing was written")
}

func TestCodexChecks(t *testing.T) {
	project := t.TempDir()
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	bin := codexOpts(t).Binary
	env := DoctorEnv{Project: project, Home: home, Binary: bin, Getenv: func(string) string { return "" }}

	checks := CodexChecks(env)
	require.Len(t, checks, 1)
	assert.Equal(t, OK, checks[0].Level)
	assert.Contains(t, checks[0].Detail, "not installed")

	user := CodexOptions{Dir: codexHome, Skills: filepath.Join(codexHome, "skills"), Binary: bin, Now: time.Now()}
	_, err := InstallCodex(user)
	require.NoError(t, err)
	checks = CodexChecks(env)
	require.Len(t, checks, 2)
	assert.Equal(t, OK, checks[0].Level, checks[0].Detail)
	// Registered, but Codex runs no hook it has not trusted (review BK4).
	assert.Equal(t, "codex hook trust", checks[1].Name)
	assert.Equal(t, Warn, checks[1].Level)
	assert.Contains(t, checks[1].Detail, "no trust recorded for plansmith's PreToolUse, Stop, UserPromptSubmit hooks")
	trust := func(hooksFile string) string {
		var b strings.Builder
		for _, ev := range []string{"pre_tool_use", "stop", "user_prompt_submit"} {
			fmt.Fprintf(&b, "\n[hooks.state.%q]\ntrusted_hash = \"sha256:%s\"\n", hooksFile+":"+ev+":0:0", ev)
		}
		return b.String()
	}
	require.NoError(t, os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(trust(user.HooksFile())), 0o644))
	checks = CodexChecks(env)
	require.Len(t, checks, 2)
	assert.Equal(t, OK, checks[1].Level, checks[1].Detail)
	assert.Equal(t, "", Unenforced(env, "codex"))

	// A project install as well: twice.
	proj := CodexOptions{Dir: filepath.Join(project, ".codex"), Skills: filepath.Join(project, ".agents", "skills"), Binary: bin, Now: time.Now()}
	_, err = InstallCodex(proj)
	require.NoError(t, err)
	checks = CodexChecks(env)
	require.Len(t, checks, 1)
	assert.Equal(t, Warn, checks[0].Level)
	assert.Contains(t, checks[0].Detail, "twice")

	// Only the project install, in an untrusted project; then trusted.
	_, err = UninstallCodex(user)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(trust(proj.HooksFile())), 0o644))
	checks = CodexChecks(env)
	require.Len(t, checks, 3)
	assert.Equal(t, OK, checks[0].Level)
	assert.Equal(t, "codex trust", checks[2].Name)
	assert.Equal(t, Warn, checks[2].Level)
	assert.Contains(t, Unenforced(env, "codex"), "not marked trusted")
	require.NoError(t, os.WriteFile(filepath.Join(codexHome, "config.toml"),
		[]byte("model = \"x\"\n\n[projects.\""+project+"\"]\ntrust_level = \"trusted\"\n"+trust(proj.HooksFile())), 0o644))
	checks = CodexChecks(env)
	require.Len(t, checks, 2, "trusted now")
	// Read as TOML: a comment after the value is no part of it (review
	// BN5: it was read as untrusted).
	assert.True(t, codexTrusts(writeTemp(t, "[projects.\""+project+"\"] # mine\ntrust_level = \"trusted\" # by codex\n"), project))
	assert.False(t, codexTrusts(writeTemp(t, "[projects.\""+project+"\"]\ntrust_level = \"untrusted\"\n"), project))
	assert.Equal(t, OK, checks[1].Level, checks[1].Detail)
	assert.Equal(t, "", Unenforced(env, "codex"))

	// A registration missing an event is a problem.
	data, err := os.ReadFile(proj.HooksFile())
	require.NoError(t, err)
	h, err := CodexHooks(bin)
	require.NoError(t, err)
	stop := Hooks{Binary: bin, events: h.events[:1]}
	out, _, err := Remove(data, bin)
	require.NoError(t, err)
	out, _, err = Merge(out, stop)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(proj.HooksFile(), out, 0o644))
	checks = CodexChecks(env)
	assert.Equal(t, Problem, checks[0].Level)
	assert.Contains(t, checks[0].Detail, "missing plansmith's PreToolUse, UserPromptSubmit, SessionStart hooks")
	// An install from before the SessionStart hook (review DA2): loops are
	// checked, and doctor says what the missing hook would tell.
	old := Hooks{Binary: bin, events: h.events[:3]}
	out, _, err = Remove(out, bin)
	require.NoError(t, err)
	out, _, err = Merge(out, old)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(proj.HooksFile(), out, 0o644))
	checks = CodexChecks(env)
	assert.Equal(t, Warn, checks[0].Level, checks[0].Detail)
	assert.Contains(t, checks[0].Detail, "missing plansmith's SessionStart hooks: loops are checked")
}

// The hooks feature turned off in any TOML spelling Codex reads (its own
// `codex features disable hooks` writes two of them), in the user's config
// or the project's own .codex/config.toml, which a repository can carry,
// is read as off; trust written in any of them as trusted (reviews BN2,
// BN3, BN5).
func TestCodexConfigSpellings(t *testing.T) {
	key := "/h/.codex/hooks.json:pre_tool_use:0:0"
	keys := map[string][]string{"PreToolUse": {key}}
	trusted := "[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:aa\"\n"
	for _, off := range []string{
		"[features]\nhooks = false\n",
		"features.hooks = false\n",
		"model = \"x\"\nfeatures.web_search = true\nfeatures.hooks = false\n",
		"[features] # my toggles\nhooks = false\n",
		"features = { hooks = false }\n",
		"[features]\n\"hooks\" = false\n",
		"[ \"features\" ]\nhooks = false # off for now\n",
		"[features]\r\nhooks = false\r\n",
	} {
		dir := t.TempDir()
		user, project := filepath.Join(dir, "config.toml"), filepath.Join(dir, "project.toml")
		require.NoError(t, os.WriteFile(user, []byte(off+trusted), 0o644))
		assert.Contains(t, codexUntrusted(user, "", keys), "hooks feature is turned off", "%q", off)
		require.NoError(t, os.WriteFile(user, []byte(trusted), 0o644))
		require.NoError(t, os.WriteFile(project, []byte(off), 0o644))
		assert.Contains(t, codexUntrusted(user, project, keys), "hooks feature is turned off in "+project, "%q in the project", off)
	}
	for _, ok := range []string{
		trusted,
		"[hooks.state.\"" + key + "\"] # trusted by /hooks\ntrusted_hash = \"sha256:aa\"\n",
		"[hooks.state]\n\"" + key + "\" = { trusted_hash = \"sha256:aa\" }\n",
		"hooks.state.\"" + key + "\".trusted_hash = \"sha256:aa\"\n",
		"[hooks.state.'" + key + "']\r\ntrusted_hash = 'sha256:aa'\r\n",
		trusted + "[features]\nhooks = true\n",
	} {
		user := filepath.Join(t.TempDir(), "config.toml")
		require.NoError(t, os.WriteFile(user, []byte(ok), 0o644))
		assert.Equal(t, "", codexUntrusted(user, "", keys), "%q", ok)
	}
	for _, off := range []string{
		trusted + "enabled = false\n",
		"[hooks.state]\n\"" + key + "\" = { trusted_hash = \"sha256:aa\", enabled = false }\n",
	} {
		user := filepath.Join(t.TempDir(), "config.toml")
		require.NoError(t, os.WriteFile(user, []byte(off), 0o644))
		assert.Contains(t, codexUntrusted(user, "", keys), "PreToolUse hook is turned off", "%q", off)
	}
	// Trust in the project's layer is not Codex's trust.
	dir := t.TempDir()
	user, project := filepath.Join(dir, "config.toml"), filepath.Join(dir, "project.toml")
	require.NoError(t, os.WriteFile(user, []byte("model = \"x\"\n"), 0o644))
	require.NoError(t, os.WriteFile(project, []byte(trusted), 0o644))
	assert.Contains(t, codexUntrusted(user, project, keys), "no trust recorded")
}

func writeTemp(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// The texts a Codex hook shows name the skill install writes: a loop
// starts with $plansmith-plan, Codex having no slash commands.
func TestCodexTextsNameTheSkillInstallWrites(t *testing.T) {
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindCodex, CLI: "plansmith"} })
	assert.Equal(t, "$"+CodexSkill, templates.Slash("plan"))
}

// Doctor's fixes spell plansmith as the user can run it: a prebuilt plugin
// tree puts no `plansmith` on PATH, so its fixes name the tree's launcher
// (review CQ: the Codex checks and the gate's trust said `plansmith …`).
func TestDoctorFixesNameTheBinaryAsItRuns(t *testing.T) {
	const cli = `"/opt/plugin tree/bin/plansmith"`
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: cli} })
	w := newWorld(t)
	w.env.Getenv = func(k string) string {
		if k == "CODEX_HOME" {
			return filepath.Join(w.env.Home, ".codex")
		}
		return ""
	}
	fixes := func() string {
		var b strings.Builder
		for _, c := range Doctor(w.env) {
			if strings.Contains(c.Fix, "plansmith ") {
				assert.Contains(t, c.Fix, cli, "%s: %s", c.Name, c.Fix)
			}
			b.WriteString(c.Fix + "\n")
		}
		return b.String()
	}
	assert.Contains(t, fixes(), cli+" install --agent codex [--user]", "not installed for Codex")

	o := CodexOptions{Dir: filepath.Join(w.env.Project, ".codex"), Skills: filepath.Join(w.env.Project, ".agents", "skills"), Binary: w.env.Binary, Now: time.Now()}
	_, err := InstallCodex(o)
	require.NoError(t, err)
	assert.Contains(t, fixes(), cli+" install --agent codex --trust", "hooks not trusted")
	o.Dir = filepath.Join(w.env.Home, ".codex")
	_, err = InstallCodex(o)
	require.NoError(t, err)
	assert.Contains(t, fixes(), cli+" uninstall --agent codex --user", "installed twice")

	w.write(t, filepath.Join(w.env.Project, ".claude", "plansmith.yaml"), "plan_mode_gate: off\n")
	assert.Contains(t, fixes(), cli+" policy trust")
}
