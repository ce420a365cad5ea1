package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith"
	"github.com/plansmith/plansmith/install"
)

func TestNewerSource(t *testing.T) {
	past := time.Now().Add(-time.Hour)
	cases := []struct {
		name  string
		file  string
		newer bool
	}{
		{"a go source", "state/file.go", true},
		{"a template", "templates/gate/exit/pending.md", true},
		{"go.sum", "go.sum", true},
		{"a test file", "state/file_test.go", false},
		{"test data", "testdata/script/x.txtar", false},
		{"end-to-end tests", "e2e/harness.go", false},
		{"a hidden folder", ".cache/claude-code/x.go", false},
		{"the build folder", "build/x.go", false},
		{"the dist folder", "dist/plansmith/commands/plan.md", false},
		{"a file of another kind", "state/notes.png", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			old := filepath.Join(root, "go.mod")
			require.NoError(t, os.WriteFile(old, []byte("module x\n"), 0o644))
			require.NoError(t, os.Chtimes(old, past, past))
			path := filepath.Join(root, c.file)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte("x"), 0o644))
			assert.Equal(t, c.newer, newerSource(root, past.Add(time.Minute)))
		})
	}
}

func TestCheckoutRoot(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "go.mod"), []byte("module x\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(src, "cmd", "plansmith"), 0o755))
	tree := t.TempDir() // a plugin tree: no go.mod
	assert.Equal(t, src, checkoutRoot(filepath.Join(src, "bin", "plansmith"), "/x/build/plansmith"), "started by the launcher")
	assert.Equal(t, src, checkoutRoot("", filepath.Join(src, "bin", "native", "plansmith")), "started on the hooks' fast path")
	assert.Empty(t, checkoutRoot(filepath.Join(tree, "bin", "plansmith"), ""), "a plugin tree is never rebuilt")
	assert.Empty(t, checkoutRoot("", filepath.Join(tree, "bin", "native", "plansmith")), "a plugin tree is never rebuilt")
	assert.Empty(t, checkoutRoot("", filepath.Join(src, "build", "plansmith")), "run directly, not through the plugin")
	assert.Empty(t, checkoutRoot("", "plansmith"))
}

// TestLauncherSourceCheckout runs bin/plansmith in a copy of the module: it
// builds the binary when missing, links it into bin/native/, runs it as is
// when current, and rebuilds it when a source is newer — also when the
// binary is started on the hooks' fast path, through bin/native/.
func TestLauncherSourceCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	root := t.TempDir()
	copyTree(t, repo, root)
	launcher := filepath.Join(root, "bin", "plansmith")
	bin := filepath.Join(root, "build", "plansmith")
	native := filepath.Join(root, "bin", "native", "plansmith")

	run := func(path string) string {
		cmd := exec.Command(path, "version")
		cmd.Env = append(os.Environ(), "PLANSMITH_BIN=", "PLANSMITH_LAUNCHER=", "PLANSMITH_REBUILT=", "PLANSMITH_REBUILD=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	assert.Contains(t, run(launcher), "plansmith ")
	first, err := os.Stat(bin)
	require.NoError(t, err, "the launcher builds a missing binary")
	link, err := os.Readlink(native)
	require.NoError(t, err, "the launcher links the build into bin/native/")
	assert.Equal(t, "../../build/plansmith", link)

	assert.Contains(t, run(launcher), "plansmith ")
	again, err := os.Stat(bin)
	require.NoError(t, err)
	assert.Equal(t, first.ModTime(), again.ModTime(), "a current binary is not rebuilt")

	future := time.Now().Add(time.Minute)
	src := filepath.Join(root, "templates", "cli", "started.md")
	require.NoError(t, os.Chtimes(src, future, future))
	assert.Contains(t, run(launcher), "plansmith ")
	rebuilt, err := os.Stat(bin)
	require.NoError(t, err)
	assert.True(t, rebuilt.ModTime().After(first.ModTime()), "a newer source makes the launcher rebuild")

	later := future.Add(time.Minute)
	require.NoError(t, os.Chtimes(src, later, later))
	assert.Contains(t, run(native), "plansmith ")
	fast, err := os.Stat(bin)
	require.NoError(t, err)
	assert.True(t, fast.ModTime().After(rebuilt.ModTime()), "a newer source rebuilds on the fast path too")
}

// copyTree copies the module's sources (not build output, caches or git).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			if rel != "." && ((strings.HasPrefix(d.Name(), ".") && d.Name() != ".claude-plugin") || d.Name() == "build" || d.Name() == "dist" || rel == filepath.Join("bin", "native")) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, info.Mode().Perm())
	})
	require.NoError(t, err)
}

// pluginTree makes a plugin tree like `make dist` does, with stand-in
// binaries: each prebuilt "binary" is a script that prints its own name, so
// the test sees which one the launcher chose. It returns the tree's root.
func pluginTree(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	root := t.TempDir()
	launcher, err := os.ReadFile(filepath.Join(repo, "bin", "plansmith"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bin", "prebuilt"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "plansmith"), launcher, 0o755))
	var sums strings.Builder
	for _, name := range []string{"plansmith-linux-amd64", "plansmith-linux-arm64", "plansmith-darwin-amd64", "plansmith-darwin-arm64", "plansmith-windows-amd64.exe"} {
		body := fmt.Sprintf("#!/bin/sh\necho \"%s $PLANSMITH_INSTALL $*\"\n", name)
		require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "prebuilt", name), []byte(body), 0o755))
		sum := sha256.Sum256([]byte(body))
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "prebuilt", "SHA256SUMS"), []byte(sums.String()), 0o644))
	return root
}

// toolsDir makes a PATH folder with a fake uname (printing $FAKE_S for -s
// and $FAKE_M for -m, and counting its calls in $FAKE_LOG) and links to the
// named real tools.
func toolsDir(t *testing.T, tools ...string) string {
	t.Helper()
	dir := t.TempDir()
	uname := "#!/bin/sh\necho x >>\"$FAKE_LOG\"\ncase \"$1\" in -s) echo \"$FAKE_S\" ;; -m) echo \"$FAKE_M\" ;; esac\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "uname"), []byte(uname), 0o755))
	for _, tool := range tools {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
		require.NoError(t, os.Symlink(p, filepath.Join(dir, tool)))
	}
	return dir
}

var baseTools = []string{"mkdir", "cp", "mv", "chmod", "rm"}

type launchResult struct {
	out    string
	err    error
	uname  int // calls of uname
	native string
}

