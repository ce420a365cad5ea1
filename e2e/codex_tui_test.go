package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/plansmith/plansmith/e2e/codexserver"
)

// What a Codex user sees in the interactive CLI: `codex exec` shows no
// hook's systemMessage, the TUI shows each as a "↳ Hook · <message>" line
// (seen with 0.169.0; docs/codex.md). These scenarios run Codex in a tmux
// session of its own, as cli_tmux_test.go runs Claude Code.

// startCodexTmux runs Codex interactively in e's project with args, killed
// when the test ends, past its first-run dialogs (trusting the folder,
// keeping the model asked for) to the prompt. It skips without tmux.
func startCodexTmux(t *testing.T, e *CodexEnv, args ...string) *tmuxTerm {
	t.Helper()
	tt := newTmuxTerm(t, "the interactive Codex scenarios need it")
	// The first-run dialogs answered beforehand, as Codex records them
	// (the folder trusted, the newer model's offer seen and declined).
	config := filepath.Join(e.Home, "config.toml")
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(f, "\n[tui]\nscreen_reader_detection_done = true\n[tui.model_availability_nux]\n\"gpt-6.1-sol\" = 1\n"+
		"[notice.model_migrations]\n\"gpt-5.5\" = \"gpt-6-sol\"\n[projects.%q]\ntrust_level = \"trusted\"\n", e.Project)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	tt.start(e.Home, e.environ(), e.Project, append([]string{e.Codex, "-m", CodexModel}, args...), func() { stopCodexDaemons(t, e.Home) })
	// Any dialog left, until the prompt shows and stays for three seconds
	// (a dialog may come up after the prompt is drawn).
	ready := 0
	tt.waitFor("Codex's prompt", func() bool {
		s := tt.screen()
		switch {
		case strings.Contains(s, "Trust and continue"):
			tt.keys("Enter")
		case strings.Contains(s, "Use existing model"):
			tt.keys("Down")
			time.Sleep(300 * time.Millisecond)
			tt.keys("Enter")
		case strings.Contains(s, "Ask Codex"):
			ready++
			return ready >= 3*int(time.Second/tmuxPoll)
		}
		ready = 0
		time.Sleep(200 * time.Millisecond)
		return false
	})
	return tt
}

// TestCodexNewThreadIsToldOfALoopLeftActive: the planning thread's Codex
// ends mid-loop (killed, as a crash or a closed terminal would); the next
// Codex the user starts in the project is a new thread, not part of the
// loop, and is told on its first prompt that the loop is still active there,
// how to go on with it and how to end it (review DA2: it heard nothing,
// and the loop stayed active unseen).
func TestCodexNewThreadIsToldOfALoopLeftActive(t *testing.T) {
	t.Parallel()
	bin := BuildPlansmith(t)
	asked := make(chan struct{}, 1)
	stall := make(chan struct{})
	understand := sessionText(t, "01-understand.md")
	// The new thread's reply, the TUI's title for it, and the planning
	// thread resumed, in whatever order they come.
	reply := cs.Func(func(r cs.Request) cs.Reply {
		switch {
		case strings.Contains(r.LastUserText, "task title"):
			return cs.Text("Say hello")
		case r.LastUserText == "hello":
			return cs.Text("Hello! What would you like to do?")
		case strings.Contains(strings.Join(r.Developer, "\n"), "this session is in a planning loop, at understand [1/8]") && r.LastUserText == "go on":
			return cs.Text(understand)
		case len(r.HookPrompts) == 1 && strings.Contains(r.HookPrompts[0], "Now: explore [2/8]"):
			return cs.Exec(quoteBin(bin) + " cancel")
		case len(r.Outputs) == 1 && strings.Contains(r.Outputs[0].Output, "cancel"):
			return cs.Text("The loop is cancelled.")
		}
		return cs.Text("unexpected request")
	})
	e := codexPlansmithEnv(t, bin,
		startPlan(bin, "--no-memory"),
		// The understand answer never comes: Codex is killed meanwhile.
		cs.Func(func(cs.Request) cs.Reply {
			asked <- struct{}{}
			<-stall
			return cs.Text("too late")
		}),
		reply, reply, reply, reply, reply, reply,
	)
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	first := exec.CommandContext(ctx, e.Codex, "exec", "--json", "--skip-git-repo-check", "-s", "workspace-write", "--", "$plansmith-plan "+request)
	first.Dir, first.Env = e.Project, e.environ()
	first.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	first.WaitDelay = 5 * time.Second
	var stdout strings.Builder
	first.Stdout = &stdout
	require.NoError(t, first.Start())
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("Codex never asked for the understand answer")
	}
	_ = syscall.Kill(-first.Process.Pid, syscall.SIGKILL)
	_ = first.Wait()
	close(stall)
	l := codexLoop(t, e)
	require.NotNil(t, l, "the loop is left active")
	require.True(t, l.Active)
	holder := l.SessionID
	require.NotEmpty(t, holder)
	require.Contains(t, stdout.String(), holder, "the loop is the killed thread's")

	tt := startCodexTmux(t, e, "-s", "workspace-write")
	tt.typeLine("hello")
	tt.waitFor("the reply", func() bool { return strings.Contains(tt.screen(), "What would you like to do?") })
	screen := strings.Join(strings.Fields(tt.screen()), " ")
	assert.Contains(t, screen, "↳ Hook · plansmith: a planning loop another session started is active in this project (understand [1/8])")
	assert.Contains(t, screen, "`codex resume "+holder+"` goes on with the loop")
	assert.Contains(t, screen, "cancel` ends it")

	// The planning thread resumed is told where its loop stands, its
	// answer is judged and passes, and the agent can end the loop.
	res := e.Run("go on", "-s", "workspace-write", "resume", holder)
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	assert.Equal(t, []string{understand, "The loop is cancelled."}, res.Messages)
	assert.Nil(t, codexLoop(t, e), "cancelled")
	archived, _ := filepath.Glob(filepath.Join(e.Project, ".claude", "plansmith", "archive", "*-cancelled.md"))
	assert.Len(t, archived, 1)
}

// stopCodexDaemons ends the app-server daemon the interactive CLI starts
// (0.169.0: `codex app-server --managed-daemon` and its pid-update-loop, run
// from a copy under CODEX_HOME/packages, in a session of their own): it
// outlives the CLI and would go on writing into CODEX_HOME after the test
// removed it. Only processes run from under home are ended.
func stopCodexDaemons(t *testing.T, home string) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/exe")
	prefix := filepath.Join(home, "packages") + string(filepath.Separator)
	var ended []int
	for _, exe := range procs {
		target, err := os.Readlink(exe)
		if err != nil || !strings.HasPrefix(target, prefix) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(exe, "/proc/%d/exe", &pid); err == nil && syscall.Kill(pid, syscall.SIGKILL) == nil {
			ended = append(ended, pid)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		alive := 0
		for _, pid := range ended {
			if syscall.Kill(pid, 0) == nil {
				if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(b), ") Z ") {
					alive++
				}
			}
		}
		if alive == 0 {
			return
		}
	}
	t.Logf("Codex's app-server daemon (pids %v) did not end", ended)
}
