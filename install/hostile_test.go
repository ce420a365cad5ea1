package install

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notFiles plant, at a path, what a repository can carry that is no
// regular file: a FIFO (opened, it waits for a writer that never comes)
// and a link to /dev/zero (read, it never ends).
var notFiles = map[string]func(t *testing.T, path string){
	"a FIFO": func(t *testing.T, path string) { require.NoError(t, syscall.Mkfifo(path, 0o644)) },
	"a link to /dev/zero": func(t *testing.T, path string) {
		require.NoError(t, os.Symlink("/dev/zero", path))
	},
}

// A repository may carry a .claude/settings.json that is no file: a FIFO
// (opened, it waits for a writer that never comes) or a link to /dev/zero
// (read, it never ends). install, uninstall and doctor, and `plan`, which
// asks doctor's question whether hooks check the loop, must say so and go
// on, not hang or fill memory (review BV).
func TestSettingsThatAreNoFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	kinds := maps.Clone(notFiles)
	kinds["a folder"] = func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o755)) }
	for name, plant := range kinds {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			dir := filepath.Join(w.env.Project, ".claude")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			plant(t, filepath.Join(dir, "settings.json"))
			within(t, 10*time.Second, func() {
				o := Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()}
				_, err := Install(o)
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), "not a regular file")
				}
				_, err = Uninstall(o)
				assert.Error(t, err)

				checks := Doctor(w.env)
				assert.True(t, Failed(checks))
				if got := find(checks, "hooks"); assert.NotEmpty(t, got, FormatChecks(checks)) {
					assert.Contains(t, got[0].Detail, "cannot read "+filepath.Join(dir, "settings.json")+": ")
					assert.Contains(t, got[0].Detail, "is not a regular file")
				}
				_ = Unenforced(w.env, "claude")
			})
		})
	}
}

// The files install writes beside the settings, a slash command and the
// Codex skill, are read first to see whether install wrote them: a
// repository can carry a FIFO or a link to /dev/zero at their names, and
// install (and uninstall) then waited for a writer that never came, or
// read until memory ran out. Each is named as no regular file instead.
func TestWrittenFilesThatAreNoFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	for name, plant := range notFiles {
		t.Run("a command that is "+name, func(t *testing.T) {
			w := newWorld(t)
			dir := filepath.Join(w.env.Project, ".claude")
			cmds, err := Commands(w.env.Binary)
			require.NoError(t, err)
			path := filepath.Join(dir, "commands", cmds[0].Name)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			plant(t, path)
			within(t, 10*time.Second, func() {
				o := Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()}
				_, err := Install(o)
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), path)
					assert.Contains(t, err.Error(), "not a regular file")
				}
				_, err = Uninstall(o)
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), "not a regular file")
				}
			})
		})
		t.Run("a Codex skill that is "+name, func(t *testing.T) {
			o := codexOpts(t)
			require.NoError(t, os.MkdirAll(filepath.Dir(o.SkillFile()), 0o755))
			plant(t, o.SkillFile())
			within(t, 10*time.Second, func() {
				_, err := InstallCodex(o)
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), o.SkillFile())
					assert.Contains(t, err.Error(), "not a regular file")
				}
				_, err = UninstallCodex(o)
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), "not a regular file")
				}
			})
		})
	}
}

// within runs f, failing the test if it has not returned after d.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
	}
}