func launch(t *testing.T, root, path, s, m string, args ...string) launchResult {
	t.Helper()
	log := filepath.Join(t.TempDir(), "uname.log")
	cmd := exec.Command(filepath.Join(root, "bin", "plansmith"), args...)
	cmd.Env = []string{"PATH=" + path, "FAKE_S=" + s, "FAKE_M=" + m, "FAKE_LOG=" + log, "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	r := launchResult{out: string(out), err: err}
	if data, e := os.ReadFile(log); e == nil {
		r.uname = strings.Count(string(data), "x")
	}
	for _, n := range []string{"plansmith", "plansmith.exe"} {
		if _, e := os.Stat(filepath.Join(root, "bin", "native", n)); e == nil {
			r.native = n
		}
	}
	return r
}

// TestLauncherPlatforms: each uname mapping picks its prebuilt binary, which
// is checked, placed in bin/native/ and run; the next call runs it from
// there without asking uname again.
func TestLauncherPlatforms(t *testing.T) {
	path := toolsDir(t, append(baseTools, "sha256sum")...)
	cases := []struct {
		s, m, want, native string
	}{
		{"Linux", "x86_64", "plansmith-linux-amd64", "plansmith"},
		{"Linux", "amd64", "plansmith-linux-amd64", "plansmith"},
		{"Linux", "aarch64", "plansmith-linux-arm64", "plansmith"},
		{"Linux", "arm64", "plansmith-linux-arm64", "plansmith"},
		{"Darwin", "x86_64", "plansmith-darwin-amd64", "plansmith"},
		{"Darwin", "arm64", "plansmith-darwin-arm64", "plansmith"},
		{"MINGW64_NT-10.0-19045", "x86_64", "plansmith-windows-amd64.exe", "plansmith.exe"},
		{"MSYS_NT-10.0-22631", "x86_64", "plansmith-windows-amd64.exe", "plansmith.exe"},
		{"CYGWIN_NT-10.0", "x86_64", "plansmith-windows-amd64.exe", "plansmith.exe"},
		{"MINGW64_NT-10.0-22631", "aarch64", "plansmith-windows-amd64.exe", "plansmith.exe"}, // x64 emulation on Windows on Arm
	}
	for _, c := range cases {
		t.Run(c.s+"-"+c.m, func(t *testing.T) {
			root := pluginTree(t)
			r := launch(t, root, path, c.s, c.m, "status", "--json")
			require.NoError(t, r.err, r.out)
			assert.Equal(t, c.want+" plugin status --json\n", r.out)
			assert.Equal(t, c.native, r.native)
			assert.Equal(t, 2, r.uname)

			r = launch(t, root, path, c.s, c.m, "version")
			require.NoError(t, r.err, r.out)
			assert.Equal(t, c.want+" plugin version\n", r.out)
			assert.Zero(t, r.uname, "a placed binary runs without uname or a checksum")
		})
	}
	for _, c := range []struct{ s, m, says string }{
		{"FreeBSD", "amd64", "no prebuilt binary for this system (uname -s: FreeBSD)"},
		{"Linux", "riscv64", "no prebuilt binary for this CPU (uname -m: riscv64)"},
	} {
		t.Run(c.s+"-"+c.m, func(t *testing.T) {
			root := pluginTree(t)
			r := launch(t, root, path, c.s, c.m, "version")
			require.Error(t, r.err)
			assert.Contains(t, r.out, c.says)
			assert.Contains(t, r.out, "go install github.com/plansmith/plansmith/cmd/plansmith@latest")
			assert.Empty(t, r.native)
		})
	}
}

func TestLauncherChecksums(t *testing.T) {
	t.Run("a damaged binary is refused and not placed", func(t *testing.T) {
		root := pluginTree(t)
		f := filepath.Join(root, "bin", "prebuilt", "plansmith-linux-amd64")
		require.NoError(t, os.WriteFile(f, []byte("#!/bin/sh\necho tampered\n"), 0o755))
		r := launch(t, root, toolsDir(t, append(baseTools, "sha256sum")...), "Linux", "x86_64", "version")
		require.Error(t, r.err)
		assert.Contains(t, r.out, "does not match SHA256SUMS")
		assert.NotContains(t, r.out, "tampered")
		assert.Empty(t, r.native)
		left, _ := filepath.Glob(filepath.Join(root, "bin", "native", "*"))
		assert.Empty(t, left, "no temporary copy is left behind")
	})
	t.Run("shasum -a 256 when sha256sum is missing", func(t *testing.T) {
		root := pluginTree(t)
		r := launch(t, root, toolsDir(t, append(baseTools, "shasum", "perl")...), "Darwin", "arm64", "version")
		require.NoError(t, r.err, r.out)
		assert.Equal(t, "plansmith-darwin-arm64 plugin version\n", r.out)
		assert.Equal(t, "plansmith", r.native)
	})
	t.Run("neither tool: refused, with what to do", func(t *testing.T) {
		root := pluginTree(t)
		r := launch(t, root, toolsDir(t, baseTools...), "Linux", "x86_64", "version")
		require.Error(t, r.err)
		assert.Contains(t, r.out, "neither sha256sum nor shasum is installed")
		assert.Contains(t, r.out, "cp '")
		assert.Empty(t, r.native)
	})
	t.Run("a checksum tool that fails is not a missing one", func(t *testing.T) {
		// shasum is a perl script: without its Digest::SHA it prints an
		// error and nothing else. The same befalls a prebuilt binary the
		// user may not read (a tree unpacked with umask 077). Review CQ:
		// both said "neither sha256sum nor shasum is installed".
		root := pluginTree(t)
		path := toolsDir(t, baseTools...)
		shasum := "#!/bin/sh\necho \"Can't locate Digest/SHA.pm in @INC\" >&2\nexit 2\n"
		require.NoError(t, os.WriteFile(filepath.Join(path, "shasum"), []byte(shasum), 0o755))
		r := launch(t, root, path, "Linux", "x86_64", "version")
		require.Error(t, r.err)
		assert.Contains(t, r.out, "its SHA-256 could not be computed")
		assert.NotContains(t, r.out, "is installed")
		assert.Empty(t, r.native)
		left, _ := filepath.Glob(filepath.Join(root, "bin", "native", "*"))
		assert.Empty(t, left, "no temporary copy is left behind")
	})
	t.Run("a missing platform binary says what to do", func(t *testing.T) {
		root := pluginTree(t)
		require.NoError(t, os.Remove(filepath.Join(root, "bin", "prebuilt", "plansmith-darwin-amd64")))
		r := launch(t, root, toolsDir(t, append(baseTools, "sha256sum")...), "Darwin", "x86_64", "version")
		require.Error(t, r.err)
		assert.Contains(t, r.out, "this plugin has no plansmith-darwin-amd64")
	})
	t.Run("an unwritable bin/native: checked and run in place, every time", func(t *testing.T) {
		root := pluginTree(t)
		// A file where the folder would go stands in for a read-only plugin
		// folder (root may write anywhere).
		require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "native"), nil, 0o444))
		path := toolsDir(t, append(baseTools, "sha256sum")...)
		for range 2 {
			r := launch(t, root, path, "Linux", "aarch64", "version")
			require.NoError(t, r.err, r.out)
			assert.Equal(t, "plansmith-linux-arm64 plugin version\n", r.out)
			assert.Equal(t, 2, r.uname, "nothing was placed, so each call checks again")
		}
	})
	t.Run("SHA256SUMS with CRLF line ends and no last newline", func(t *testing.T) {
		// A tree kept in git and checked out by Git for Windows with
		// core.autocrlf; the Windows binary is the list's last line.
		path := toolsDir(t, append(baseTools, "sha256sum")...)
		for _, c := range []struct{ s, want string }{
			{"Linux", "plansmith-linux-amd64"},
			{"MINGW64_NT-10.0-19045", "plansmith-windows-amd64.exe"},
		} {
			root := pluginTree(t)
			sums := filepath.Join(root, "bin", "prebuilt", "SHA256SUMS")
			data, err := os.ReadFile(sums)
			require.NoError(t, err)
			crlf := strings.TrimSuffix(strings.ReplaceAll(string(data), "\n", "\r\n"), "\r\n")
			require.NoError(t, os.WriteFile(sums, []byte(crlf), 0o644))
			r := launch(t, root, path, c.s, "x86_64", "version")
			require.NoError(t, r.err, r.out)
			assert.Equal(t, c.want+" plugin version\n", r.out)
		}
	})
	t.Run("a copy cut short by a full disk is removed, and the binary checked in place", func(t *testing.T) {
		root := pluginTree(t)
		// No ln (a file system without hard links), and a cp that writes
		// part of the file and fails, as on a full disk.
		path := toolsDir(t, "mkdir", "mv", "chmod", "rm", "sha256sum", "head")
		cp := "#!/bin/sh\nhead -c 10 \"$1\" >\"$2\"\necho 'cp: error writing: No space left on device' >&2\nexit 1\n"
		require.NoError(t, os.WriteFile(filepath.Join(path, "cp"), []byte(cp), 0o755))
		for range 2 {
			r := launch(t, root, path, "Linux", "x86_64", "version")
			require.NoError(t, r.err, r.out)
			assert.Equal(t, "plansmith-linux-amd64 plugin version\n", r.out)
		}
		left, err := filepath.Glob(filepath.Join(root, "bin", "native", "*"))
		require.NoError(t, err)
		assert.Empty(t, left, "no partial copy is left behind to keep the disk full")
	})
	t.Run("a plugin tree never builds, even with Go on PATH and newer files", func(t *testing.T) {
		root := pluginTree(t)
		future := time.Now().Add(time.Hour)
		for _, f := range []string{"bin/plansmith", "bin/prebuilt/SHA256SUMS"} {
			require.NoError(t, os.Chtimes(filepath.Join(root, f), future, future))
		}
		path := toolsDir(t, append(baseTools, "sha256sum", "go")...)
		r := launch(t, root, path, "Linux", "x86_64", "version")
		require.NoError(t, r.err, r.out)
		assert.Equal(t, "plansmith-linux-amd64 plugin version\n", r.out)
		_, err := os.Stat(filepath.Join(root, "build"))
		assert.ErrorIs(t, err, fs.ErrNotExist)
	})
}

