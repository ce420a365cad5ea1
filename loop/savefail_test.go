package loop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/provenance"
	"github.com/plansmith/plansmith/internal/smalldisk"
	"github.com/plansmith/plansmith/memory"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// smallDisk mounts a 256 KiB tmpfs as the project folder and returns a
// function that fills it to the last byte, and one that frees it again.
// Where no tmpfs can be mounted the test is skipped (see smalldisk.Mount).
func smallDisk(t *testing.T, p *state.Paths) (fill, free func()) {
	t.Helper()
	dir := smalldisk.Mount(t, "256k")
	p.Project = dir
	release := func() { t.Fatal("the disk was freed before it was filled") }
	fill = func() { release = smalldisk.Fill(t, dir) }
	free = func() { release() }
	return fill, free
}

// With the disk full, a passing answer is not announced as an advance: the
// state on disk stays where it was, no retry is spent, and the user is told
// the save failed. Once space is back the same answer advances.
func TestStopOnAFullDiskAnnouncesNothing(t *testing.T) {
	env, p, stderr := testEnv(t)
	fill, free := smallDisk(t, &p)
	env.Getwd = func() (string, error) { return p.Project, nil }
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	before, err := os.ReadFile(p.State())
	require.NoError(t, err)

	good := "1. The cache misses on every request because keys include a timestamp, so the problem is the key.\n2. The root cause: the constraint is memory.\n3. Risk: stale reads; the goal is hit rate."
	ev := StopEvent{Session: Session{ID: "s", Cwd: p.Project}, LastMessage: answer(good), BlockCap: 8}
	fill()
	out := Stop(env, ev)
	assert.Equal(t, Pause, out.Kind, "nothing is announced to the agent")
	assert.Empty(t, out.Reason)
	assert.Contains(t, out.Message, "could not save the planning loop's state (no space left on device)")
	assert.Contains(t, out.Message, "still at understand [1/3], and no retry was spent")
	assert.NotContains(t, out.Message, ".tmp-", "no Go framing of the temporary file")
	after, err := os.ReadFile(p.State())
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the state on disk is untouched")
	assert.Contains(t, stderr.String(), "no space left on device")

	free()
	out = Stop(env, ev)
	require.Equal(t, Block, out.Kind)
	assert.Contains(t, out.Reason, "draft [2/3]")
}

// startAtFinalRevise starts a one-phase loop (the final revise) whose run
// has a lesson for memory.
func startAtFinalRevise(t *testing.T, env Env, p state.Paths) StopEvent {
	t.Helper()
	o := testOptions()
	o.Phases = []string{"revise"}
	o.UseMemory = true
	_, err := Start(env, p, o)
	require.NoError(t, err)
	f, err := state.Load(p.State())
	require.NoError(t, err)
	f.Loop.PrincipleFails = []state.PrincipleFail{{Round: 1, Principle: "P4", Note: "no rollback"}}
	require.NoError(t, state.Save(p.State(), f))
	plan := "# Goal\n\nCache the thing.\n\n<promise>OK</promise>"
	return StopEvent{Session: Session{ID: "s", Cwd: p.Project}, LastMessage: answer(plan), BlockCap: 8}
}

// The final plan cannot be saved (the output file is a planted link): the
// plan goes to a recovery file, nothing is archived, no memory is written,
// the loop stays active and paused, and the user is told where the text
// is. After the link is gone, the retry saves the plan and memory gets the
// lessons once.
func TestFinishKeepsThePlanWhenItCannotBeSaved(t *testing.T) {
	env, p, _ := testEnv(t)
	ev := startAtFinalRevise(t, env, p)
	outside := filepath.Join(t.TempDir(), "elsewhere.md")
	require.NoError(t, os.Symlink(outside, p.Output()))

	out := Stop(env, ev)
	assert.Equal(t, Pause, out.Kind)
	assert.Contains(t, out.Message, "could not save the plan to .claude/plansmith-output.local.md (refusing to follow")
	assert.Contains(t, out.Message, "Its text is kept in .claude/plansmith/recovered-plan-20260304-050607.md")
	assert.Contains(t, out.Message, "no lessons were written to memory; the loop stays active, paused at revise [1/1]")
	rec, err := os.ReadFile(filepath.Join(p.Work(), "recovered-plan-20260304-050607.md"))
	require.NoError(t, err)
	assert.Contains(t, string(rec), "Cache the thing.")
	assert.NoFileExists(t, p.Memory(), "memory only after the plan is saved")
	assert.NoFileExists(t, outside)
	f, err := state.Load(p.State())
	require.NoError(t, err)
	assert.True(t, f.Loop.Active)
	assert.True(t, f.Loop.Paused)

	require.NoError(t, os.Remove(p.Output()))
	resumed := PromptSubmit(env, PromptEvent{Session: ev.Session, Prompt: "continue"})
	assert.Contains(t, resumed.Context, "resumes now")
	out = Stop(env, ev)
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.Contains(t, out.Message, "saved to .claude/plansmith-output.local.md")
	runs, err := memory.Load(p.Memory())
	require.NoError(t, err)
	assert.Len(t, runs, 1)
	assert.NoFileExists(t, p.State())
}

// With the disk full at the final revise nothing can be written: the user
// is told the plan is the agent's last answer, the loop stays active on
// disk, memory is untouched; with space back the same answer is saved,
// and memory has its lessons once.
func TestFinishOnAFullDisk(t *testing.T) {
	env, p, _ := testEnv(t)
	fill, free := smallDisk(t, &p)
	env.Getwd = func() (string, error) { return p.Project, nil }
	ev := startAtFinalRevise(t, env, p)
	fill()
	out := Stop(env, ev)
	assert.Equal(t, Pause, out.Kind)
	assert.Contains(t, out.Message, "could not save the plan to .claude/plansmith-output.local.md (no space left on device)")
	assert.Contains(t, out.Message, "the plan is the agent's last answer in this conversation")
	assert.NotContains(t, out.Message, "plan saved")
	f, err := state.Load(p.State())
	require.NoError(t, err)
	assert.True(t, f.Loop.Active, "the loop is not archived")
	assert.NoFileExists(t, p.Memory())

	free()
	out = Stop(env, ev)
	require.Equal(t, Finish, out.Kind, out.Message)
	runs, err := memory.Load(p.Memory())
	require.NoError(t, err)
	assert.Len(t, runs, 1)
	data, err := os.ReadFile(p.Output())
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(data), "Cache the thing."))
}

