package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ms "github.com/plansmith/plansmith/e2e/modelserver"
)

func TestEnvironStripsTheSurroundingSession(t *testing.T) {
	for _, kv := range []string{
		"CLAUDECODE=1", "CLAUDE_CODE_SESSION_ID=outer", "CLAUDE_CODE_ENTRYPOINT=cli",
		"CLAUDE_PROJECT_DIR=/elsewhere", "CLAUDE_CONFIG_DIR=/cfg", "ANTHROPIC_AUTH_TOKEN=secret",
		"ANTHROPIC_MODEL=big", "DISABLE_AUTOUPDATER=0", "IS_SANDBOX=0", "KEEP_ME=yes",
	} {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	model := ms.New()
	defer model.Close()
	e := &Env{Home: "/tmp/home", Model: model, ExtraEnv: []string{"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=3"}}
	env := map[string][]string{}
	for _, kv := range e.environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = append(env[k], v)
	}
	want := map[string]string{
		"HOME":               "/tmp/home",
		"ANTHROPIC_BASE_URL": model.URL,
		"ANTHROPIC_API_KEY":  "test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"IS_SANDBOX":                               "1",
		"KEEP_ME":                                  "yes",
		"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP":          "3",
	}
	for k, v := range want {
		assert.Equal(t, []string{v}, env[k], k)
	}
	for _, k := range []string{"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT",
		"CLAUDE_PROJECT_DIR", "CLAUDE_CONFIG_DIR", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL"} {
		assert.NotContains(t, env, k)
	}
}

func TestLastJSONLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "one object", in: `{"a":1}` + "\n", want: `{"a":1}`},
		{name: "noise before", in: "warning: x\n{\"a\":1}\n", want: `{"a":1}`},
		{name: "last object wins", in: "{\"a\":1}\n{\"a\":2}\n\n", want: `{"a":2}`},
		{name: "no object", in: "  oops  ", want: "oops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string(lastJSONLine([]byte(tt.in))))
		})
	}
}

func TestBuildPlansmith(t *testing.T) {
	root := mustRepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "cmd", "plansmith")); err != nil {
		t.Skip("cmd/plansmith is not in this tree yet")
	}
	bin := BuildPlansmith(t)
	out, err := exec.Command(bin, "version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NotEmpty(t, strings.TrimSpace(string(out)))
}

func TestRunKillsWhatTheCLILeftBehind(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see the left-behind process")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "claude")
	// A "CLI" that leaves a background process running, as a hung hook would.
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"+
		"sleep 300 >/dev/null 2>&1 &\necho $! >child.pid\necho '{\"type\":\"result\",\"result\":\"ok\"}'\n"), 0o755))
	model := ms.New()
	defer model.Close()
	e := &Env{T: t, Claude: fake, PluginDir: dir, Project: dir, Home: dir, Model: model, PermissionMode: "default"}

	res := e.Run("hello")
	require.Equal(t, "ok", res.Result)

	pid := strings.TrimSpace(e.ProjectFile("child.pid"))
	require.NotEmpty(t, pid)
	assert.Eventually(t, func() bool {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		// Gone, or a zombie waiting for init to reap it: either way not running.
		return err != nil || strings.Contains(string(stat), ") Z ")
	}, 5*time.Second, 10*time.Millisecond, "process %s outlived the run", pid)
}

func TestParseVersions(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{
		{name: "both", in: "# comment\nCLAUDE_CODE_PINNED=2.1.197\n\nCLAUDE_CODE_NEWEST=\"2.1.330\"\n",
			want: []string{"2.1.197", "2.1.330"}},
		{name: "newest is the pinned one", in: "CLAUDE_CODE_PINNED=2.1.197\nCLAUDE_CODE_NEWEST=2.1.197\n",
			want: []string{"2.1.197"}},
		{name: "newest missing", in: "CLAUDE_CODE_PINNED=2.1.197\n",
			err: `CLAUDE_CODE_NEWEST is "", want a version`},
		{name: "not a version", in: "CLAUDE_CODE_PINNED=latest\nCLAUDE_CODE_NEWEST=2.1.330\n",
			err: `CLAUDE_CODE_PINNED is "latest"`},
		{name: "not KEY=VALUE", in: "export it\n", err: `line "export it" is not KEY=VALUE`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseVersions(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTheRepositoryTestsTwoCLIs(t *testing.T) {
	vs, err := CLIVersions()
	require.NoError(t, err)
	require.Len(t, vs, 2, "the pinned CLI and the newest")
	assert.Equal(t, "0.3.330", sdkVersion("2.1.330"))
}

func TestVersionLess(t *testing.T) {
	assert.True(t, versionLess("2.1.197", "2.1.330"))
	assert.True(t, versionLess("2.1.99", "2.1.197"), "numeric, not lexical")
	assert.False(t, versionLess("2.1.330", "2.1.330"))
	assert.False(t, versionLess("2.2.0", "2.1.330"))
	assert.Equal(t, "", (&Env{Version: "2.1.197"}).DenyPrefix("Write"))
	assert.Equal(t, "PreToolUse:Write hook error: ", (&Env{Version: "2.1.330"}).DenyPrefix("Write"))
}
