package planmode

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/gate"
)

// env is a home folder for the plan-mode gate; the project is a folder
// with no settings, so the gate is on.
type env struct{ home, project string }

func testEnv(home string) env { return env{home: home, project: home} }

// writePlan writes a plan file and maintains it as the PostToolUse hook does
// after the agent's Write in plan mode, and returns its path.
func writePlan(t *testing.T, e env, home, session, name, text string) string {
	t.Helper()
	path := filepath.Join(home, PlansDir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	Maintain(Call{Project: e.project, Home: e.home, SessionID: session, PermissionMode: "plan", Tool: "Write",
		Input: json.RawMessage(`{"file_path":"` + path + `"}`)}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), io.Discard)
	return path
}

func exitReason(t *testing.T, e env, session string) string {
	t.Helper()
	deny := CheckExit(Call{Project: e.project, Home: e.home, SessionID: session, PermissionMode: "plan", Tool: "ExitPlanMode"}, io.Discard)
	if deny == "" {
		return "allowed"
	}
	return deny
}

func TestPostToolUseIndexesThePlan(t *testing.T) {
	home := t.TempDir()
	env := testEnv(home)
	path := writePlan(t, env, home, "s-1", "otter.md", "## Goals\n- x\n")
	entry := filepath.Join(home, PlanIndexDir, gate.IndexName("s-1"))
	data, err := os.ReadFile(entry)
	require.NoError(t, err)
	name, ok := gate.ParseIndexEntry(string(data), "s-1")
	require.True(t, ok)
	assert.Equal(t, filepath.Base(path), name)

	// An edit that changes nothing in the entry does not rewrite it.
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(entry, old, old))
	writePlan(t, env, home, "s-1", "otter.md", "## Goals\n- y\n")
	info, err := os.Stat(entry)
	require.NoError(t, err)
	assert.True(t, info.ModTime().Equal(old), "the entry was rewritten")

	// Another session's plan (its marker kept) is not indexed for s-2.
	writePlan(t, env, home, "s-2", "otter.md", string(mustRead(t, path)))
	_, err = os.Stat(filepath.Join(home, PlanIndexDir, gate.IndexName("s-2")))
	assert.True(t, os.IsNotExist(err))
}

// gapsPlan reaches the verdict check: an ExitPlanMode on it says "pending".
// A plan without a gaps block is refused for that instead.
const gapsPlan = "## Goals\n- x\n\n<!-- rodin:gaps:start -->\n<!-- rodin:gaps:end -->\n"

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// TestExitPlanModeUsesTheIndex: with an entry, the file it names is judged
// even when the scan would pick another (a newer file with the marker,
// written without the hook); without one the scan still finds the plan.
func TestExitPlanModeUsesTheIndex(t *testing.T) {
	home := t.TempDir()
	env := testEnv(home)
	writePlan(t, env, home, "s-1", "otter.md", gapsPlan)
	assert.Contains(t, exitReason(t, env, "s-1"), "pending")

	// A newer file carrying the marker, but not written through the hook,
	// with a corrupt validation line: the scan would judge it.
	forged := filepath.Join(home, PlansDir, "zebra.md")
	require.NoError(t, os.WriteFile(forged, []byte("## Goals\n- x\n<!-- rodin:session=s-1 -->\n<!-- rodin:validation={ -->\n"), 0o644))
	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(forged, future, future))
	assert.Contains(t, exitReason(t, env, "s-1"), "pending")

	require.NoError(t, os.RemoveAll(filepath.Join(home, PlanIndexDir)))
	assert.NotContains(t, exitReason(t, env, "s-1"), "pending", "without the index the scan picks the newest file")
}

// TestExitPlanModeIndexIsVerified: an entry that names a missing file, a
// file that lost the session's marker, or a path outside the folder costs a
// scan, never a wrong verdict.
func TestExitPlanModeIndexIsVerified(t *testing.T) {
	cases := map[string]func(t *testing.T, home, entry string){
		"named file removed": func(t *testing.T, home, entry string) {
			require.NoError(t, os.Remove(filepath.Join(home, PlansDir, "otter.md")))
		},
		"marker gone from the named file": func(t *testing.T, home, entry string) {
			require.NoError(t, os.WriteFile(filepath.Join(home, PlansDir, "otter.md"), []byte("## Goals\n- x\n"), 0o644))
		},
		"entry names a path outside the folder": func(t *testing.T, home, entry string) {
			require.NoError(t, os.WriteFile(entry, []byte(gate.IndexEntry("s-1", "../outside.md")), 0o644))
		},
		"entry for another session": func(t *testing.T, home, entry string) {
			require.NoError(t, os.WriteFile(entry, []byte(gate.IndexEntry("s-9", "otter.md")), 0o644))
		},
		"entry is a link": func(t *testing.T, home, entry string) {
			other := filepath.Join(home, "elsewhere")
			require.NoError(t, os.WriteFile(other, []byte(gate.IndexEntry("s-1", "otter.md")), 0o644))
			require.NoError(t, os.Remove(entry))
			require.NoError(t, os.Symlink(other, entry))
		},
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			env := testEnv(home)
			// The session's real plan, heron.md (newest), and an older one the
			// entry is made to name and then spoiled.
			otter := writePlan(t, env, home, "s-1", "otter.md", "## Goals\n- x\n")
			old := time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(otter, old, old))
			writePlan(t, env, home, "s-1", "heron.md", gapsPlan)
			entry := filepath.Join(home, PlanIndexDir, gate.IndexName("s-1"))
			require.NoError(t, os.WriteFile(entry, []byte(gate.IndexEntry("s-1", "otter.md")), 0o644))
			spoil(t, home, entry)
			_, ok := indexedPlan(home, canonPlans(t, home), "s-1")
			assert.False(t, ok)
			assert.Contains(t, exitReason(t, env, "s-1"), "pending", "the scan finds heron.md")
		})
	}
}