// A lock another process keeps past state.LockWait: a tool call is refused
// with the reason, and the Stop does not wait out the hook's timeout with
// the user told nothing. The turn ends with
// the user told why; the loop is as it was (no retry spent), and once the
// lock is free the same answer is judged.
func TestStopWithTheLockHeldTellsTheUser(t *testing.T) {
	old := state.LockWait
	state.LockWait = 50 * time.Millisecond
	t.Cleanup(func() { state.LockWait = old })
	env, p := blockingLoop(t)
	f, err := state.Load(p.State())
	require.NoError(t, err)
	f.Loop.SessionID = "s"
	require.NoError(t, state.Save(p.State(), f))
	before, err := os.ReadFile(p.State())
	require.NoError(t, err)
	unlock, err := state.Lock(p)
	require.NoError(t, err)

	// A tool call meanwhile is refused, saying why, not let through.
	read := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Bash", Input: []byte(`{"command":"ls"}`)})
	assert.True(t, read.Deny)
	assert.Contains(t, read.Reason, "held the project's lock")
	// Another session's call is not this loop's to judge, and a read of the
	// state without the lock shows as much: it is not held up.
	other := PreToolUse(env, ToolEvent{Session: Session{ID: "other", Cwd: p.Project}, Tool: "Write", Input: []byte(`{"file_path":"x","content":"y"}`)})
	assert.False(t, other.Deny, other.Reason)
	// A call that names no session may be the holder's: refused, as with
	// the lock free (review BI5: it was let through).
	nameless := PreToolUse(env, ToolEvent{Session: Session{Cwd: p.Project}, Tool: "Write", Input: []byte(`{"file_path":"x","content":"y"}`)})
	assert.True(t, nameless.Deny)
	assert.Contains(t, nameless.Reason, "held the project's lock")

	ev := StopEvent{Session: Session{ID: "s", Cwd: p.Project}, LastMessage: answer("1. too short"), BlockCap: 8}
	out := Stop(env, ev)
	assert.Equal(t, Pause, out.Kind)
	assert.Contains(t, out.Message, "could not check the agent's last answer: another plansmith process has held the project's lock")
	assert.Contains(t, out.Message, "If a plansmith command is still running in this project")
	after, err := os.ReadFile(p.State())
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))

	// status and cancel say what to do about a lock they cannot take, not
	// "run cancel", which fails the same way (review CI, CK).
	for _, err := range []error{second(Status(env, p)), second(Cancel(env, p))} {
		require.Error(t, err)
		assert.Contains(t, err.Error(), "held the project's lock")
		assert.Contains(t, err.Error(), "Let the plansmith command still running in this project finish")
		assert.NotContains(t, err.Error(), "cancel' to archive it")
	}

	unlock()
	state.LockWait = old
	out = Stop(env, ev)
	assert.Equal(t, Block, out.Kind, out.Message)
}

// A sub-agent's run never ends the loop, and a 10 MiB output (kept in the
// body, review K3) leaves the frontmatter the tool hooks read small.
func TestASubagentRunNeverEndsTheLoop(t *testing.T) {
	env, p := blockingLoop(t)
	f, err := state.Load(p.State())
	require.NoError(t, err)
	f.Loop.Gate, f.Loop.GateSession.Status = true, gate.StatusAwaiting
	f.Loop.GateRuns = gate.Runs{{AgentID: "a1", Done: true, Output: strings.Repeat("finding ", 10<<20/8)}}
	require.NoError(t, state.Save(p.State(), f))

	// The output is kept in the body: the frontmatter the tool hooks read
	// stays small, and the next run is recorded beside it.
	head, err := state.LoadHead(p.State())
	require.NoError(t, err, "a 10 MiB output leaves the frontmatter readable")
	require.Equal(t, 1, len(head.Loop.GateRuns))
	assert.Zero(t, len(head.Loop.GateRuns[0].Output), "LoadHead leaves the texts in the body")
	RecordSubagent(env, SubagentEvent{Session: Session{ID: "s", Cwd: p.Project}, AgentID: "a2", Done: true, Output: "another"})
	got, err := state.Load(p.State())
	require.NoError(t, err, "the state file is still in place")
	assert.True(t, got.Loop.Active)
	require.Equal(t, 2, len(got.Loop.GateRuns), "the second run is recorded")
	assert.True(t, f.Loop.GateRuns[0].Output == got.Loop.GateRuns[0].Output, "the first run's output is read back whole")
	assert.Equal(t, "another", got.Loop.GateRuns[1].Output)
	entries, _ := os.ReadDir(p.Archive())
	assert.Empty(t, entries, "nothing moved aside")
}

// What a repository can carry where plansmith keeps its lock: cancel still
// ends the loop (the link is moved aside), and when the lock cannot be had
// at all (.claude leading out of the project) it says so; it never panics
// (review P3: it dereferenced a txn begin had not returned).
func TestCancelWithAPlantedWorkFolder(t *testing.T) {
	env, p := blockingLoop(t)
	outside := t.TempDir()
	require.NoError(t, os.RemoveAll(p.Work()))
	require.NoError(t, os.Symlink(outside, p.Work()))
	c, err := Cancel(env, p)
	require.NoError(t, err)
	assert.True(t, c.Active)
	assert.NoFileExists(t, p.State())
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written through the link")

	env, p = blockingLoop(t)
	claude := filepath.Dir(p.State())
	moved := filepath.Join(t.TempDir(), "claude")
	require.NoError(t, os.Rename(claude, moved))
	require.NoError(t, os.Symlink(moved, claude))
	_, err = Cancel(env, p)
	require.Error(t, err)
	var link *state.LinkError
	assert.ErrorAs(t, err, &link)
	// Neither cancel nor status sends the user to cancel again: they say
	// how to end the loop by hand (review X, F7).
	assert.Contains(t, err.Error(), "The link .claude leads to "+moved+": if that is another project's folder, the loop there is that project's, so remove the link")
	_, err = Status(env, p)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "Run 'plansmith cancel'")
	assert.Contains(t, err.Error(), "delete the state file .claude/plansmith.local.md behind it by hand")
	out := Stop(env, StopEvent{Session: Session{ID: "s", Cwd: p.Project}, LastMessage: answer("1. too short"), BlockCap: 8})
	assert.Equal(t, Pause, out.Kind, "the lock cannot be had and a loop may be running: the user is told")
	assert.Contains(t, out.Message, "could not check the agent's last answer")
}