// hooksJSON is the plugin's hooks/hooks.json: every command by its
// plansmith hook subcommand.
func hooksJSON(t *testing.T) map[string]string {
	commands, err := plansmith.HookCommands()
	require.NoError(t, err)
	return commands
}

// TestHooksJSONCommands runs hooks/hooks.json's commands the way Claude Code
// does (sh -c, CLAUDE_PLUGIN_ROOT set): a placed native binary runs directly,
// under either name; without one the launcher runs (either way with
// GOMAXPROCS=1);
// PLANSMITH_BIN still wins.
func TestHooksJSONCommands(t *testing.T) {
	commands := hooksJSON(t)
	stop := commands["stop"]
	require.NotEmpty(t, stop)

	script := func(path, says string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho \""+says+" $* ${GOMAXPROCS:-}\"\n"), 0o755))
	}
	runHook := func(root string, env ...string) string {
		cmd := exec.Command("sh", "-c", stop)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "CLAUDE_PLUGIN_ROOT=" + root}, env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	root := t.TempDir()
	script(filepath.Join(root, "bin", "plansmith"), "launcher")
	assert.Equal(t, "launcher hook stop 1\n", runHook(root))
	script(filepath.Join(root, "bin", "native", "plansmith.exe"), "native.exe")
	assert.Equal(t, "native.exe hook stop 1\n", runHook(root))
	script(filepath.Join(root, "bin", "native", "plansmith"), "native")
	assert.Equal(t, "native hook stop 1\n", runHook(root))
	assert.Equal(t, "launcher hook stop 1\n", runHook(root, "PLANSMITH_BIN=/x"), "PLANSMITH_BIN goes through the launcher")
	// Every other command has the same shape: install's
	// TestPluginHooksFailClosed.
}

// TestHooksJSONStartsNothingWithoutALoop runs each hook command of
// hooks/hooks.json in projects with and without a loop's state file: the
// commands that look for one start the binary whenever anything stands at
// .claude/plansmith.local.md (a file, a dangling link, a folder) in
// $CLAUDE_PROJECT_DIR, the working folder or a folder between the two (where
// loop.hookProject looks), or when $CLAUDE_PROJECT_DIR is unset, or when a
// .claude folder there cannot be searched (the binary then refuses what it
// cannot judge); the others always start it. loop's
// TestHooksJSONPreCheckFindsWhatHookProjectFinds holds the check to
// loop.hookProject case by case.
func TestHooksJSONStartsNothingWithoutALoop(t *testing.T) {
	commands := hooksJSON(t)
	root := t.TempDir()
	native := filepath.Join(root, "bin", "native", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
	require.NoError(t, os.WriteFile(native, []byte("#!/bin/sh\necho ran\n"), 0o755))
	project := func(t *testing.T, plant func(statePath string)) string {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
		if plant != nil {
			plant(filepath.Join(dir, ".claude", "plansmith.local.md"))
		}
		return dir
	}
	file := func(p string) { require.NoError(t, os.WriteFile(p, []byte("---\nactive: true\n---\n"), 0o644)) }
	dangling := func(p string) { require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(p), "gone"), p)) }
	folder := func(p string) { require.NoError(t, os.Mkdir(p, 0o755)) }
	empty := project(t, nil)
	unsearchable := func(t *testing.T) string {
		dir := project(t, file)
		require.NoError(t, os.Chmod(filepath.Join(dir, ".claude"), 0o600))
		t.Cleanup(func() { os.Chmod(filepath.Join(dir, ".claude"), 0o755) })
		return dir
	}
	// A loop started in mid/a (after a cd there), seen from mid/a/b.
	mid := project(t, nil)
	require.NoError(t, os.MkdirAll(filepath.Join(mid, "a", "b", ".claude"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(mid, "a", ".claude"), 0o755))
	file(filepath.Join(mid, "a", ".claude", "plansmith.local.md"))
	cases := []struct {
		name       string
		projectDir string // $CLAUDE_PROJECT_DIR; "-" leaves it unset
		cwd        string
		loop       bool
	}{
		{"no state anywhere", empty, empty, false},
		{"no state, working folder elsewhere", empty, project(t, nil), false},
		{"state in the project folder", project(t, file), empty, true},
		{"state in the working folder", empty, project(t, file), true},
		{"a dangling link at the state's name", project(t, dangling), empty, true},
		{"a folder at the state's name", project(t, folder), empty, true},
		{"a .claude folder that cannot be searched", unsearchable(t), empty, true},
		{"state in a folder between the working folder and the project folder", mid, filepath.Join(mid, "a", "b"), true},
		{"state in a folder above the project folder", filepath.Join(mid, "a", "b"), filepath.Join(mid, "a", "b"), false},
		{"project folder with a trailing slash", mid + "/", filepath.Join(mid, "a", "b"), true},
		{"project folder unknown", "-", empty, true},
		{"project folder empty", "", empty, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for ev, command := range commands {
				cmd := exec.Command("sh", "-c", command)
				cmd.Dir = c.cwd
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "CLAUDE_PLUGIN_ROOT=" + root}
				if c.projectDir != "-" {
					cmd.Env = append(cmd.Env, "CLAUDE_PROJECT_DIR="+c.projectDir)
				}
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s: %s", ev, out)
				always := ev == "pretooluse" || ev == "posttooluse" || ev == "subagentstop"
				if c.loop || always {
					assert.Equal(t, "ran\n", string(out), ev)
				} else {
					assert.Empty(t, string(out), ev)
				}
			}
		})
	}
}

