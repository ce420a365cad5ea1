package loop

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1.21", "1.21rc1", -1}, {"1.21rc1", "1.21rc2", -1}, {"1.21beta1", "1.21rc1", -1}, {"1.21rc2", "1.21.0", -1},
		{"1.21.0", "1.21.1", -1}, {"1.21.9", "1.22", -1}, {"1.26.8", "1.26.8", 0}, {"1.9", "1.10", -1},
		{"2.0", "1.99.9", 1}, {"1.27-mine", "1.26", 1}, {"1.26", "1.27-mine", -1},
	} {
		assert.Equal(t, c.want, goCompare(c.a, c.b), "%s vs %s", c.a, c.b)
		assert.Equal(t, -c.want, goCompare(c.b, c.a), "%s vs %s", c.b, c.a)
	}
}

// A go.mod or go.work asking for a newer Go makes go download and run it
// (GOTOOLCHAIN=auto, Go's default: the tenth review, 310 MB into the module
// cache for go version); the lookup says so, unless the user keeps go to
// its own toolchain.
func TestGoToolchain(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(root, "project")
	sub := filepath.Join(project, "cmd", "tool")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".config", "go"), 0o755))
	vars := map[string]string{"HOME": home}
	env := Env{Getenv: func(k string) string { return vars[k] }}
	goroot := filepath.Join(root, "goroot")
	require.NoError(t, os.MkdirAll(goroot, 0o755))
	local := func() (string, string, error) { return "1.26.8", goroot, nil }
	write := func(path, text string) {
		t.Helper()
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}

	assert.Empty(t, goToolchain(env, sub, local), "no module")
	write(filepath.Join(project, "go.mod"), "module x\n\ngo 1.26\n")
	assert.Empty(t, goToolchain(env, sub, local), "the go here is new enough")
	write(filepath.Join(project, "go.mod"), "module x\n\ngo 1.26\n\ntoolchain go1.26.9 // newer\n")
	why := goToolchain(env, sub, local)
	assert.Contains(t, why, "go1.26.9")
	assert.Contains(t, why, filepath.Join(project, "go.mod"))
	write(filepath.Join(project, "go.mod"), "module x\ngo 1.27.0\n")
	assert.Contains(t, goToolchain(env, sub, local), "go1.27.0", "a go line alone")
	write(filepath.Join(project, "go.mod"), "module x\ngo 1.26\ntoolchain go1.27.0-mine\n")
	assert.Contains(t, goToolchain(env, sub, local), "no Go release", "a toolchain go looks for on PATH")

	// The user keeps go to its own toolchain: in the environment or go's env file.
	vars["GOTOOLCHAIN"] = "local"
	assert.Empty(t, goToolchain(env, sub, local))
	vars["GOTOOLCHAIN"] = "go1.26.8+auto"
	assert.NotEmpty(t, goToolchain(env, sub, local), "+auto still switches")
	vars["GOTOOLCHAIN"] = "path"
	assert.NotEmpty(t, goToolchain(env, sub, local), "path runs a go1.27.0 found on PATH")
	vars["GOTOOLCHAIN"] = "go1.26.8"
	assert.Empty(t, goToolchain(env, sub, local), "one toolchain named: the user's choice")
	delete(vars, "GOTOOLCHAIN")
	userEnv := filepath.Join(home, ".config", "go", "env")
	write(userEnv, "GOFLAGS=-mod=mod\nGOTOOLCHAIN=local\n")
	assert.Empty(t, goToolchain(env, sub, local), "go env -w GOTOOLCHAIN=local")
	vars["GOENV"] = "off"
	assert.NotEmpty(t, goToolchain(env, sub, local), "GOENV=off: go reads no user file")
	delete(vars, "GOENV")
	// Read as cmd/go reads it (the review of the fix): blanks are part of
	// the key or value, so go takes no setting from these lines.
	for _, text := range []string{"GOTOOLCHAIN =local\n", " GOTOOLCHAIN=local\n", "GOTOOLCHAIN=local\nGOTOOLCHAIN=auto\n"} {
		write(userEnv, text)
		assert.NotEmpty(t, goToolchain(env, sub, local), "%q", text)
	}
	require.NoError(t, os.Remove(userEnv))
	vars["XDG_CONFIG_HOME"] = "relative"
	require.NoError(t, os.MkdirAll(filepath.Join(sub, "relative", "go"), 0o755))
	write(filepath.Join(sub, "relative", "go", "env"), "GOTOOLCHAIN=local\n")
	assert.NotEmpty(t, goToolchain(env, sub, local), "go reads no file from a relative $XDG_CONFIG_HOME")
	delete(vars, "XDG_CONFIG_HOME")
	// The installed go's own go.env: Debian's says local.
	write(filepath.Join(goroot, "go.env"), "# defaults\nGOTOOLCHAIN=local\n")
	assert.Empty(t, goToolchain(env, sub, local), "GOROOT/go.env")
	write(userEnv, "GOTOOLCHAIN=auto\n")
	assert.NotEmpty(t, goToolchain(env, sub, local), "the user's file comes before GOROOT's")
	require.NoError(t, os.Remove(userEnv))
	require.NoError(t, os.Remove(filepath.Join(goroot, "go.env")))

	// go.work comes first; GOWORK=off leaves it out.
	write(filepath.Join(project, "go.mod"), "module x\ngo 1.26\n")
	write(filepath.Join(root, "go.work"), "go 1.28\nuse ./project\n")
	assert.Contains(t, goToolchain(env, sub, local), "go.work")
	vars["GOWORK"] = "off"
	assert.Empty(t, goToolchain(env, sub, local))
	delete(vars, "GOWORK")

	assert.NotEmpty(t, goToolchain(env, sub, func() (string, string, error) { return "", "", exec.ErrNotFound }),
		"no go on the hook's PATH: the shell's may differ")
	assert.NotEmpty(t, goToolchain(env, sub, func() (string, string, error) { return "", "", errors.New("no VERSION") }), "a go whose version cannot be told")
	require.NoError(t, os.Remove(filepath.Join(root, "go.work")))
	require.NoError(t, os.Remove(filepath.Join(project, "go.mod")))
	require.NoError(t, os.Mkdir(filepath.Join(project, "go.mod"), 0o755))
	assert.Contains(t, goToolchain(env, sub, local), "cannot be read", "a go.mod that is no file")
}

// Through the hook: go is refused where the module asks for a newer Go.
func TestGoRefusedWhereTheModuleAsksForANewerGo(t *testing.T) {
	env, p, _ := guardedLoop(t)
	home := t.TempDir()
	env.Getenv = func(k string) string {
		switch k {
		case "HOME":
			return home
		case "GOTOOLCHAIN":
			return "auto"
		}
		return ""
	}
	call := ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: []byte(`{"command":"go version"}`)}
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, "go.mod"), []byte("module x\ngo 1.999\n"), 0o644))
	if _, _, err := localGo(); err != nil {
		t.Skipf("no go here to compare with: %v", err)
	}
	out := PreToolUse(env, call)
	assert.True(t, out.Deny)
	assert.Contains(t, out.Reason, "go1.999")
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, "go.mod"), []byte("module x\ngo 1.21\n"), 0o644))
	assert.False(t, PreToolUse(env, call).Deny)
}