// On a full disk the user's /plansmith:cancel cannot be recorded for the
// agent's plansmith cancel, which the policy would then refuse (telling the
// user to type what they just typed: review X, F4): the prompt's hook ends
// the loop itself, by a rename that needs no room.
func TestCancelPromptOnAFullDiskEndsTheLoop(t *testing.T) {
	env, p, _ := testEnv(t)
	fill, _ := smallDisk(t, &p)
	env.Getwd = func() (string, error) { return p.Project, nil }
	o := testOptions()
	o.BlockTools, o.SessionID = true, "s"
	_, err := Start(env, p, o)
	require.NoError(t, err)
	fill()

	out := PromptSubmit(env, PromptEvent{Session: Session{ID: "s", Cwd: p.Project}, Prompt: "/plansmith:cancel"})
	assert.Contains(t, out.Message, "is cancelled, here and now")
	assert.Contains(t, out.Message, "no space left on device")
	assert.Equal(t, out.Message, out.Context, "the agent is told too: nothing is left for it to run")
	_, err = os.Lstat(p.State())
	assert.ErrorIs(t, err, os.ErrNotExist, "the loop is archived")
	write := PreToolUse(env, ToolEvent{Session: Session{ID: "s", Cwd: p.Project}, Tool: "Write", Input: []byte(`{"file_path":"x","content":"y"}`)})
	assert.False(t, write.Deny, "the project is no longer read-only")
}

// A bind whose save fails leaves the loop unbound on disk, and its ID
// valid: the next Stop, once there is room, takes it on (its ID is spent
// only once the binding is saved).
func TestABindThatCannotBeSavedKeepsTheLoop(t *testing.T) {
	env, p := homeEnv(t)
	fill, free := smallDisk(t, &p)
	env.Getwd = func() (string, error) { return p.Project, nil }
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	good := "1. The cache misses on every request because keys include a timestamp, so the problem is the key.\n2. The root cause: the constraint is memory.\n3. Risk: stale reads; the goal is hit rate."
	ev := StopEvent{Session: Session{ID: "s", Cwd: p.Project}, LastMessage: answer(good), BlockCap: 8}
	fill()
	out := Stop(env, ev)
	assert.Equal(t, Pause, out.Kind)
	assert.NotContains(t, out.Message, "did not start on this machine")
	free()
	out = Stop(env, ev)
	require.Equal(t, Block, out.Kind, out.Message)
	assert.Contains(t, out.Reason, "draft [2/3]")
}

// When the project's .claude takes no recovery file either, the plan goes
// under the user's home, and the user is told where (review AH7: it was
// said to be written nowhere else).
func TestAPlanThatCannotBeSavedInTheProjectIsKeptAtHome(t *testing.T) {
	env, p := homeEnv(t)
	ev := startAtFinalRevise(t, env, p)
	require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "elsewhere.md"), p.Output()))
	require.NoError(t, os.MkdirAll(filepath.Join(p.Work(), "recovered-plan-20260304-050607.md", "x"), 0o755))

	out := Stop(env, ev)
	require.Equal(t, Pause, out.Kind)
	home := env.Getenv("HOME")
	kept := filepath.Join(home, ".claude", "plansmith", "recovered", "20260304-050607-"+filepath.Base(p.Project)+"-"+projectHash(p)+".md")
	assert.Contains(t, out.Message, "Its text is kept in "+kept)
	assert.NotContains(t, out.Message, "anywhere else")
	rec, err := os.ReadFile(kept)
	require.NoError(t, err)
	assert.Contains(t, string(rec), "Cache the thing.")
	info, err := os.Stat(kept)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

// A new saved plan moves the one before it into the archive, and says so:
// for a run that did not complete, that file was the plan's only copy
// (review AH8).
func TestANewSavedPlanSaysWhereTheOneBeforeWent(t *testing.T) {
	env, p, _ := testEnv(t)
	out := Stop(env, startAtFinalRevise(t, env, p))
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.NotContains(t, out.Message, "saved there before")
	first, err := os.ReadFile(p.Output())
	require.NoError(t, err)

	out = Stop(env, startAtFinalRevise(t, env, p))
	require.Equal(t, Finish, out.Kind, out.Message)
	moved, _ := filepath.Glob(filepath.Join(p.Archive(), "*-output*.md"))
	require.Len(t, moved, 1)
	assert.Contains(t, out.Message, "(The plan saved there before is kept in "+p.Rel(moved[0])+".)")
	kept, err := os.ReadFile(moved[0])
	require.NoError(t, err)
	assert.Equal(t, string(first), string(kept))
}

// projectHash is what recoverAtHome adds to a recovery file's name.
func projectHash(p state.Paths) string {
	sum := sha256.Sum256([]byte(p.Project))
	return hex.EncodeToString(sum[:4])
}

// A file a repository put at the output's name is moved aside too, but not
// called a plan plansmith saved (review AN5).
func TestAPlantedOutputIsNotCalledASavedPlan(t *testing.T) {
	env, p := homeEnv(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(p.Output()), 0o755))
	require.NoError(t, os.WriteFile(p.Output(), []byte("a repository's text\n"), 0o644))
	out := Stop(env, startAtFinalRevise(t, env, p))
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.Contains(t, out.Message, "What was at .claude/plansmith-output.local.md before, not saved there by plansmith on this machine, is kept in")
	assert.NotContains(t, out.Message, "The plan saved there before")
	out = Stop(env, startAtFinalRevise(t, env, p))
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.Contains(t, out.Message, "The plan saved there before is kept in", "plansmith's own, the second time")
}

// With the lock held past its wait, a prompt says it did not reach the
// loop (the user was told a message resumes it), and a fork's start says
// it was not joined (review BI3: both were silent, and the fork wrote).
func TestPromptsAndForksWithTheLockHeldAreTold(t *testing.T) {
	old := state.LockWait
	state.LockWait = 50 * time.Millisecond
	t.Cleanup(func() { state.LockWait = old })
	env, p := heldLoop(t)
	unlock, err := state.Lock(p)
	require.NoError(t, err)
	defer unlock()
	s := Session{ID: "s", Cwd: p.Project}
	out := PromptSubmit(env, PromptEvent{Session: s, Prompt: "please continue"})
	assert.Contains(t, out.Message, "this message neither resumed a paused loop nor reached it")
	out = PromptSubmit(env, PromptEvent{Session: s, Prompt: "/plansmith:cancel"})
	assert.Contains(t, out.Message, "did not record your /plansmith:cancel")
	assert.Equal(t, PromptOutcome{}, PromptSubmit(env, PromptEvent{Session: Session{ID: "other", Cwd: p.Project}, Prompt: "hi"}),
		"another session's prompt is not this loop's")
	fork := SessionStart(env, SessionEvent{Session: Session{ID: "fork", Cwd: p.Project}, Source: "fork"})
	assert.Contains(t, fork.Message, "this session was not joined to it and its tools are not held read-only")
	assert.Contains(t, fork.Message, "/plansmith:cancel ends the loop and /plansmith:plan starts it again here", "what to do, not a vague \"end it and resume that one\" (review CK)")
}