// When the launcher cannot start plansmith, a hook still answers: exit
// status 1 with nothing on stdout would have the client run the tool
// unchecked (review Y, A1). A tool call is refused (exit status 2, the
// reason on stderr), a Stop tells the user, anything else fails; a
// command that is no hook fails as before. Codex's hooks, which run the
// launcher without looking for a loop first, refuse only where a loop's
// state file is.
func TestLauncherFailsClosedInHooks(t *testing.T) {
	root := pluginTree(t)
	f := filepath.Join(root, "bin", "prebuilt", "plansmith-linux-amd64")
	require.NoError(t, os.WriteFile(f, []byte("#!/bin/sh\necho tampered\n"), 0o755))
	path := toolsDir(t, append(baseTools, "sha256sum")...)
	run := func(dir string, args ...string) (stdout, stderr string, code int) {
		cmd := exec.Command(filepath.Join(root, "bin", "plansmith"), args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + path, "FAKE_S=Linux", "FAKE_M=x86_64", "FAKE_LOG=" + filepath.Join(t.TempDir(), "log"), "HOME=" + t.TempDir()}
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return o.String(), e.String(), code
	}
	dir := t.TempDir()
	for _, ev := range []string{"pretooluse-loop", "pretooluse"} {
		out, errs, code := run(dir, "hook", ev)
		assert.Equal(t, 2, code, ev)
		assert.Empty(t, out, ev)
		assert.Contains(t, errs, "does not match SHA256SUMS", ev)
		assert.Contains(t, errs, "so this tool call is refused", ev)
	}
	out, errs, code := run(dir, "hook", "stop")
	assert.Zero(t, code)
	assert.Contains(t, out, `{"systemMessage":"plansmith: its binary could not be started, so the planning loop in this project is not being checked.`)
	assert.Contains(t, errs, "does not match SHA256SUMS")
	_, _, code = run(dir, "hook", "posttooluse")
	assert.Equal(t, 1, code)
	_, errs, code = run(dir, "status")
	assert.Equal(t, 1, code, "not a hook: fails as before")
	assert.NotContains(t, errs, "tool call is refused")

	// Codex: refused where a loop's state file is, a plain failure elsewhere.
	_, _, code = run(dir, "hook", "pretooluse", "--agent", "codex")
	assert.Equal(t, 1, code, "no loop here")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	_, errs, code = run(dir, "hook", "pretooluse", "--agent", "codex")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "so this tool call is refused")
	sub := filepath.Join(dir, "internal", "api")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	_, _, code = run(sub, "hook", "pretooluse", "--agent", "codex")
	assert.Equal(t, 2, code, "a session in a subfolder of the loop's (review Z3)")

	// A settings install made from a plugin tree runs this launcher
	// (PLANSMITH_INSTALL=settings): as its own hook commands, it refuses a
	// tool call only where a loop is, and ExitPlanMode always (review BV).
	settings := func(dir string, args ...string) (string, int) {
		cmd := exec.Command(filepath.Join(root, "bin", "plansmith"), args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + path, "FAKE_S=Linux", "FAKE_M=x86_64", "FAKE_LOG=" + filepath.Join(t.TempDir(), "log"), "HOME=" + t.TempDir(), "PLANSMITH_INSTALL=settings"}
		var e strings.Builder
		cmd.Stderr = &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return e.String(), code
	}
	elsewhere := t.TempDir()
	errs, code = settings(elsewhere, "hook", "pretooluse-loop")
	assert.Equal(t, 1, code, "no loop here: %s", errs)
	assert.NotContains(t, errs, "so this tool call is refused")
	_, code = settings(elsewhere, "hook", "pretooluse")
	assert.Equal(t, 2, code, "ExitPlanMode: the plan-mode gate fails closed")
	errs, code = settings(sub, "hook", "pretooluse-loop")
	assert.Equal(t, 2, code, "a loop above: refused")
	assert.Contains(t, errs, "so this tool call is refused")
}

// The launcher's answers are install.BrokenAnswer's, written out in shell:
// the same look for a loop, the same words.
func TestLauncherAnswersAsTheHookCommandsDo(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "bin", "plansmith"))
	require.NoError(t, err)
	assert.Contains(t, string(src), "state='"+install.StateTest+"'")
	for _, ev := range []string{"pretooluse", "stop"} {
		answer := install.BrokenAnswer(ev, ":")
		_, msg, _ := strings.Cut(answer, "its binary could not be started")
		msg, _, _ = strings.Cut(msg, "'")
		msg = strings.ReplaceAll(msg, "reinstall plansmith (or, for the plugin, delete its bin/native/ folder so that its launcher places the binary again)", "$fix")
		if ev == "stop" {
			msg, _, _ = strings.Cut(strings.TrimSuffix(msg, `"}`), `"}`)
			msg = strings.ReplaceAll(msg, "$fix", "reinstall plansmith (or, for the plugin, delete its bin/native/ folder so that its launcher places the binary again)")
		}
		assert.Contains(t, string(src), "its binary could not be started"+msg, ev)
	}
}

// Hooks that start at once with no bin/native/ yet all place the same
// checked binary; each runs it (review Y, A2: GNU mv refused to rename one
// hard link onto the other and every hook but the first failed, leaving
// its temporary file behind).
func TestLauncherPlacesTheBinaryUnderARace(t *testing.T) {
	root := pluginTree(t)
	path := toolsDir(t, append(baseTools, "sha256sum", "ln")...)
	hooksAtOnce(t, root, path)
	left, err := filepath.Glob(filepath.Join(root, "bin", "native", "*"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(root, "bin", "native", "SHA256SUMS"), filepath.Join(root, "bin", "native", "plansmith")}, left, "no temporary file is left")
}

// hooksAtOnce starts twelve hooks at once in a plugin tree with no
// bin/native/ yet, and checks that each ran the binary.
func hooksAtOnce(t *testing.T, root, path string) {
	t.Helper()
	const n = 12
	outs := make([]launchResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = launch(t, root, path, "Linux", "x86_64", "hook", "pretooluse-loop")
		}()
	}
	wg.Wait()
	for i, r := range outs {
		assert.NoError(t, r.err, "hook %d: %s", i, r.out)
		assert.Equal(t, "plansmith-linux-amd64 plugin hook pretooluse-loop\n", r.out, "hook %d", i)
	}
}

// The same race with BSD mv (macOS), which renames one name of a file onto
// another as rename(2) says: it succeeds and does nothing, leaving the
// temporary name beside the placed one (review BV).
func TestLauncherPlacesTheBinaryUnderARaceWithBSDMv(t *testing.T) {
	root := pluginTree(t)
	path := toolsDir(t, "mkdir", "cp", "chmod", "rm", "sha256sum", "ln")
	realMv, err := exec.LookPath("mv")
	require.NoError(t, err)
	bsdMv := "#!/bin/sh\n[ \"$1\" = -f ] && shift\nif [ \"$1\" -ef \"$2\" ]; then exit 0; fi\nexec " + realMv + " -f \"$1\" \"$2\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(path, "mv"), []byte(bsdMv), 0o755))
	hooksAtOnce(t, root, path)
	// A hook that found the binary placed ran it; the others placed it.
	_, err = os.Stat(filepath.Join(root, "bin", "native", "plansmith"))
	require.NoError(t, err)
	left, err := filepath.Glob(filepath.Join(root, "bin", "native", "plansmith.tmp.*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary name is left")
}

// Every hooks.json command answers when its exec fails, in dash and in
// bash: a binary built for another machine in bin/native/, a launcher that
// lost its execute bit (review Y, A1, A3, A4).
func TestHooksJSONFailsClosed(t *testing.T) {
	commands := hooksJSON(t) // in pluginFailClosed's form: install's TestPluginHooksFailClosed
	root := t.TempDir()
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	native := filepath.Join(root, "bin", "native", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
	require.NoError(t, os.WriteFile(native, []byte("\x7fELF\x02\x01\x01\x00"), 0o755)) // not runnable here
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "plansmith"), []byte("#!/bin/sh\n"), 0o644))
	for _, shell := range []string{"dash", "bash"} {
		if _, err := exec.LookPath(shell); err != nil {
			continue
		}
		for ev, command := range commands {
			cmd := exec.Command(shell, "-c", command)
			cmd.Dir = project
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PROJECT_DIR=" + project}
			var o, e strings.Builder
			cmd.Stdout, cmd.Stderr = &o, &e
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			switch ev {
			case "pretooluse", "pretooluse-loop":
				assert.Equal(t, 2, code, "%s %s", shell, ev)
				assert.Contains(t, e.String(), "so this tool call is refused", "%s %s", shell, ev)
			case "stop", "userpromptsubmit", "sessionstart":
				assert.Zero(t, code, "%s %s", shell, ev)
				var msg struct{ SystemMessage string }
				require.NoError(t, json.Unmarshal([]byte(o.String()), &msg), "%s %s: %q", shell, ev, o.String())
				assert.Contains(t, msg.SystemMessage, "is not being checked", "%s %s", shell, ev)
			default:
				assert.Equal(t, 1, code, "%s %s", shell, ev)
				assert.Contains(t, e.String(), "its binary could not be started", "%s %s", shell, ev)
			}
		}
	}
}

