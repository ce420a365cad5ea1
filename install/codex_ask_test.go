//go:build !windows

package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeCodex writes a codex whose app-server runs body (sh) in dir.
func fakeCodex(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "codex")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
	return path
}

// answers is the app server's side of a hooks/list that lists nothing:
// initialize (id 1), the initialized notice, hooks/list (id 2).
const answers = `read l; echo '{"id":1,"result":{}}'
read l
read l; echo '{"id":2,"result":{"data":[]}}'
`

// gone waits for the process pidFile names to be gone: no such process,
// or one killed that init has not reaped yet (a zombie, where /proc tells).
func gone(t *testing.T, pidFile string) {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	}, 10*time.Second, 10*time.Millisecond, "the fake codex never started its child")
	assert.Eventually(t, func() bool {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return true
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		_, after, _ := strings.Cut(string(stat), ") ")
		return err == nil && strings.HasPrefix(after, "Z")
	}, 10*time.Second, 20*time.Millisecond,
		"process %d, started by the codex asked, outlived the question", pid)
}

// A codex that never answers is given up on when the caller's time runs
// out (doctor and the PreToolUse hook give it codexAskTimeout), and
// stopped with what it started.
func TestAskingAHungCodexIsBounded(t *testing.T) {
	dir := t.TempDir()
	pid := filepath.Join(dir, "pid")
	codex := fakeCodex(t, dir, "sleep 120 & echo $! > "+pid+"\nwait\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := CodexHookStatus(ctx, codex, dir, filepath.Join(dir, "hooks.json"), "/usr/local/bin/plansmith", os.Environ())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "timed out")
	gone(t, pid)
}

// An app server that has answered ends on its own once its input closes
// (it tidies its temporary files then: review BO10); one that does not is
// stopped, with what it started.
func TestTheAppServerIsLetEndThenStopped(t *testing.T) {
	dir := t.TempDir()
	ended := filepath.Join(dir, "ended")
	codex := fakeCodex(t, dir, answers+"while read l; do :; done; touch "+ended+"\n")
	why, err := CodexHookStatus(context.Background(), codex, dir, filepath.Join(dir, "hooks.json"), "/usr/local/bin/plansmith", os.Environ())
	require.NoError(t, err)
	assert.Contains(t, why, "Codex does not list plansmith's")
	assert.FileExists(t, ended, "the app server was not let end on its own")

	pid := filepath.Join(dir, "pid")
	codex = fakeCodex(t, dir, answers+"sleep 120 & echo $! > "+pid+"\nwait\n")
	_, err = CodexHookStatus(context.Background(), codex, dir, filepath.Join(dir, "hooks.json"), "/usr/local/bin/plansmith", os.Environ())
	require.NoError(t, err)
	gone(t, pid)
}

// What Codex wrote to its error output reaches the user readable: no
// terminal colour codes, and the error line at its end whole (review EC:
// the first 300 bytes showed colour codes and an ERROR line cut short).
func TestCodexSaidIsReadable(t *testing.T) {
	long := strings.Repeat("\x1b[2m2026-11-27T10:00:00Z\x1b[0m \x1b[32m INFO\x1b[0m starting up\n", 20)
	got := codexSaid(long + "\x1b[31mERROR\x1b[0m codex_core: project /tmp/p is not trusted\n\n")
	assert.NotContains(t, got, "\x1b")
	assert.True(t, strings.HasSuffix(got, "ERROR codex_core: project /tmp/p is not trusted"), got)
	assert.LessOrEqual(t, len(got), 400+len("…"))
	assert.Equal(t, "one / two", codexSaid("one\n\n  two  \n"))
	assert.Empty(t, codexSaid(" \n\x1b[0m\n"))

	// As an app server that fails says it.
	dir := t.TempDir()
	codex := fakeCodex(t, dir, `for i in $(seq 20); do printf '\033[2m2026-11-27T10:00:00Z\033[0m \033[32m INFO\033[0m starting up\n' >&2; done
printf '\033[31mERROR\033[0m project is not trusted\n' >&2
exit 1
`)
	_, err := CodexHookStatus(context.Background(), codex, dir, filepath.Join(dir, "hooks.json"), "/usr/local/bin/plansmith", os.Environ())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\x1b")
	assert.True(t, strings.HasSuffix(err.Error(), "ERROR project is not trusted"), err.Error())
}