func canonPlans(t *testing.T, home string) []plansFolder {
	t.Helper()
	c, err := filepath.EvalSymlinks(filepath.Join(home, PlansDir))
	require.NoError(t, err)
	return []plansFolder{{filepath.Join(home, PlansDir), c}}
}

// TestExitPlanModeManyPlans: among many plans of other sessions, the
// session's own is found (through the index) and judged.
func TestExitPlanModeManyPlans(t *testing.T) {
	home := t.TempDir()
	env := testEnv(home)
	dir := filepath.Join(home, PlansDir)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i := 0; i < 200; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d.md", i)),
			[]byte(fmt.Sprintf("## Goals\n- x\n<!-- rodin:session=other-%d -->\n", i)), 0o644))
	}
	writePlan(t, env, home, "s-1", "mine.md", gapsPlan)
	_, ok := indexedPlan(home, canonPlans(t, home), "s-1")
	assert.True(t, ok)
	assert.Contains(t, exitReason(t, env, "s-1"), "pending")
}

// The index keeps an entry per plan-mode session, and the runs its hooks
// saw: a new entry sweeps those no hook has written for IndexKeep (Claude
// Code's own default retention of sessions), so the folder does not grow
// with every session ever run (review DD6). Anything else there is left.
func TestANewEntrySweepsOldOnes(t *testing.T) {
	home := t.TempDir()
	env := testEnv(home)
	dir := filepath.Join(home, PlanIndexDir)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) // writePlan's clock
	long := now.Add(-IndexKeep - time.Hour)
	recent := now.Add(-IndexKeep + time.Hour)
	files := map[string]time.Time{
		gate.IndexName("old"):            long,
		"runs-" + gate.IndexName("old"):  long,
		gate.IndexName("live"):           recent,
		"runs-" + gate.IndexName("live"): recent,
		"notes.txt":                      long,
	}
	for name, at := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte("x"), 0o600))
		require.NoError(t, os.Chtimes(path, at, at))
	}
	writePlan(t, env, home, "s-new", "otter.md", "## Goals\n- x\n")
	for name := range files {
		_, err := os.Lstat(filepath.Join(dir, name))
		if files[name].Equal(long) && name != "notes.txt" {
			assert.ErrorIs(t, err, os.ErrNotExist, "%s is swept", name)
		} else {
			assert.NoError(t, err, "%s stays", name)
		}
	}
	_, err := os.Stat(filepath.Join(dir, gate.IndexName("s-new")))
	assert.NoError(t, err, "the new entry is written")
}