// A checkout by Git for Windows (core.autocrlf=true) must keep the launcher
// with LF line ends, which Git Bash needs, and leave the prebuilt binaries'
// SHA256SUMS as made: .gitattributes says so in the repository, and `make
// dist` copies it into the plugin tree for a marketplace kept in git.
func TestGitKeepsTheLauncherLF(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	attrs, err := os.ReadFile(filepath.Join(repo, ".gitattributes"))
	require.NoError(t, err)
	makefile, err := os.ReadFile(filepath.Join(repo, "Makefile"))
	require.NoError(t, err)
	assert.Contains(t, string(makefile), `cp .gitattributes "$(DISTNEW)/"`, "make dist ships .gitattributes")

	// A plugin tree committed with autocrlf on, then checked out afresh.
	dir := t.TempDir()
	tree := pluginTree(t)
	require.NoError(t, os.WriteFile(filepath.Join(tree, ".gitattributes"), attrs, 0o644))
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "core.autocrlf=true", "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	}
	src := filepath.Join(dir, "src")
	require.NoError(t, os.Rename(tree, src))
	git("init", "-q", "src")
	dir = src
	git("add", "-A")
	git("commit", "-q", "-m", "tree")
	for _, f := range []string{"bin/plansmith", "bin/prebuilt/SHA256SUMS"} {
		require.NoError(t, os.Remove(filepath.Join(src, f)))
	}
	git("checkout", "--", ".")
	for _, f := range []string{"bin/plansmith", "bin/prebuilt/SHA256SUMS"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		assert.False(t, strings.Contains(string(data), "\r"), "%s has CRLF line ends after a checkout with core.autocrlf", f)
	}
}

// A newer plugin tree unpacked over an older one leaves bin/native/ (not in
// the tree) with the old binary. The launcher keeps the SHA256SUMS it
// checked against beside the binary; the binary, started from bin/native/,
// finds the tree's list different and sends the call back to the launcher
// with PLANSMITH_REPLACE=1, which places the new binary (review BV).
func TestLauncherReplacesASupersededBinary(t *testing.T) {
	path := toolsDir(t, append(baseTools, "sha256sum", "ln")...)
	root := pluginTree(t)
	r := launch(t, root, path, "Linux", "x86_64", "version")
	require.NoError(t, r.err, r.out)
	native := filepath.Join(root, "bin", "native")
	placed, err := os.ReadFile(filepath.Join(native, "SHA256SUMS"))
	require.NoError(t, err, "the list the binary was checked against is kept beside it")
	tree, err := os.ReadFile(filepath.Join(root, "bin", "prebuilt", "SHA256SUMS"))
	require.NoError(t, err)
	assert.Equal(t, string(tree), string(placed))
	launcher := filepath.Join(root, "bin", "plansmith")
	none := func(string) string { return "" }
	argv0 := filepath.Join(native, "plansmith")
	assert.Empty(t, supersededLauncher(none, argv0), "the placed binary is the tree's")

	// A newer tree over it: a new prebuilt binary and SHA256SUMS, written as
	// tar writes them (new files, not the placed binary's inode).
	prebuilt := filepath.Join(root, "bin", "prebuilt")
	bin := filepath.Join(prebuilt, "plansmith-linux-amd64")
	require.NoError(t, os.Remove(bin))
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho \"new plansmith-linux-amd64 $PLANSMITH_INSTALL $*\"\n"), 0o755))
	var sums strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(tree)), "\n") {
		name := strings.Fields(line)[1]
		data, err := os.ReadFile(filepath.Join(prebuilt, name))
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	require.NoError(t, os.Remove(filepath.Join(prebuilt, "SHA256SUMS")))
	require.NoError(t, os.WriteFile(filepath.Join(prebuilt, "SHA256SUMS"), []byte(sums.String()), 0o644))
	assert.Equal(t, launcher, supersededLauncher(none, argv0), "the tree's list differs: back to the launcher")
	assert.Empty(t, supersededLauncher(func(k string) string {
		if k == "PLANSMITH_REPLACE" {
			return "1"
		}
		return ""
	}, argv0), "once replaced, the binary runs: no loop")
	assert.Empty(t, supersededLauncher(none, filepath.Join(root, "bin", "prebuilt", "plansmith-linux-amd64")), "not a placed binary")

	cmd := exec.Command(launcher, "version")
	cmd.Env = []string{"PATH=" + path, "FAKE_S=Linux", "FAKE_M=x86_64", "FAKE_LOG=" + filepath.Join(t.TempDir(), "log"), "HOME=" + t.TempDir(), "PLANSMITH_REPLACE=1"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "new plansmith-linux-amd64 plugin version\n", string(out), "the launcher skips bin/native/ and places the tree's binary")
	r = launch(t, root, path, "Linux", "x86_64", "version")
	require.NoError(t, r.err, r.out)
	assert.Equal(t, "new plansmith-linux-amd64 plugin version\n", r.out)
	assert.Zero(t, r.uname, "placed again: runs from bin/native/")
	assert.Empty(t, supersededLauncher(none, argv0))
}

// Installed from a plugin tree made by `make dist` (run through its
// launcher, which execs the placed bin/native/plansmith), settings and Codex
// hooks run the tree's launcher, not the placed file: deleting bin/native/,
// as every "could not be started" message advises, or a newer tree, must
// not leave hooks that refuse every tool call for good (review BV).
func TestInstallFromAPluginTreeRegistersItsLauncher(t *testing.T) {
	root := pluginTree(t)
	r := launch(t, root, toolsDir(t, append(baseTools, "sha256sum", "ln")...), "Linux", "x86_64", "version")
	require.NoError(t, r.err, r.out)
	native := filepath.Join(root, "bin", "native", "plansmith")
	launcher, err := filepath.EvalSymlinks(filepath.Join(root, "bin", "plansmith"))
	require.NoError(t, err)
	got, err := selfBinary(native)
	require.NoError(t, err)
	assert.Equal(t, launcher, got)

	// Anything else registers itself.
	other := filepath.Join(t.TempDir(), "bin", "native", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	require.NoError(t, os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755))
	other, err = filepath.EvalSymlinks(other)
	require.NoError(t, err)
	got, err = selfBinary(other)
	require.NoError(t, err)
	assert.Equal(t, other, got, "no bin/prebuilt/: not a plugin tree")
	prebuilt, err := filepath.EvalSymlinks(filepath.Join(root, "bin", "prebuilt", "plansmith-linux-amd64"))
	require.NoError(t, err)
	got, err = selfBinary(prebuilt)
	require.NoError(t, err)
	assert.Equal(t, prebuilt, got)
}

// PLANSMITH_REPLACE marks one relaunch; the binary it reaches does not pass
// it on to the processes it starts (review CE).
func TestReplaceIsNotInherited(t *testing.T) {
	t.Setenv("PLANSMITH_REPLACE", "1")
	relaunchIfSuperseded(os.Getenv, filepath.Join(t.TempDir(), "bin", "native", "plansmith"))
	_, set := os.LookupEnv("PLANSMITH_REPLACE")
	assert.False(t, set)
}