// A Stop that names no session, while a session holds the loop, may be
// the planning session's: the user hears that it went unchecked, and no
// retry is spent (review BI4: it was dropped in silence).
func TestAStopNamingNoSessionIsTold(t *testing.T) {
	env, p := heldLoop(t)
	out := Stop(env, StopEvent{Session: Session{Cwd: p.Project}, LastMessage: answer("x"), BlockCap: 8})
	assert.Equal(t, Pause, out.Kind)
	assert.Contains(t, out.Message, "this hook input names no session")
	assert.Equal(t, 0, loaded(t, p).Retries)
}

// readOnlyProject makes p's project unwritable, as a read-only mount or a
// folder of another owner leaves it, and returns the reason writes then
// fail with and a function that makes it writable again. File modes do
// not stop root: as root the project is mounted on itself read-only (the
// test is skipped, saying so, where that is not allowed); otherwise its
// .claude folders lose their write permission.
func readOnlyProject(t *testing.T, p state.Paths) (why string, undo func()) {
	t.Helper()
	if os.Geteuid() == 0 {
		dir := p.Project
		if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
			t.Skipf("cannot bind-mount the project: %v %s", err, out)
		}
		mounted := true
		undo = func() {
			if mounted {
				mounted = false
				require.NoError(t, exec.Command("umount", dir).Run())
			}
		}
		t.Cleanup(undo)
		if out, err := exec.Command("mount", "-o", "remount,ro,bind", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot make the mount read-only: %v %s", err, out)
		}
		return "read-only file system", undo
	}
	dirs := []string{filepath.Dir(p.State()), p.Work()}
	for _, d := range dirs {
		require.NoError(t, os.Chmod(d, 0o555))
	}
	undo = func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	}
	t.Cleanup(undo)
	return "permission denied", undo
}

// On a read-only project plansmith cancel cannot end the loop: it says the
// loop is still active, where, why in the system's words, and what to do
// (make the folder writable and cancel again, or delete the state file),
// not Go's chain of paths with a temporary file's name; the user's
// /plansmith:cancel says the same. The loop runs on as it was, its ID
// still good for the session that takes it on (review BT3).
func TestCancelOnAReadOnlyProjectSaysTheLoopRunsOn(t *testing.T) {
	env, p := homeEnv(t)
	o := testOptions()
	o.BlockTools = true
	_, err := Start(env, p, o)
	require.NoError(t, err)
	why, undo := readOnlyProject(t, p)

	_, err = Cancel(env, p)
	require.Error(t, err)
	var stuck *NotEndedError
	require.ErrorAs(t, err, &stuck)
	msg := err.Error()
	assert.Equal(t, "the planning loop is still active at understand [1/3]: it could not be ended ("+why+"), so the project stays read-only. "+
		"Make the project's .claude folder writable, then run `plansmith cancel` again; or delete .claude/plansmith.local.md to end the loop by hand.", msg)
	assert.NotContains(t, msg, ".tmp-")
	assert.True(t, loaded(t, p).Active, "the loop runs on")

	s := Session{ID: "s1", Cwd: p.Project}
	out := PromptSubmit(env, PromptEvent{Session: s, Prompt: "/plansmith:cancel"})
	assert.Contains(t, out.Message, "could not be recorded ("+why+"), and the loop could not be ended here either ("+why+"): it is still active at understand [1/3], and the project stays read-only.")
	assert.Contains(t, out.Message, "Make the project's .claude folder writable, then send /plansmith:cancel again")
	assert.Contains(t, out.Message, "delete .claude/plansmith.local.md")
	assert.NotContains(t, out.Message, ".tmp-")
	assert.True(t, loaded(t, p).Active, "the loop runs on")

	undo()
	stop := Stop(env, StopEvent{Session: s, LastMessage: answer("too short"), BlockCap: 8})
	require.Equal(t, Block, stop.Kind, "a session still takes the loop on: %s", stop.Message)
	assert.Contains(t, stop.Reason, "understand [1/3]")
}

// noArchiveName leaves a cancel at testNow no free name in the archive:
// one try, and that name taken.
func noArchiveName(t *testing.T, p state.Paths) {
	t.Helper()
	old := state.ArchiveTries
	state.ArchiveTries = 1
	t.Cleanup(func() { state.ArchiveTries = old })
	require.NoError(t, os.MkdirAll(p.Archive(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.Archive(), testNow.Format("20060102-150405")+"-cancelled.md"), nil, 0o644))
}

// A cancel that could mark the loop ended but not archive it has ended
// the loop: it says so, and where the file stays, rather than failing with
// Go's chain of errors (review BT3).
func TestCancelThatCannotArchiveEndsTheLoopInPlace(t *testing.T) {
	env, p := blockingLoop(t)
	noArchiveName(t, p)

	c, err := Cancel(env, p)
	require.NoError(t, err)
	assert.True(t, c.Active)
	assert.Empty(t, c.Archive)
	assert.Contains(t, c.NotArchived, "no free name")
	l := loaded(t, p)
	assert.False(t, l.Active, "the loop has ended, marked so in place")
	assert.Equal(t, state.ExitCancelled, l.ExitReason)
}

// On a full disk plan starts no loop, and says so with the system's reason
// and what to do, without the temporary file's name (review BT3).
func TestStartOnAFullDiskSaysNoLoopWasStarted(t *testing.T) {
	env, p, _ := testEnv(t)
	fill, _ := smallDisk(t, &p)
	env.Getwd = func() (string, error) { return p.Project, nil }
	fill()
	_, err := Start(env, p, testOptions())
	require.Error(t, err)
	var notStarted *NotStartedError
	require.ErrorAs(t, err, &notStarted)
	assert.Equal(t, "no planning loop was started: .claude/plansmith.local.md could not be written (no space left on device). "+
		"Free space on the disk or make the project's .claude folder writable, then try again.", err.Error())
	assert.NoFileExists(t, p.State())
}

// Where plansmith's folder cannot be made (a file stands where .claude
// goes), plan says no loop was started, and why, in the same words.
func TestStartWhereTheLockCannotBeMadeSaysNoLoopWasStarted(t *testing.T) {
	env, p, _ := testEnv(t)
	require.NoError(t, os.WriteFile(filepath.Dir(p.State()), []byte("not a folder"), 0o644))
	_, err := Start(env, p, testOptions())
	require.Error(t, err)
	assert.Equal(t, "no planning loop was started: .claude/plansmith could not be written (not a directory). "+
		"Free space on the disk or make the project's .claude folder writable, then try again.", err.Error())
}

