package loop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathLookup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "notes"), []byte("not a program\n"), 0o644))

	assert.Nil(t, pathLookup(bin+":/usr/bin"), "every entry absolute: nothing to look up")
	assert.Nil(t, pathLookup(""), "no PATH: the shell's default")

	after := pathLookup(bin + ":/usr/bin:.")
	require.NotNil(t, after)
	assert.Empty(t, after("ls"), "found in an absolute folder before the relative one")
	assert.Contains(t, after("rg-not-installed"), `"."`, "found nowhere before it: the relative folder is searched")
	assert.Contains(t, after("notes"), `"."`, "a file that is not executable is passed over, as the shell does")

	for _, path := range []string{".:" + bin, "node_modules/.bin:" + bin, ":" + bin, bin + "::/usr/bin"} {
		l := pathLookup(path)
		require.NotNil(t, l, path)
		if strings.HasPrefix(path, bin) {
			assert.Empty(t, l("ls"), path)
			assert.Contains(t, l("cat"), "empty entry", path)
			continue
		}
		assert.Contains(t, l("ls"), "relative to where the command runs", path)
	}
}

// A project carrying bin/ls with "bin" in PATH: the shell would run it for
// ls. PreToolUse refuses, where it allows ls with an absolute PATH.
func TestPreToolUseRefusesANameARelativePathEntryFinds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	env, p := blockingLoop(t)
	require.NoError(t, os.MkdirAll(filepath.Join(p.Project, "bin"), 0o755))
	marker := filepath.Join(t.TempDir(), "ran")
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, "bin", "ls"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))

	path := "bin:" + os.Getenv("PATH")
	if sh, err := exec.LookPath("sh"); err == nil {
		cmd := exec.Command(sh, "-c", "ls >/dev/null")
		cmd.Dir = p.Project
		cmd.Env = []string{"PATH=" + path}
		require.NoError(t, cmd.Run())
		require.FileExists(t, marker, "the shell runs the project's bin/ls for ls")
	}

	judge := func(path string) ToolOutcome {
		e := env
		e.Getenv = func(k string) string {
			if k == "PATH" {
				return path
			}
			return ""
		}
		return PreToolUse(e, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: []byte(`{"command":"ls -la"}`)})
	}
	refused := judge(path)
	assert.True(t, refused.Deny)
	assert.Contains(t, refused.Reason, "path-lookup")
	assert.Contains(t, refused.Reason, `"bin"`)
	assert.False(t, judge(os.Getenv("PATH")).Deny, "with the usual absolute PATH ls is allowed")
}

// shopt and help are bash's builtins only: zsh (the Bash tool's shell on
// macOS) looks them up in PATH, so a relative entry finds a project's
// bin/shopt. They are refused there; echo, a builtin of both, is not.
func TestBashOnlyBuiltinsAreLookedUp(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	env, p := blockingLoop(t)
	require.NoError(t, os.MkdirAll(filepath.Join(p.Project, "bin"), 0o755))
	marker := filepath.Join(t.TempDir(), "ran")
	for _, name := range []string{"shopt", "help"} {
		require.NoError(t, os.WriteFile(filepath.Join(p.Project, "bin", name), []byte("#!/bin/sh\ntouch "+marker+"-"+name+"\n"), 0o755))
	}
	path := "bin:" + os.Getenv("PATH")
	if zsh, err := exec.LookPath("zsh"); err == nil {
		cmd := exec.Command(zsh, "-fc", "shopt -s nullglob; help cd")
		cmd.Dir = p.Project
		cmd.Env = []string{"PATH=" + path}
		cmd.Run()
		require.FileExists(t, marker+"-shopt", "zsh runs the project's bin/shopt")
		require.FileExists(t, marker+"-help", "zsh runs the project's bin/help")
	}
	env.Getenv = func(k string) string {
		if k == "PATH" {
			return path
		}
		return ""
	}
	judge := func(command string) ToolOutcome {
		in, err := json.Marshal(map[string]string{"command": command})
		require.NoError(t, err)
		return PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: in})
	}
	for _, command := range []string{"shopt -s nullglob", "help cd", "command shopt -p"} {
		out := judge(command)
		assert.True(t, out.Deny, command)
		assert.Contains(t, out.Reason, "path-lookup", command)
	}
	assert.False(t, judge("echo hi").Deny, "echo is a builtin in bash and zsh alike")
}