// An empty file at bin/native/plansmith (a copy lost in a crash before it
// reached the disk, or the prebuilt binary it is a hard link of truncated
// in place by an update that ran out of space) is no binary: execve fails
// with ENOEXEC, and dash and bash then run the file as a shell script, which
// does nothing and exits 0. Every hook answered nothing, so a loop's tool
// calls went through, and every command "succeeded" with no output (review
// CQ). The hooks and the launcher pass it by: the launcher places the
// checked binary again, or refuses when the prebuilt is damaged too.
func TestAnEmptyPlacedBinaryIsPlacedAgain(t *testing.T) {
	commands := hooksJSON(t)
	path := toolsDir(t, append(baseTools, "sha256sum", "ln", "sh")...)
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	hook := func(root, shell, ev string) (string, string, int) {
		return runHookCommand(t, shell, commands[ev], project, "", fakeMachine(t, path, root, project))
	}
	emptied := func(t *testing.T) string {
		root := pluginTree(t)
		r := launch(t, root, path, "Linux", "x86_64", "version")
		require.NoError(t, r.err, r.out)
		native := filepath.Join(root, "bin", "native", "plansmith")
		require.NoError(t, os.Remove(native))
		require.NoError(t, os.WriteFile(native, nil, 0o755))
		return root
	}
	for _, shell := range []string{"dash", "bash"} {
		if _, err := exec.LookPath(shell); err != nil {
			continue
		}
		t.Run(shell, func(t *testing.T) {
			for _, ev := range []string{"pretooluse-loop", "pretooluse", "stop", "posttooluse"} {
				root := emptied(t)
				out, errs, code := hook(root, shell, ev)
				assert.Zero(t, code, "%s: %s", ev, errs)
				assert.Equal(t, "plansmith-linux-amd64 plugin hook "+ev+"\n", out, ev)
				info, err := os.Stat(filepath.Join(root, "bin", "native", "plansmith"))
				require.NoError(t, err)
				assert.NotZero(t, info.Size(), "%s: the checked binary is placed again", ev)
			}
		})
	}
	t.Run("the launcher", func(t *testing.T) {
		root := emptied(t)
		r := launch(t, root, path, "Linux", "x86_64", "plan", "x")
		require.NoError(t, r.err, r.out)
		assert.Equal(t, "plansmith-linux-amd64 plugin plan x\n", r.out)
	})
	t.Run("the prebuilt truncated with it: refused", func(t *testing.T) {
		root := pluginTree(t)
		r := launch(t, root, path, "Linux", "x86_64", "version")
		require.NoError(t, r.err, r.out)
		// The placed binary is a hard link of the prebuilt one: truncating
		// either in place empties both.
		require.NoError(t, os.Truncate(filepath.Join(root, "bin", "prebuilt", "plansmith-linux-amd64"), 0))
		out, errs, code := hook(root, "sh", "pretooluse-loop")
		assert.Equal(t, 2, code, "%s%s", out, errs)
		assert.Contains(t, errs, "does not match SHA256SUMS")
		assert.Contains(t, errs, "so this tool call is refused")
	})
}

// When the binary the launcher execs cannot start, dash prints only its own
// error and exits; the launcher then said nothing of its own outside a hook:
// `plansmith version` or /plansmith:plan with a binary for another machine
// in bin/native/, or a plugin on a noexec mount, failed with "Exec format
// error" or "Permission denied" and no word of plansmith's (review CQ). A
// binary in bin/native/ that will not start is replaced by this machine's
// (dash: the launcher runs again; bash, with execfail, goes on); any other
// file that will not start is named, with what to do.
func TestLauncherSaysWhichBinaryWouldNotStart(t *testing.T) {
	for _, shell := range []string{"dash", "bash"} {
		sh, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		t.Run(shell, func(t *testing.T) {
			path := toolsDir(t, append(baseTools, "sha256sum", "ln")...)
			run := func(root string) (string, error) {
				cmd := exec.Command(sh, filepath.Join(root, "bin", "plansmith"), "version")
				cmd.Env = []string{"PATH=" + path, "FAKE_S=Linux", "FAKE_M=x86_64", "FAKE_LOG=" + filepath.Join(t.TempDir(), "log"), "HOME=" + t.TempDir()}
				out, err := cmd.CombinedOutput()
				return string(out), err
			}
			placed := "/bin/../bin/native/plansmith"

			// A binary for another machine in bin/native/ (a plugin folder
			// shared by two machines): this machine's is placed and run.
			root := pluginTree(t)
			native := filepath.Join(root, "bin", "native", "plansmith")
			require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
			require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))
			out, err := run(root)
			require.NoError(t, err, out)
			assert.Contains(t, out, "plansmith-linux-amd64 plugin version\n")
			placedNow, err := os.ReadFile(native)
			require.NoError(t, err)
			assert.Contains(t, string(placedNow), "plansmith-linux-amd64")

			// The same binary in a tree whose own prebuilt is damaged: no
			// binary to place, so the launcher says which would not start.
			root = pluginTree(t)
			native = filepath.Join(root, "bin", "native", "plansmith")
			require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
			require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "prebuilt", "plansmith-linux-amd64"), []byte("#!/bin/sh\necho tampered\n"), 0o755))
			out, err = run(root)
			require.Error(t, err, out)
			assert.Contains(t, out, "does not match SHA256SUMS")
			assert.NotContains(t, out, "tampered")

			// A file that may not be run (as on a noexec mount): a prebuilt
			// without its execute bit, and a chmod that does nothing.
			root = pluginTree(t)
			require.NoError(t, os.Chmod(filepath.Join(root, "bin", "prebuilt", "plansmith-linux-amd64"), 0o644))
			chmod := filepath.Join(path, "chmod")
			require.NoError(t, os.Remove(chmod)) // a link to the real one
			require.NoError(t, os.WriteFile(chmod, []byte("#!/bin/sh\n"), 0o755))
			out, err = run(root)
			require.Error(t, err, out)
			assert.Contains(t, out, "plansmith: could not start "+root+placed)
			assert.Contains(t, out, "mounted noexec")
		})
	}
}

// foreignELF is the start of a 64-bit ELF executable for a CPU that no
// plansmith is built for (s390, e_machine 22): execve fails with ENOEXEC, as
// for a binary built for another machine.
func foreignELF() []byte {
	h := make([]byte, 64)
	copy(h, "\x7fELF\x02\x01\x01")
	h[16] = 2  // ET_EXEC
	h[18] = 22 // EM_S390
	h[20] = 1  // EV_CURRENT
	return h
}

// Where /bin/sh is bash (Fedora, Arch, RHEL, and the macOS shell), the
// launcher runs under bash. bash 5.2 with errexit exits at once with status
// 1, running no EXIT trap, when exec finds a binary it cannot run (ENOEXEC),
// even under "|| true": with a bin/native/plansmith built for another machine
// (a plugin folder shared by two machines), every hook answered nothing with
// status 1, so a loop's tool calls and ExitPlanMode went through (review CQ).
// The launcher goes on, places the checked binary and runs it.
func TestLauncherUnderBashAsShReplacesAForeignBinary(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	commands := hooksJSON(t)
	path := toolsDir(t, append(baseTools, "sha256sum", "ln")...)
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	for _, ev := range []string{"pretooluse-loop", "pretooluse", "stop"} {
		root := pluginTree(t)
		launcher := filepath.Join(root, "bin", "plansmith")
		src, err := os.ReadFile(launcher)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(launcher, []byte(strings.Replace(string(src), "#!/bin/sh\n", "#!"+bash+"\n", 1)), 0o755))
		native := filepath.Join(root, "bin", "native", "plansmith")
		require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
		require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))

		out, stderr, code := runHookCommand(t, bash, commands[ev], project, "", fakeMachine(t, path, root, project))
		require.Zero(t, code, "%s: %s", ev, stderr)
		assert.Equal(t, "plansmith-linux-amd64 plugin hook "+ev+"\n", out, ev)
	}
}