// The entry names the plan file, not its folder: with plansDirectory set,
// the session's plan may be in the folder the setting names and, later, in
// Claude Code's default folder under the same name (review BL3). The
// ExitPlanMode check judges the one the session's hooks maintained last,
// as the scan does; it took the first folder's, an older plan of the same
// session, and that plan's pass let plan mode end on a plan no one had
// assessed (review DD9).
func TestTheIndexNamesNoFolderSoTheNewestIsJudged(t *testing.T) {
	c, exit, write := twoPlanFolders(t)

	// The plan kept where the setting says passes its gate.
	old := write(filepath.Join(c.Project, "plans"), evidencePlan, time.Now().Add(-time.Hour))
	prompts := gate.PromptsOf(evidencePlan)
	RecordRun(c, true, gate.Run{AgentID: "c1", Prompt: prompts.Critic, Done: true, Output: planCritic}, io.Discard)
	RecordRun(c, true, gate.Run{AgentID: "v1", Prompt: prompts.Validator + "\n\n" + planCritic, Done: true, Output: planValidator}, io.Discard)
	w := c
	w.Input, _ = json.Marshal(map[string]string{"file_path": old})
	require.NoError(t, os.WriteFile(old, append(must(os.ReadFile(old)), []byte(`<!-- rodin:verdict:signal={"status":"pass","reason":"covered"} -->`+"\n")...), 0o644))
	Maintain(w, time.Now().Add(-time.Hour), io.Discard)
	require.NoError(t, os.Chtimes(old, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)))
	require.Equal(t, "", CheckExit(exit, io.Discard), "the first plan passed")

	// Then the session's plan is saved in the default folder, changed.
	write(filepath.Join(c.Home, PlansDir), strings.Replace(evidencePlan, "Add the cron job.", "Add the cron job and drop every older backup.", 1), time.Now())
	deny := CheckExit(exit, io.Discard)
	assert.Contains(t, deny, "pending", "the newest plan of the session is judged, and it has no assessment")
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// A file in the plans folder larger than any plan is not read into memory
// by the ExitPlanMode check, through the index or the scan: a repository
// that points plansDirectory at a folder of its own can fill it with huge
// .md files, and a hook that runs out of memory is killed, which lets the
// call through (review DD12). When nothing else carries the session's
// marker, the refusal says which file was passed by.
func TestAPlanFileLargerThanAnyPlanIsNotRead(t *testing.T) {
	old := maxPlanFile
	maxPlanFile = 4 << 10
	defer func() { maxPlanFile = old }()
	home := t.TempDir()
	env := testEnv(home)
	big := writePlan(t, env, home, "s-1", "otter.md", gapsPlan+strings.Repeat("filler line\n", 400))
	assert.Greater(t, mustSize(t, big), maxPlanFile)
	assert.NotContains(t, string(must(os.ReadFile(big))), "rodin:session=", "the edit's hook passed it by") // review EB
	// Indexed and marked as the session's, it is still not read (review EB:
	// a mutant reading an indexed plan of any size survived: the edit's
	// hook had indexed nothing, so the index was never asked).
	f, err := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("<!-- rodin:session=s-1 -->\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, indexPlan(home, "s-1", big, time.Now()))
	// Through the index, then by the scan.
	for _, scan := range []bool{false, true} {
		if scan {
			require.NoError(t, os.RemoveAll(filepath.Join(home, PlanIndexDir)))
		}
		deny := exitReason(t, env, "s-1")
		assert.NotContains(t, deny, "pending", "scan %v: the large file was read and judged", scan)
		assert.Contains(t, deny, "larger than any plan", "scan %v", scan)
	}
	// A plan of the session's of ordinary size is judged as before.
	writePlan(t, env, home, "s-1", "heron.md", gapsPlan)
	assert.Contains(t, exitReason(t, env, "s-1"), "pending")
}

func mustSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	return info.Size()
}

// The other way round: an older, unassessed plan of the session's in the
// default folder does not stand for the newer one, assessed, kept where
// the setting says (review EB: a mutant that judged the last folder's
// plan, not the newest, survived the test above).
func TestTheNewestPlanIsJudgedWhateverItsFolder(t *testing.T) {
	c, exit, write := twoPlanFolders(t)
	write(filepath.Join(c.Home, PlansDir), strings.Replace(evidencePlan, "Add the cron job.", "Add the cron job and drop every older backup.", 1), time.Now().Add(-time.Hour))
	now := time.Now()
	newest := write(filepath.Join(c.Project, "plans"), evidencePlan, now)
	prompts := gate.PromptsOf(evidencePlan)
	RecordRun(c, true, gate.Run{AgentID: "c1", Prompt: prompts.Critic, Done: true, Output: planCritic}, io.Discard)
	RecordRun(c, true, gate.Run{AgentID: "v1", Prompt: prompts.Validator + "\n\n" + planCritic, Done: true, Output: planValidator}, io.Discard)
	require.NoError(t, os.WriteFile(newest, append(must(os.ReadFile(newest)), []byte(`<!-- rodin:verdict:signal={"status":"pass","reason":"covered"} -->`+"\n")...), 0o644))
	w := c
	w.Input, _ = json.Marshal(map[string]string{"file_path": newest})
	Maintain(w, now, io.Discard)
	require.NoError(t, os.Chtimes(newest, now, now))
	assert.Equal(t, "", CheckExit(exit, io.Discard), "the newest plan, assessed, passes")
}

// twoPlanFolders is a plan-mode session s1 in a project whose settings keep
// plans in plans/: its Write call c, its ExitPlanMode call exit, and write,
// which writes text as the session's plan brave-otter.md in dir, as its
// hooks maintain it, modified at at.
func twoPlanFolders(t *testing.T) (c, exit Call, write func(dir, text string, at time.Time) string) {
	t.Helper()
	c = Call{Project: t.TempDir(), Home: t.TempDir(), SessionID: "s1", PermissionMode: "plan", Tool: "Write"}
	require.NoError(t, os.MkdirAll(filepath.Join(c.Project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(c.Project, ".claude", "settings.json"), []byte(`{"plansDirectory":"plans"}`), 0o644))
	exit = Call{Project: c.Project, Home: c.Home, SessionID: "s1", Tool: "ExitPlanMode"}
	write = func(dir, text string, at time.Time) string {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		path := filepath.Join(dir, "brave-otter.md")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		w := c
		w.Input, _ = json.Marshal(map[string]string{"file_path": path})
		Maintain(w, at, io.Discard)
		require.NoError(t, os.Chtimes(path, at, at))
		return path
	}
	return c, exit, write
}