// The user's /plansmith:cancel of a loop plansmith did not start on this
// machine, when the archive cannot be written but the state file can be
// marked ended, says the loop is cancelled, why it was not archived and
// where its file stays (review CB7: a mutation survivor).
func TestCancellingAForeignLoopThatCannotBeArchived(t *testing.T) {
	env, p := homeEnv(t)
	elsewhere := env
	other := t.TempDir()
	elsewhere.Getenv = func(k string) string {
		if k == "HOME" {
			return other
		}
		return ""
	}
	o := testOptions()
	o.BlockTools = true
	_, err := Start(elsewhere, p, o)
	require.NoError(t, err)
	noArchiveName(t, p)

	out := PromptSubmit(env, PromptEvent{Session: Session{ID: "s2", Cwd: p.Project}, Prompt: "/plansmith:cancel"})
	assert.Contains(t, out.Message, "did not start on this machine is cancelled")
	assert.Contains(t, out.Message, "could not be archived (")
	assert.Contains(t, out.Message, "no free name")
	assert.Contains(t, out.Message, "stays at .claude/plansmith.local.md, marked ended")
	assert.False(t, loaded(t, p).Active)
}

// A state file plansmith cannot read, on a read-only project, cannot be
// moved aside either: cancel says the loop may still be running, with tool
// calls refused, why and what to do, not Go's chain of paths (review CB7:
// a mutation survivor).
func TestCancellingAnUnreadableStateOnAReadOnlyProject(t *testing.T) {
	env, p := homeEnv(t)
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p.State(), []byte("not a state file\n"), 0o644))
	why, _ := readOnlyProject(t, p)

	_, err = Cancel(env, p)
	var stuck *NotEndedError
	require.ErrorAs(t, err, &stuck)
	assert.Contains(t, err.Error(), "("+why+")")
	assert.Contains(t, err.Error(), "delete .claude/plansmith.local.md")
	assert.NotContains(t, err.Error(), ".tmp-")
	assert.FileExists(t, p.State())
}

// A link where plansmith's folder goes is refused by its own message,
// which says what to remove, not called a file that could not be written
// (review CB7: a mutation survivor).
func TestStartBesideAPlantedLinkSaysWhatToRemove(t *testing.T) {
	env, p, _ := testEnv(t)
	require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(p.Project, ".claude")))
	_, err := Start(env, p, testOptions())
	require.Error(t, err)
	var link *state.LinkError
	assert.ErrorAs(t, err, &link)
	assert.Contains(t, err.Error(), "it is a symbolic link")
	assert.NotContains(t, err.Error(), "no planning loop was started")
}

// Where the archive has no free name and the project is read-only, the
// reason given is the system's, for the state file that could not be
// marked ended, not Go's chain of both failures (review CB7: a mutation
// survivor).
func TestCancelWithNoArchiveNameOnAReadOnlyProject(t *testing.T) {
	env, p := homeEnv(t)
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	noArchiveName(t, p)
	why, _ := readOnlyProject(t, p)

	_, err = Cancel(env, p)
	var stuck *NotEndedError
	require.ErrorAs(t, err, &stuck)
	assert.Contains(t, err.Error(), "could not be ended ("+why+")")
	assert.True(t, loaded(t, p).Active)
}

// second is the error of a call that returns a value and an error.
func second[T any](_ T, err error) error { return err }

// A plan that cannot be kept in the project for want of room is still
// saved, and the user is told which folder it could not be kept in (review
// CO8: the reason came alone, "no space left on device").
func TestAPlanNotKeptForWantOfRoomNamesTheFolder(t *testing.T) {
	env, p, _ := testEnv(t)
	o := testOptions()
	o.Phases = []string{"revise"}
	_, err := Start(env, p, o)
	require.NoError(t, err)
	// docs/plans on a small disk of its own, full; .claude has room.
	dir := filepath.Join(p.Project, "docs", "plans")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	filler, err := os.Create(filepath.Join(dir, "filler"))
	require.NoError(t, err)
	for {
		if _, err := filler.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	require.NoError(t, filler.Close())

	out := Stop(env, StopEvent{Session: Session{ID: "s", Cwd: p.Project}, LastMessage: answer("## Goal\nCache the lookups.\n\n<promise>OK</promise>"), BlockCap: 8})
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.Contains(t, out.Message, "plan saved to .claude/plansmith-output.local.md")
	assert.Contains(t, out.Message, "It could not also be kept in the project: docs/plans: no space left on device")
	assert.FileExists(t, p.Output())
}

// A finish whose archive fails, and whose loop cannot even be marked
// ended in place (the disk filled after the plan was saved), leaves the
// loop active: the user is told so, and how to end it, not only that the
// archive failed (review DD11: the next answer was judged as the plan
// again, an unrelated one blocked, with no word that the loop still ran).
func TestAFinishThatCannotEndTheLoopSaysItRunsOn(t *testing.T) {
	env, p, _ := testEnv(t)
	fill, free := smallDisk(t, &p)
	env.Getwd = func() (string, error) { return p.Project, nil }
	ev := startAtFinalRevise(t, env, p)
	old := state.ArchiveTries
	state.ArchiveTries = 1
	t.Cleanup(func() { state.ArchiveTries = old })
	require.NoError(t, os.MkdirAll(p.Archive(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.Archive(), testNow.Format("20060102-150405")+"-completed.md"), nil, 0o644))
	fill()
	// Room for the saved plan (one page), none for the state file.
	require.NoError(t, os.Truncate(filepath.Join(p.Project, "filler"), mustSize(t, filepath.Join(p.Project, "filler"))-4096))

	out := Stop(env, ev)
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.Contains(t, out.Message, "plan saved")
	f, err := state.Load(p.State())
	require.NoError(t, err)
	require.True(t, f.Loop.Active, "the case: the loop could not be ended")
	assert.Contains(t, out.Message, "still active")
	assert.Contains(t, out.Message, "/plansmith:cancel")
	assert.Contains(t, out.Message, "send the plan again", "what unsticks it, besides cancel (review EC3)")

	// With room again the same answer ends it.
	free()
	out = Stop(env, ev)
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.NotContains(t, out.Message, "still active")
	f, err = state.Load(p.State())
	require.NoError(t, err)
	assert.False(t, f.Loop.Active)
}

func mustSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	return info.Size()
}

// A Codex user has no slash command: the finish that could not end its
// loop names the command line once, not "`plansmith cancel` (or
// `plansmith cancel` in a terminal)" (review EC3).
func TestAFinishThatCannotEndTheLoopNamesCodexsCancelOnce(t *testing.T) {
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindCodex, CLI: "plansmith"} })
	msg := stillActiveTrouble(errors.New("no space left on device"))
	assert.Equal(t, 1, strings.Count(msg, "plansmith cancel"), msg)
	assert.NotContains(t, msg, "/plansmith")
}