// In a plugin folder shared by a group, the prebuilt binary may be writable
// by the user (so the kernel lets them hard-link it) but owned by another
// user, who alone may change its mode. The launcher's chmod of the link
// failed, and set -e stopped it there: every call failed with only
// chmod's "Operation not permitted" and left a temporary name behind
// (review CQ). An executable file is placed as it is.
func TestLauncherPlacesABinaryItMayNotChmod(t *testing.T) {
	root := pluginTree(t)
	path := toolsDir(t, "mkdir", "cp", "mv", "rm", "sha256sum", "ln")
	chmod := "#!/bin/sh\necho \"chmod: changing permissions of '$2': Operation not permitted\" >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(path, "chmod"), []byte(chmod), 0o755))
	for range 2 {
		r := launch(t, root, path, "Linux", "x86_64", "version")
		require.NoError(t, r.err, r.out)
		assert.Equal(t, "plansmith-linux-amd64 plugin version\n", r.out)
		assert.Equal(t, "plansmith", r.native)
	}
	left, err := filepath.Glob(filepath.Join(root, "bin", "native", "*.tmp.*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary name is left")
}

// A plugin folder shared by two machines (a devcontainer that mounts
// ~/.claude, a home on NFS) holds in bin/native/ the binary of whichever
// machine placed it first. dash ends at the failed exec, and the hooks
// answered "could not be started" on the other machine: every tool call of
// a loop refused, and ExitPlanMode in every project (review CQ). They now
// run the launcher once, which places this machine's binary and runs it.
func TestHooksJSONReplaceABinaryForAnotherMachine(t *testing.T) {
	commands := hooksJSON(t)
	path := toolsDir(t, append(baseTools, "sha256sum", "ln", "sh")...)
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	for _, shell := range []string{"dash", "bash"} {
		sh, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		for ev, command := range commands {
			root := pluginTree(t)
			native := filepath.Join(root, "bin", "native", "plansmith")
			require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
			require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))
			cmd := exec.Command(sh, "-c", command)
			cmd.Dir = project
			cmd.Env = []string{"PATH=" + path, "FAKE_S=Linux", "FAKE_M=x86_64", "FAKE_LOG=" + filepath.Join(t.TempDir(), "log"),
				"HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PROJECT_DIR=" + project}
			var o, e strings.Builder
			cmd.Stdout, cmd.Stderr = &o, &e
			require.NoError(t, cmd.Run(), "%s %s: %s", shell, ev, e.String())
			assert.Equal(t, "plansmith-linux-amd64 plugin hook "+ev+"\n", o.String(), "%s %s: %s", shell, ev, e.String())
			placed, err := os.ReadFile(native)
			require.NoError(t, err)
			assert.Contains(t, string(placed), "plansmith-linux-amd64", "%s %s: this machine's binary is placed", shell, ev)
		}
	}
}

// A source checkout shared by two machines (a devcontainer that mounts the
// host's checkout) holds in build/ the binary of whichever machine built
// it. Its hooks, run through bin/native/ (a link to build/plansmith), found
// a binary that would not start and refused every tool call of a loop, and
// ExitPlanMode everywhere (review CQ). The launcher builds it again here.
// A stand-in go writes a script as the build, so nothing is compiled.
func TestLauncherRebuildsACheckoutsBinaryForAnotherMachine(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	root := t.TempDir()
	for _, dir := range []string{"bin", "cmd/plansmith", "build", "bin/native"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
	}
	launcher, err := os.ReadFile(filepath.Join(repo, "bin", "plansmith"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "plansmith"), launcher, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "build", "plansmith"), foreignELF(), 0o755))
	require.NoError(t, os.Symlink("../../build/plansmith", filepath.Join(root, "bin", "native", "plansmith")))
	path := toolsDir(t, append(baseTools, "sh")...)
	fakeGo := "#!/bin/sh\nwhile [ $# -gt 1 ]; do [ \"$1\" = -o ] && { printf '#!/bin/sh\\necho \"built here $*\"\\n' >\"$2\"; chmod 755 \"$2\"; exit; }; shift; done\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(path, "go"), []byte(fakeGo), 0o755))
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))

	cmd := exec.Command("dash", "-c", hooksJSON(t)["pretooluse-loop"])
	if _, err := exec.LookPath("dash"); err != nil {
		cmd = exec.Command("sh", "-c", hooksJSON(t)["pretooluse-loop"])
	}
	cmd.Dir = project
	cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PROJECT_DIR=" + project}
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(t, cmd.Run(), e.String())
	assert.Equal(t, "built here hook pretooluse-loop\n", o.String(), e.String())
}

// Where /bin/sh is zsh (a Mac whose /private/var/select/sh names zsh, as
// its sh(1) allows), a failed exec neither runs the EXIT trap nor goes on:
// zsh exits 126 with nothing on stdout, which Claude Code takes for a hook
// with nothing to say, so with another machine's binary in bin/native/ (or
// a plugin on a noexec mount) a loop's tool calls and ExitPlanMode went
// through (review CS). The hooks answer under zsh as sh as under dash: the
// binary that runs answers (its status and stdin passed on, once), another
// machine's is replaced, and when nothing starts the call is refused.
func TestHooksJSONFailClosedUnderZshAsSh(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh is not on PATH")
	}
	sh := filepath.Join(t.TempDir(), "sh") // zsh named sh emulates sh, as /bin/sh
	require.NoError(t, os.Symlink(zsh, sh))
	commands := hooksJSON(t)
	path := toolsDir(t, append(baseTools, "sha256sum", "ln", "sh", "cat")...)
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	run := func(root, ev string) (string, string, int) {
		return runHookCommand(t, sh, commands[ev], project, `{"hook_event_name":"x"}`, fakeMachine(t, path, root, project))
	}
	for _, ev := range []string{"pretooluse-loop", "pretooluse", "stop"} {
		// Another machine's binary: this machine's is placed and answers.
		root := pluginTree(t)
		native := filepath.Join(root, "bin", "native", "plansmith")
		require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
		require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))
		out, stderr, code := run(root, ev)
		assert.Equal(t, 0, code, "%s: %s", ev, stderr)
		assert.Equal(t, "plansmith-linux-amd64 plugin hook "+ev+"\n", out, "%s: %s", ev, stderr)

		// A binary that runs: its answer, its status and its input, once.
		// (The placed binary is a link of the prebuilt: a new file, not
		// written through it.)
		require.NoError(t, os.Remove(native))
		require.NoError(t, os.WriteFile(native, []byte("#!/bin/sh\necho \"ran $* $(cat)\"\nexit 2\n"), 0o755))
		out, stderr, code = run(root, ev)
		assert.Equal(t, 2, code, "%s: %s", ev, stderr)
		assert.Equal(t, "ran hook "+ev+` {"hook_event_name":"x"}`+"\n", out, ev)

		// A binary that started and died of a signal (a truncated binary
		// that crashes, or one killed), having read the input: zsh, which
		// runs it as a child, sees the death, and the hook answers as when
		// nothing starts (a tool call refused, not a status Claude Code
		// takes for no objection), without running the launcher again on
		// an input already read (review CU).
		for _, sig := range []string{"SEGV", "KILL"} {
			runs := filepath.Join(t.TempDir(), "runs")
			require.NoError(t, os.Remove(native))
			require.NoError(t, os.WriteFile(native, []byte("#!/bin/sh\ncat >/dev/null\necho run >>"+runs+"\nkill -"+sig+" $$\n"), 0o755))
			out, stderr, code = run(root, ev)
			if ev == "stop" {
				assert.Equal(t, 0, code, "%s: %s", sig, stderr)
				assert.Equal(t, 1, strings.Count(out, `"systemMessage":"plansmith: its binary could not be started`), "%s: %s", sig, out)
			} else {
				assert.Equal(t, 2, code, "%s %s: the call is refused: %s", ev, sig, stderr)
				assert.Contains(t, stderr, "this tool call is refused", ev)
			}
			ran, err := os.ReadFile(runs)
			require.NoError(t, err)
			assert.Equal(t, "run\n", string(ran), "%s %s: the binary ran once", ev, sig)
		}

		// Nothing starts: another machine's binary, and no launcher.
		require.NoError(t, os.Remove(native))
		require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))
		require.NoError(t, os.Remove(filepath.Join(root, "bin", "plansmith")))
		out, stderr, code = run(root, ev)
		if ev == "stop" {
			assert.Equal(t, 0, code, stderr)
			assert.Contains(t, out, `"systemMessage":"plansmith: its binary could not be started`)
			assert.Equal(t, 1, strings.Count(out, "systemMessage"), "answered once")
		} else {
			assert.Equal(t, 2, code, "%s: the call is refused: %s", ev, stderr)
			assert.Contains(t, stderr, "this tool call is refused", ev)
		}
	}
}

