package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/state"
)

// The client spawns every Stop hook of one event together, plansmith's
// twice where it is registered twice (a plugin and a settings install),
// and the second must not judge the answer again (review BT1). On a loaded
// machine the second can first run after the first has judged and written
// its judgment: 7 of 10 such pairs judged a good understand answer again as
// explore's, spending a retry. When the hook began is when the process was
// started, not when it first ran. Here the second hook's process is started
// first and held (its shell waits on a FIFO) until the first has answered;
// the same answer given again by a later turn is still judged.
func TestAStopHookStartedBesideAnotherJudgesNothingHoweverLateItRuns(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process's start is read from /proc here")
	}
	// Codex runs a project's and the user's hooks.json both.
	for _, agent := range []string{"", state.AgentCodex} {
		t.Run("agent="+agent, func(t *testing.T) { stopHooksStartedTogether(t, agent) })
	}
}

func stopHooksStartedTogether(t *testing.T, agent string) {
	project := t.TempDir()
	env := loop.Env{Stderr: os.Stderr, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return project, nil }, Now: time.Now}
	_, err := loop.Start(env, state.Paths{Project: project}, loop.Options{Request: "add a cache", SessionID: "s", Agent: agent,
		Phases: []string{"understand", "explore"}, MaxRetries: 3, CritiqueMode: state.CritiquePrinciples,
		RequiredSections: []string{"Goal"}, CompletionPromise: "OK"})
	require.NoError(t, err)
	answer, err := os.ReadFile("../../demo/session/01-understand.md")
	require.NoError(t, err)
	in, err := json.Marshal(map[string]any{"session_id": "s", "turn_id": "t1", "cwd": project, "hook_event_name": "Stop",
		"stop_hook_active": false, "last_assistant_message": string(answer)})
	require.NoError(t, err)

	// The test binary is plansmith when called so (TestMain).
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "plansmith")
	require.NoError(t, os.Symlink(exe, bin))
	fifo := filepath.Join(t.TempDir(), "go")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	hook := func(wait bool) *exec.Cmd {
		script := `exec "$0" hook stop`
		if agent != "" {
			script += " --agent " + agent
		}
		if wait {
			script = `read x < "$1"; ` + script
		}
		cmd := exec.Command("sh", "-c", script, bin, fifo)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
		cmd.Stdin = strings.NewReader(string(in))
		return cmd
	}

	var late strings.Builder
	second := hook(true)
	second.Stdout = &late
	require.NoError(t, second.Start())
	t.Cleanup(func() { _ = second.Process.Kill(); _ = second.Wait() })
	// The kernel counts a process's start in ticks of 10 ms: the first
	// hook starts once the clock has left the tick the second began in,
	// so that the second is known to have been started before it.
	tick := startTick(t, second.Process.Pid)
	for bootTicks(t) <= tick+1 {
		runtime.Gosched()
	}
	first, err := hook(false).Output()
	require.NoError(t, err)
	assert.Contains(t, string(first), "understand [1/2] passed its checks")

	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, _ = w.WriteString("\n")
	require.NoError(t, w.Close())
	require.NoError(t, second.Wait())
	assert.Empty(t, late.String(), "the same Stop's second hook answers nothing, however late it ran")
	f, err := state.Load(state.Paths{Project: project}.State())
	require.NoError(t, err)
	assert.Equal(t, 0, f.Loop.RetriesTotal, "the answer was judged once")

	again, err := hook(false).Output()
	require.NoError(t, err)
	assert.Contains(t, string(again), "explore [2/2]: this answer did not pass", "the same answer given later is judged")
}

// startTick is process pid's start in /proc, in ticks since boot.
func startTick(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	require.NoError(t, err)
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	require.NoError(t, err)
	return ticks
}

// bootTicks is CLOCK_BOOTTIME, the clock /proc's start times count on, in
// ticks.
func bootTicks(t *testing.T) int64 {
	t.Helper()
	var ts unix.Timespec
	require.NoError(t, unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts))
	return ts.Nano() / int64(10*time.Millisecond)
}

func TestProcessStartedIsBeforeNow(t *testing.T) {
	started := processStarted()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		assert.True(t, started.IsZero())
		return
	}
	require.False(t, started.IsZero())
	assert.True(t, started.Before(time.Now()))
	assert.True(t, started.After(time.Now().Add(-time.Hour)))
}