// Memory is recorded under the home before it is written. With the home's
// disk full, the lessons were written and their record was not, with no
// word: the next run took the memory for one plansmith did not write, did
// not show it, and moved it aside, earlier lessons and all (review FB2).
// Now the run says the lessons were not added, and the memory as it was
// stays plansmith's.
func TestMemoryWhoseRecordCannotBeWrittenIsNotWritten(t *testing.T) {
	home := smalldisk.Mount(t, "64k")
	env, p := homeEnvAt(t, home)
	require.Equal(t, Finish, Stop(env, startAtFinalRevise(t, env, p)).Kind)
	before, err := os.ReadFile(p.Memory())
	require.NoError(t, err)

	// The home's disk fills: the record ends on a page's end (a line that
	// does not parse pads it), and no page is left for it to grow into.
	ev := startAtFinalRevise(t, env, p)
	records, err := filepath.Glob(filepath.Join(home, filepath.FromSlash(provenance.Dir), "*[0-9a-f]"))
	require.NoError(t, err)
	require.Len(t, records, 1)
	info, err := os.Stat(records[0])
	require.NoError(t, err)
	pad := 4096 - info.Size()%4096
	f, err := os.OpenFile(records[0], os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(strings.Repeat("x", int(pad)-1) + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	filler := filepath.Join(home, "filler")
	require.NoError(t, os.WriteFile(filler, nil, 0o644))
	for buf := make([]byte, 4096); ; {
		w, err := os.OpenFile(filler, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		_, err = w.Write(buf)
		w.Close()
		if err != nil {
			break
		}
	}

	out := Stop(env, ev)
	require.Equal(t, Finish, out.Kind, out.Message)
	// What this means for the user's memory, and what to do, in their
	// words (review FI7: "the next run is shown only memory it has a
	// record of").
	assert.Contains(t, out.Message, "the lessons were not added to memory: plansmith could not record under your home that it wrote them (no space left on device), so it left the memory as it was; once there is room there, later runs add their lessons again")
	after, err := os.ReadFile(p.Memory())
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the memory is as it was")

	// Room again: the memory is still plansmith's, shown and added to.
	require.NoError(t, os.Remove(filler))
	o := testOptions()
	o.Phases = []string{"explore", "draft", "revise"}
	o.UseMemory, o.SessionID = true, "s"
	started, err := Start(env, p, o)
	require.NoError(t, err)
	assert.Contains(t, started.Prompt, "no rollback")
	_, err = Cancel(env, p)
	require.NoError(t, err)
	out = Stop(env, startAtFinalRevise(t, env, p))
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.NotContains(t, out.Message, "memory")
	runs, err := memory.Load(p.Memory())
	require.NoError(t, err)
	assert.Len(t, runs, 2)
}

// The plan-mode gate keeps its record under the home: the metadata in the
// plan file (~/.claude/plans) and the runs its hooks saw. With the home's
// disk full neither could be written, and only stderr said so: the agent
// ran the critic and the validator to no avail and was told at
// ExitPlanMode to run the gate again, which could not help (review FB3).
// Now the hook that could not write tells the agent and the user what
// was lost and what to do.
func TestAPlanModeGateOnAFullHomeSaysWhatItCouldNotRecord(t *testing.T) {
	home := smalldisk.Mount(t, "256k")
	env, p := homeEnvAt(t, home)
	path, plan, edit := planModePlan(t, home, p.Project)
	s := edit.Session
	assert.Equal(t, PromptOutcome{}, PostToolUse(env, edit))
	prompts := gate.PromptsOf(plan)
	assert.Equal(t, PromptOutcome{}, RecordSubagent(env, SubagentEvent{Session: s, PermissionMode: "plan", Launched: true, AgentID: "c1",
		AgentType: "general-purpose", Requested: "opus", Background: true, Prompt: prompts.Critic}))

	// The agent edits its plan, and the disk is full when the hook runs.
	kept, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := strings.Replace(string(kept), "cron job.", "cron job.\n2. Check the dump.", 1)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
	free := smalldisk.Fill(t, home)
	out := PostToolUse(env, edit)
	assert.Contains(t, out.Context, "could not write the gate's record into the plan file "+path+": no space left on device")
	assert.Contains(t, out.Context, "save the plan file again")
	assert.Equal(t, out.Context, out.Message, "the user hears it too")

	out = RecordSubagent(env, SubagentEvent{Session: s, AgentID: "c1", Resolved: "c1", Steered: true})
	assert.Contains(t, out.Context, "could not record your message to the sub-agent c1: no space left on device")
	assert.Contains(t, out.Context, "do not message them")

	out = RecordSubagent(env, SubagentEvent{Session: s, PermissionMode: "plan", AgentID: "c1", Done: true, Output: "### NO ISSUES FOUND"})
	assert.Contains(t, out.Context, "could not record the output of the critic run c1: no space left on device")
	assert.Contains(t, out.Context, "this critic run will not count")

	out = RecordSubagent(env, SubagentEvent{Session: s, PermissionMode: "plan", Launched: true, AgentID: "v1", AgentType: "general-purpose",
		Requested: "haiku", Prompt: gate.PromptsOf(edited).Validator + "\n\n### NO ISSUES FOUND", Done: true, Output: "### VERDICT: PASS\n**Reason**: none."})
	assert.Contains(t, out.Context, "could not record the output of the validator run v1")

	// Another sub-agent's run, or an ordinary edit: nothing to say.
	assert.Equal(t, PromptOutcome{}, RecordSubagent(env, SubagentEvent{Session: s, PermissionMode: "plan", Launched: true, AgentID: "x1",
		Prompt: "list the cron files", Done: true, Output: "x"}))
	other, err := json.Marshal(map[string]string{"file_path": filepath.Join(p.Project, "main.go")})
	require.NoError(t, err)
	assert.Equal(t, PromptOutcome{}, PostToolUse(env, ToolEvent{Session: s, Tool: "Write", Input: other, PermissionMode: "plan"}))

	// Room again: the edit's record is written, and nothing is said.
	free()
	assert.Equal(t, PromptOutcome{}, PostToolUse(env, edit))
}

// A message to a gate run, noted while another process held the lock
// (noteSteer), is applied by the next Stop. When that Stop's state cannot
// be saved (a full disk), the note must stay for the Stop after: removed
// at once, the message was forgotten, and the messaged critic counted as
// evidence once there was room again (review FB4).
func TestAMessageNotedForTheGateOutlivesAStopThatCannotSave(t *testing.T) {
	env, p, _ := testEnv(t)
	fill, free := smallDisk(t, &p)
	env.Getwd = func() (string, error) { return p.Project, nil }
	criticPrompt, validatorPrompt := gateLoop(t, env, p)
	s := Session{ID: sessionID, Cwd: p.Project}
	RecordSubagent(env, SubagentEvent{Session: s, Launched: true, AgentID: "c1", Prompt: criticPrompt, Background: true})
	// Noted as RecordSubagent notes it when the lock is held (a wait for
	// the lock given up leaves its file open a moment, which the small
	// disk's unmount would trip on).
	lockErr := &lockError{err: &state.LockTimeoutError{Path: p.Lock(), Wait: state.LockWait}}
	require.Equal(t, PromptOutcome{}, noteSteer(env, p, SubagentEvent{Session: s, AgentID: "c1", Resolved: "c1", Steered: true}, lockErr))
	require.FileExists(t, p.Steers())
	RecordSubagent(env, SubagentEvent{Session: s, AgentID: "c1", Done: true, Output: critic})
	RecordSubagent(env, SubagentEvent{Session: s, Launched: true, AgentID: "v1", Prompt: validatorPrompt + "\n" + critic, Done: true, Output: passing})

	fill()
	stop := Stop(env, StopEvent{Session: s, LastMessage: answer("Both have finished."), BlockCap: 8, ReportsRuns: true})
	require.Equal(t, Pause, stop.Kind, stop.Reason)
	require.Contains(t, stop.Message, "could not save the planning loop's state")
	assert.FileExists(t, p.Steers(), "kept until a Stop that applied it is saved")

	free()
	stop = Stop(env, StopEvent{Session: s, LastMessage: answer("Both have finished."), BlockCap: 8, ReportsRuns: true})
	require.Equal(t, Block, stop.Kind, stop.Message)
	assert.Contains(t, stop.Reason, "continued or sent a message after it started")
	assert.NoFileExists(t, p.Steers(), "applied, and saved")
}

// A message to a gate run, or its output, recorded while the project's
// disk is full cannot be saved. The message was lost in silence, and once
// there was room the messaged critic passed the gate (review FB6): it is
// now noted beside the state when a page is left for the note, and said
// to the agent and the user when not. A run's output not saved is said
// not to count, with what to do.
func TestAGateRunRecordedOnAFullDiskIsNotLostInSilence(t *testing.T) {
	env, p, _ := testEnv(t)
	fill, free := smallDisk(t, &p)
	env.Getwd = func() (string, error) { return p.Project, nil }
	criticPrompt, validatorPrompt := gateLoop(t, env, p)
	s := Session{ID: sessionID, Cwd: p.Project}
	RecordSubagent(env, SubagentEvent{Session: s, Launched: true, AgentID: "c1", Prompt: criticPrompt, Background: true})
	info, err := os.Stat(p.State())
	require.NoError(t, err)
	require.Greater(t, info.Size(), int64(4096), "the state needs more than the one page left below")

	// No room at all: told.
	fill()
	out := RecordSubagent(env, SubagentEvent{Session: s, AgentID: "c1", Resolved: "c1", Steered: true})
	assert.Contains(t, out.Context, "could not record your message to the sub-agent c1")
	assert.Contains(t, out.Context, "no space left on device")
	assert.Contains(t, out.Context, "once that is fixed (room on the disk, say)")
	assert.NotContains(t, out.Context, "plansmith process", "no other process is in the way")
	assert.Equal(t, out.Context, out.Message)
	out = RecordSubagent(env, SubagentEvent{Session: s, AgentID: "c1", Done: true, Output: critic})
	assert.Contains(t, out.Message, "could not record the output of the critic run c1: no space left on device")
	assert.Contains(t, out.Message, "this critic run will not count. Once that is fixed (room on the disk, say), run the critic again")

	// One page left: the state still cannot be saved, the note can.
	free()
	fill()
	filler := filepath.Join(p.Project, "filler")
	fi, err := os.Stat(filler)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(filler, fi.Size()/4096*4096-4096))
	assert.Equal(t, PromptOutcome{}, RecordSubagent(env, SubagentEvent{Session: s, AgentID: "c1", Resolved: "c1", Steered: true}), "noted: nothing to say")
	require.FileExists(t, p.Steers())

	free()
	RecordSubagent(env, SubagentEvent{Session: s, AgentID: "c1", Done: true, Output: critic})
	RecordSubagent(env, SubagentEvent{Session: s, Launched: true, AgentID: "v1", Prompt: validatorPrompt + "\n" + critic, Done: true, Output: passing})
	stop := Stop(env, StopEvent{Session: s, LastMessage: answer("Both have finished."), BlockCap: 8, ReportsRuns: true})
	require.Equal(t, Block, stop.Kind, stop.Message)
	assert.Contains(t, stop.Reason, "continued or sent a message after it started")
}

// Messages to gate runs noted at once (the hooks of messages sent in one
// turn wait out the held lock together) are all kept: read, changed and
// written again, the notes replaced each other, and a messaged critic
// whose note was lost counted (review FB8).
func TestMessagesNotedAtOnceAreAllKept(t *testing.T) {
	env, p, _ := testEnv(t)
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	lockErr := &lockError{err: &state.LockTimeoutError{Path: p.Lock(), Wait: state.LockWait}}
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := env
			env.Stderr = io.Discard // each hook is a process of its own
			noteSteer(env, p, SubagentEvent{Session: Session{ID: sessionID, Cwd: p.Project}, AgentID: fmt.Sprintf("a%02d", i), Steered: true}, lockErr)
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(p.Steers())
	require.NoError(t, err)
	for i := range n {
		assert.Contains(t, string(b), fmt.Sprintf("a%02d\n", i))
	}
}

// A message noted while the Stop that applies the note holds the lock (the
// hook that noted it could not have the lock) stays for the next Stop: the
// Stop removed the whole note, and that message with it (review FB9).
func TestAMessageNotedWhileTheNoteIsAppliedIsKept(t *testing.T) {
	env, p, _ := testEnv(t)
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	s := Session{ID: sessionID, Cwd: p.Project}
	lockErr := &lockError{err: &state.LockTimeoutError{Path: p.Lock(), Wait: state.LockWait}}
	noteSteer(env, p, SubagentEvent{Session: s, AgentID: "c1", Steered: true}, lockErr)
	runs, applied := appliedSteers(p, gate.Runs{{AgentID: "c1", Role: gate.RoleCritic}, {AgentID: "v1", Role: gate.RoleValidator}})
	require.True(t, runs[0].Reopened)
	require.False(t, runs[1].Reopened)

	noteSteer(env, p, SubagentEvent{Session: s, AgentID: "v1", Steered: true}, lockErr)
	doneSteers(env, p, applied)
	b, err := os.ReadFile(p.Steers())
	require.NoError(t, err, "the later message is kept")
	assert.Equal(t, "v1\n", string(b))
	runs, applied = appliedSteers(p, gate.Runs{{AgentID: "v1", Role: gate.RoleValidator}})
	assert.True(t, runs[0].Reopened, "and applied by the next Stop")
	doneSteers(env, p, applied)
	assert.NoFileExists(t, p.Steers())
	assert.NoFileExists(t, p.Steers()+".applied")
}

// A note of messages to gate runs that an ended loop left (cancelled before
// a Stop applied it) is not applied to the next loop's runs: it marked the
// new critic, of the same name, as messaged (review FB10).
func TestANewLoopTakesNoMessagesOfAnEarlierOne(t *testing.T) {
	env, p, _ := testEnv(t)
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	lockErr := &lockError{err: &state.LockTimeoutError{Path: p.Lock(), Wait: state.LockWait}}
	noteSteer(env, p, SubagentEvent{Session: Session{ID: sessionID, Cwd: p.Project}, AgentID: "crit", Steered: true}, lockErr)
	require.FileExists(t, p.Steers())
	_, err = Cancel(env, p)
	require.NoError(t, err)
	_, err = Start(env, p, testOptions())
	require.NoError(t, err)
	assert.NoFileExists(t, p.Steers())
	runs, _ := appliedSteers(p, gate.Runs{{AgentID: "a1", Name: "crit", Role: gate.RoleCritic}})
	assert.False(t, runs[0].Reopened)
}

// A plan kept where plansDirectory says (in the project), with the home's
// disk full: the plan file is maintained, but its entry in the plan index
// under the home cannot be written, and without it the gate's runs were
// not recorded, in silence; ExitPlanMode then sent the agent to run the
// gate again (review FB11). The edit's hook now says so.
func TestAPlanModePlanThatCannotBeIndexedIsSaidSo(t *testing.T) {
	home := smalldisk.Mount(t, "64k")
	env, p := homeEnvAt(t, home)
	require.NoError(t, os.MkdirAll(filepath.Join(p.Project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.Project, ".claude", "settings.json"), []byte(`{"plansDirectory": "plans"}`), 0o644))
	path := filepath.Join(p.Project, "plans", "brave-otter.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("# Backups\n\n## Goals\n- Nightly backups.\n"), 0o644))
	wrote, err := json.Marshal(map[string]string{"file_path": path})
	require.NoError(t, err)
	edit := ToolEvent{Session: Session{ID: sessionID, Cwd: p.Project}, Tool: "Write", Input: wrote, PermissionMode: "plan"}

	free := smalldisk.Fill(t, home)
	out := PostToolUse(env, edit)
	assert.Contains(t, out.Context, "could not record the plan file "+path+" in its plan index under your home: no space left on device")
	assert.Contains(t, out.Context, "cannot record the critic and validator runs on this plan")
	assert.Equal(t, out.Context, out.Message)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), "rodin:session="+sessionID, "the plan file itself is maintained")

	free()
	assert.Equal(t, PromptOutcome{}, PostToolUse(env, edit), "indexed once there is room")
}

// A note of messages too large to read (no session notes 64 KiB of them)
// takes no run on its word: every run counts as messaged, once, and the
// note goes (review FB8: appended to, such a note was never applied).
func TestANoteTooLargeToReadTakesNoRunOnItsWord(t *testing.T) {
	env, p, _ := testEnv(t)
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p.Steers(), []byte(strings.Repeat("someone-else\n", 6000)), 0o644))
	lockErr := &lockError{err: &state.LockTimeoutError{Path: p.Lock(), Wait: state.LockWait}}
	noteSteer(env, p, SubagentEvent{Session: Session{ID: sessionID, Cwd: p.Project}, AgentID: "c1", Steered: true}, lockErr)
	runs, applied := appliedSteers(p, gate.Runs{{AgentID: "c1", Role: gate.RoleCritic}, {AgentID: "v1", Role: gate.RoleValidator}})
	assert.NotNil(t, applied, "Stop removes a note it applied (doneSteers) only when it is told one was")
	assert.True(t, runs[0].Reopened, "the messaged critic does not count")
	assert.True(t, runs[1].Reopened)
	doneSteers(env, p, applied)
	assert.NoFileExists(t, p.Steers())
}