// A settings file over plansmith's limit is refused for its size, and
// doctor's fix says so, not to check the file's permissions (review CQ).
func TestSettingsTooLargeToRead(t *testing.T) {
	w := newWorld(t)
	path := filepath.Join(w.env.Project, ".claude", "settings.json")
	w.write(t, path, `{"x": "`+strings.Repeat("a", settingsLimit)+`"}`)
	_, err := Install(Options{Dir: filepath.Dir(path), Binary: w.env.Binary, Now: time.Now()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than")
	got := find(Doctor(w.env), "hooks")
	require.NotEmpty(t, got)
	assert.Contains(t, got[0].Detail, "larger than")
	assert.Contains(t, got[0].Fix, "make the file smaller")
	assert.NotContains(t, got[0].Fix, "permissions")
}

// A settings or Codex hooks file that is a link (a dotfiles folder's, or
// one a repository carries to the user's own ~/.codex/hooks.json) is
// edited where it leads, as before, and the result says where: a project
// install was said to be made in the project while it changed the user's
// file for every project (review FB7).
func TestAnEditThroughALinkSaysWhereItWent(t *testing.T) {
	for _, linked := range []string{"file", "folder"} {
		t.Run("a linked "+linked, func(t *testing.T) {
			o := codexOpts(t)
			home := t.TempDir()
			own := filepath.Join(home, ".codex", "hooks.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(own), 0o755))
			require.NoError(t, os.WriteFile(own, []byte(`{"hooks":{}}`), 0o644))
			link := o.HooksFile()
			if linked == "file" {
				require.NoError(t, os.MkdirAll(o.Dir, 0o755))
				require.NoError(t, os.Symlink(own, link))
			} else {
				link = o.Dir
				require.NoError(t, os.Symlink(filepath.Dir(own), o.Dir))
			}
			res, err := InstallCodex(o)
			require.NoError(t, err)
			real, err := filepath.EvalSymlinks(own)
			require.NoError(t, err)
			assert.Contains(t, res.Lines(), "registered hooks for Stop, PreToolUse, UserPromptSubmit, SessionStart (in "+real+", where the link "+link+" leads)")
			data, err := os.ReadFile(own)
			require.NoError(t, err)
			assert.Contains(t, string(data), "hook stop --agent codex", "edited where the link leads, as before")
			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link stays")
		})
	}
	// A linked folder that holds no hooks file yet: the new file is made
	// where the link leads, and said so (review FH2: said as the
	// project's "(new file)" alone).
	o := codexOpts(t)
	own := filepath.Join(t.TempDir(), ".codex")
	require.NoError(t, os.MkdirAll(own, 0o755))
	require.NoError(t, os.Symlink(own, o.Dir))
	res, err := InstallCodex(o)
	require.NoError(t, err)
	real, err := filepath.EvalSymlinks(own)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "registered hooks for Stop, PreToolUse, UserPromptSubmit, SessionStart (in "+filepath.Join(real, "hooks.json")+", where the link "+o.Dir+" leads) (new file)")
	assert.FileExists(t, filepath.Join(own, "hooks.json"))
	w := newWorld(t)
	dir := filepath.Join(w.env.Project, ".claude")
	own = filepath.Join(t.TempDir(), ".claude")
	require.NoError(t, os.MkdirAll(own, 0o755))
	require.NoError(t, os.Symlink(own, dir))
	res, err = Install(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.NoError(t, err)
	real, err = filepath.EvalSymlinks(own)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "(in "+filepath.Join(real, "settings.json")+", where the link "+dir+" leads) (new file)")

	// The skills folder, and Claude Code's commands folder, linked to the
	// user's own: said too.
	o = codexOpts(t)
	own = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Dir(o.Skills), 0o755))
	require.NoError(t, os.Symlink(own, o.Skills))
	res, err = InstallCodex(o)
	require.NoError(t, err)
	real, err = filepath.EvalSymlinks(own)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "written to "+o.Skills+" (in "+filepath.Join(real, CodexSkill, "SKILL.md")+", where the link "+o.Skills+" leads)")
	assert.NotContains(t, strings.Split(res.Lines(), "\n")[0], "where the link", "hooks.json is no link")

	w = newWorld(t)
	dir = filepath.Join(w.env.Project, ".claude")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.Symlink(own, filepath.Join(dir, "commands")))
	res, err = Install(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.NoError(t, err)
	cmds, err := Commands(w.env.Binary)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "written (in "+filepath.Join(real, cmds[0].Name)+", where the link "+filepath.Join(dir, "commands")+" leads)")

	// No link: nothing more is said.
	o = codexOpts(t)
	res, err = InstallCodex(o)
	require.NoError(t, err)
	assert.NotContains(t, res.Lines(), "where the link")
	res, err = Install(Options{Dir: filepath.Join(newWorld(t).env.Project, ".claude"), Binary: w.env.Binary, Now: time.Now()})
	require.NoError(t, err)
	assert.NotContains(t, res.Lines(), "where the link")
}

// Uninstall removes the folders install made when nothing is left in them,
// never a link the user made to a folder of their own, whatever that folder
// holds (review FH3: os.Remove unlinked a project's .codex linked to
// ~/.codex, .agents with its skills link, and a linked .claude).
func TestUninstallKeepsLinkedFolders(t *testing.T) {
	o := codexOpts(t)
	own := t.TempDir()
	codexHome, skills := filepath.Join(own, ".codex"), filepath.Join(own, "skills")
	for _, d := range []string{codexHome, skills} {
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "keep"), []byte("x"), 0o644))
	}
	require.NoError(t, os.Symlink(codexHome, o.Dir))
	require.NoError(t, os.MkdirAll(filepath.Dir(o.Skills), 0o755))
	require.NoError(t, os.Symlink(skills, o.Skills))
	_, err := InstallCodex(o)
	require.NoError(t, err)
	res, err := UninstallCodex(o)
	require.NoError(t, err)
	assert.True(t, res.Changed(), res.Lines())
	for _, link := range []string{o.Dir, o.Skills} {
		fi, err := os.Lstat(link)
		if assert.NoError(t, err, "the user's link %s stays", link) {
			assert.NotZero(t, fi.Mode()&fs.ModeSymlink, link)
		}
	}
	assert.NoFileExists(t, filepath.Join(codexHome, "hooks.json"))
	assert.NoDirExists(t, filepath.Join(skills, CodexSkill))
	// The file removed was the user's own, and the line says so, as
	// install's does (review FI6).
	realHome, err := filepath.EvalSymlinks(codexHome)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "removed (in "+filepath.Join(realHome, "hooks.json")+", where the link "+o.Dir+" leads)")

	w := newWorld(t)
	dir := filepath.Join(w.env.Project, ".claude")
	claude := filepath.Join(t.TempDir(), "dotclaude")
	require.NoError(t, os.MkdirAll(claude, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(claude, "keep"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink(claude, dir))
	_, err = Install(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.NoError(t, err)
	res, err = Uninstall(Options{Dir: dir, Binary: w.env.Binary, Now: time.Now()})
	require.NoError(t, err)
	assert.True(t, res.Changed(), res.Lines())
	realClaude, err := filepath.EvalSymlinks(claude)
	require.NoError(t, err)
	assert.Contains(t, res.Lines(), "removed (in "+filepath.Join(realClaude, "settings.json")+", where the link "+dir+" leads)")
	fi, err := os.Lstat(dir)
	if assert.NoError(t, err, "the user's .claude link stays") {
		assert.NotZero(t, fi.Mode()&fs.ModeSymlink)
	}

	// A folder install made, left empty, still goes.
	o = codexOpts(t)
	_, err = InstallCodex(o)
	require.NoError(t, err)
	_, err = UninstallCodex(o)
	require.NoError(t, err)
	assert.NoDirExists(t, o.Dir)
	assert.NoDirExists(t, o.Skills)
}