// A user's environment may turn on errexit in the hooks' shell: bash takes
// SHELLOPTS from the environment, as sh too (an exported SHELLOPTS carries
// set -e into every bash script). bash with execfail and errexit exits 1 at
// a failed exec without the EXIT trap (review CQ2's shape): with another
// machine's binary in bin/native/ and no launcher able to answer, a loop's
// tool call and ExitPlanMode went through (exit 1: no objection) (review
// CU). The commands turn errexit off before they start anything.
func TestHooksJSONFailClosedWithErrexit(t *testing.T) {
	commands := hooksJSON(t)
	path := toolsDir(t, append(baseTools, "sha256sum", "ln", "sh", "cat")...)
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	type shell struct{ name, path, env string }
	var shells []shell
	if bash, err := exec.LookPath("bash"); err == nil {
		sh := filepath.Join(t.TempDir(), "sh") // bash named sh, as /bin/sh
		require.NoError(t, os.Symlink(bash, sh))
		shells = append(shells, shell{"bash", bash, "SHELLOPTS=errexit"}, shell{"bash as sh", sh, "SHELLOPTS=errexit"})
	}
	if len(shells) == 0 {
		t.Skip("bash is not on PATH")
	}
	for _, sh := range shells {
		for _, ev := range []string{"pretooluse-loop", "pretooluse", "stop"} {
			root := pluginTree(t)
			native := filepath.Join(root, "bin", "native", "plansmith")
			require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
			require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))
			require.NoError(t, os.Remove(filepath.Join(root, "bin", "plansmith")))
			out, stderr, code := runHookCommand(t, sh.path, commands[ev], project, `{"hook_event_name":"x"}`,
				[]string{"PATH=" + path, "HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PROJECT_DIR=" + project, sh.env})
			if ev == "stop" {
				assert.Equal(t, 0, code, "%s %s: %s", sh.name, ev, stderr)
				assert.Equal(t, 1, strings.Count(out, `"systemMessage":"plansmith: its binary could not be started`), "%s %s: %s", sh.name, ev, stderr)
			} else {
				assert.Equal(t, 2, code, "%s %s: the call is refused: %s", sh.name, ev, stderr)
				assert.Contains(t, stderr, "this tool call is refused", "%s %s", sh.name, ev)
			}
		}
	}
}

// Where /bin/sh is busybox's ash (Alpine, whose devcontainers may mount the
// host's plugin folder), a file execve refuses is run as a shell script:
// another machine's binary in bin/native/ ended every hook with "syntax
// error" and status 2, a Stop and each prompt blocked with that for a
// reason, and the binary was never replaced (review CU). The commands now
// tell it from this machine's and place this machine's; this machine's own
// binary still runs directly.
func TestHooksJSONReplaceABinaryForAnotherMachineUnderBusybox(t *testing.T) {
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("busybox is not on PATH")
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("no /proc")
	}
	sh := filepath.Join(t.TempDir(), "sh") // busybox named sh runs ash, as /bin/sh
	require.NoError(t, os.Symlink(busybox, sh))
	commands := hooksJSON(t)
	path := toolsDir(t, append(baseTools, "sha256sum", "ln", "sh")...)
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "plansmith.local.md"), []byte("---\n"), 0o644))
	here, err := os.ReadFile("/bin/true") // a program for this machine
	if err != nil {
		t.Skip("no /bin/true")
	}
	require.NoError(t, err)
	for _, ev := range []string{"pretooluse-loop", "pretooluse", "stop", "userpromptsubmit"} {
		run := func(root string) (string, string, int) {
			return runHookCommand(t, sh, commands[ev], project, `{"hook_event_name":"x"}`, fakeMachine(t, path, root, project))
		}
		root := pluginTree(t)
		native := filepath.Join(root, "bin", "native", "plansmith")
		require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
		require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))
		out, stderr, code := run(root)
		require.Zero(t, code, "%s: %s", ev, stderr)
		assert.Equal(t, "plansmith-linux-amd64 plugin hook "+ev+"\n", out, "%s: %s", ev, stderr)
		placed, err := os.ReadFile(native)
		require.NoError(t, err)
		assert.Contains(t, string(placed), "plansmith-linux-amd64", "%s: this machine's binary is placed", ev)

		// This machine's program runs as it is: not replaced, whatever
		// its ELF ABI byte (a static build may say GNU/Linux, 3).
		require.NoError(t, os.Remove(filepath.Join(root, "bin", "plansmith")))
		gnu := append([]byte(nil), here...)
		gnu[7] = 3
		for _, prog := range [][]byte{here, gnu} {
			require.NoError(t, os.Remove(native))
			require.NoError(t, os.WriteFile(native, prog, 0o755))
			// (/bin/true: it answers nothing and exits 0; with the
			// launcher gone, a try to replace it would answer "could not
			// be started".)
			out, stderr, code = run(root)
			require.Zero(t, code, "%s: %s", ev, stderr)
			assert.Empty(t, out, ev)
			assert.Empty(t, stderr, ev)
			got, err := os.ReadFile(native)
			require.NoError(t, err)
			assert.Equal(t, prog, got, "%s: this machine's program stays", ev)
		}
	}
}

// Where /bin/sh is zsh, the launcher itself ended at a failed exec with
// zsh's own error, no word of plansmith's and no second try: a command
// (plansmith version, /plansmith:plan) with another machine's binary in
// bin/native/ failed, where dash and bash place this machine's (review
// CS). It now runs the binary as a child there, and goes on when it could
// not start.
func TestLauncherUnderZshAsShReplacesAForeignBinary(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh is not on PATH")
	}
	sh := filepath.Join(t.TempDir(), "sh") // zsh named sh emulates sh, as /bin/sh
	require.NoError(t, os.Symlink(zsh, sh))
	path := toolsDir(t, append(baseTools, "sha256sum", "ln")...)
	for _, args := range [][]string{{"version"}, {"hook", "pretooluse-loop", "--agent", "codex"}} {
		root := pluginTree(t)
		launcher := filepath.Join(root, "bin", "plansmith")
		src, err := os.ReadFile(launcher)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(launcher, []byte(strings.Replace(string(src), "#!/bin/sh\n", "#!"+sh+"\n", 1)), 0o755))
		native := filepath.Join(root, "bin", "native", "plansmith")
		require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
		require.NoError(t, os.WriteFile(native, foreignELF(), 0o755))
		r := launch(t, root, path, "Linux", "x86_64", args...)
		require.NoError(t, r.err, r.out)
		assert.Contains(t, r.out, "plansmith-linux-amd64 plugin "+strings.Join(args, " ")+"\n")
		placed, err := os.ReadFile(native)
		require.NoError(t, err)
		assert.Contains(t, string(placed), "plansmith-linux-amd64", "this machine's binary is placed")
	}
}

// runHookCommand runs a hooks.json command as Claude Code does (shell -c)
// in dir with env, stdin ("" for none), and returns its output, its
// errors and its exit code.
func runHookCommand(t *testing.T, shell, command, dir, stdin string, env []string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir, cmd.Env = dir, env
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return o.String(), e.String(), code
}

// fakeMachine is the environment of a hook on the machine the fake uname
// on path reports (Linux, x86_64), with the plugin at root.
func fakeMachine(t *testing.T, path, root, project string) []string {
	return []string{"PATH=" + path, "FAKE_S=Linux", "FAKE_M=x86_64", "FAKE_LOG=" + filepath.Join(t.TempDir(), "log"),
		"HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PROJECT_DIR=" + project}
}