// A finish with no lessons leaves the memory as it is: since review FB2 the
// finish writes the bytes it recorded, and for a run with no lessons there
// are none (review FH: with that check gone, every test passed while the
// memory was emptied).
func TestAFinishWithNoLessonsLeavesTheMemory(t *testing.T) {
	env, p, _ := testEnv(t)
	require.Equal(t, Finish, Stop(env, startAtFinalRevise(t, env, p)).Kind)
	before, err := os.ReadFile(p.Memory())
	require.NoError(t, err)
	require.Contains(t, string(before), "no rollback")

	ev := startAtFinalRevise(t, env, p)
	f, err := state.Load(p.State())
	require.NoError(t, err)
	f.Loop.PrincipleFails = nil
	require.NoError(t, state.Save(p.State(), f))
	out := Stop(env, ev)
	require.Equal(t, Finish, out.Kind, out.Message)
	assert.NotContains(t, out.Message, "memory")
	after, err := os.ReadFile(p.Memory())
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

// A message noted while the lock was held names the run as noteSteer wrote
// it, its spaces run together; the run, named with more, is still the one
// messaged (review FH: Claude Code 2.1.197 gives no agent id with the
// message, and a critic named "crit  a" messaged so counted).
func TestANotedMessageFindsARunWhoseNameHasMoreSpaces(t *testing.T) {
	env, p, _ := testEnv(t)
	_, err := Start(env, p, testOptions())
	require.NoError(t, err)
	lockErr := &lockError{err: &state.LockTimeoutError{Path: p.Lock(), Wait: state.LockWait}}
	for _, to := range []string{"crit  a", " Crit\ta "} {
		require.NoError(t, os.RemoveAll(p.Steers()))
		noteSteer(env, p, SubagentEvent{Session: Session{ID: sessionID, Cwd: p.Project}, AgentID: to, Steered: true}, lockErr)
		runs, _ := appliedSteers(p, gate.Runs{
			{AgentID: "c1", Name: "crit  a", Role: gate.RoleCritic},
			{AgentID: "v1", Name: "crit a b", Role: gate.RoleValidator},
		})
		assert.True(t, runs[0].Reopened, "%q: the messaged critic does not count", to)
		assert.False(t, runs[1].Reopened, "%q: another run still counts", to)
	}
}
