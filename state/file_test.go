package state

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/plansmith/plansmith/converge"
)

func sampleLoop() Loop {
	return Loop{
		Active:            true,
		SessionID:         "3d94a655-edf3-4f8c-9940-e61026060e52",
		StartedAt:         time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		Request:           "Add auth",
		Phases:            []string{"understand", "explore", "draft"},
		RefineIterations:  2,
		MaxRetries:        3,
		CritiqueMode:      "principles",
		UseMemory:         true,
		BlockTools:        true,
		RequiredSections:  []string{"Goal", "Steps"},
		CompletionPromise: "PLAN_OK",
		Gate:              true,
		GateRetries:       2,
		Phase:             "understand",
	}
}

func TestRoundTripTrickyText(t *testing.T) {
	cases := map[string]string{
		"document marker line":  "first\n---\nsecond",
		"indented marker":       "a\n   ---   \nb",
		"only a marker":         "---",
		"quotes":                `say "hi" and 'bye'`,
		"colons and hash":       "key: value # not a comment",
		"backslashes":           `C:\path\to\file \n not a newline`,
		"korean":                "인증 기능을 추가해 주세요: 목표와 범위",
		"emoji and nul-free":    "ship it 🚀 — done",
		"leading spaces":        "   indented start",
		"trailing newline":      "ends with newline\n",
		"crlf":                  "windows\r\nline",
		"yaml keywords":         "yes",
		"number-like":           "0x1F",
		"flow characters":       "[a, b] {c: d} & * ! | > % @ `",
		"document end marker":   "a\n...\nb",
		"tabs":                  "\tx\ty",
		"promise-like":          `<promise>"PLAN_OK"</promise>`,
		"empty lines in middle": "a\n\n\n---\n\n",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			l := sampleLoop()
			l.Request = text
			l.CompletionPromise = `He said "done" --- ok`
			l.RequiredSections = []string{text, "Steps"}
			assertRoundTrip(t, &File{Loop: l, Body: "body\n---\nmore\n"})
		})
	}
}

func assertRoundTrip(t *testing.T, f *File) {
	t.Helper()
	data, err := Marshal(f)
	require.NoError(t, err)
	got, err := Parse(data)
	require.NoError(t, err, "file was:\n%s", data)
	assert.Equal(t, f.Loop.Request, got.Loop.Request)
	assert.Equal(t, f.Loop.CompletionPromise, got.Loop.CompletionPromise)
	assert.Equal(t, f.Loop.RequiredSections, got.Loop.RequiredSections)
	assert.Equal(t, f.Body, got.Body)
	assert.Equal(t, f.Loop, got.Loop)
}

// TestRoundTripProperty builds random texts from the characters that broke
// the original's hand-rolled YAML and checks every one round-trips exactly.
func TestRoundTripProperty(t *testing.T) {
	pieces := []string{"---", "-", "\n", "\r\n", " ", "\t", `"`, "'", ":", "#", `\`, "{", "}", "[", "]",
		"a", "Z", "9", "목표", "é", "…", "|", ">", "&", "*", "!", "%", "@", "`", "...", "<promise>", "\u00a0", "\u2028"}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for n := r.Intn(12); n >= 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		text := b.String()
		l := sampleLoop()
		l.Request = text
		l.CompletionPromise = text + "x"
		f := &File{Loop: l, Body: text}
		data, err := Marshal(f)
		require.NoError(t, err)
		got, err := Parse(data)
		require.NoError(t, err, "text %q gave file:\n%s", text, data)
		require.Equal(t, text, got.Loop.Request, "file:\n%s", data)
		require.Equal(t, text+"x", got.Loop.CompletionPromise)
		require.Equal(t, text, got.Body)
	}
}

func TestParseRejectsCorruptFiles(t *testing.T) {
	cases := map[string]string{
		"empty":              "",
		"no frontmatter":     "# just markdown\n",
		"unclosed":           "---\nactive: true\nphases: [a]\n",
		"bad yaml":           "---\nactive: [true\n---\n",
		"wrong type":         "---\nactive: maybe\nphases: [a]\n---\n",
		"no phases":          "---\nactive: true\n---\n",
		"index out of range": "---\nactive: true\nphases: [understand]\nphase_index: 5\n---\n",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(data))
			assert.Error(t, err)
		})
	}
}

func TestLoadReportsMissingAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "nope.md"))
	assert.True(t, errors.Is(err, fs.ErrNotExist))

	bad := filepath.Join(dir, "bad.md")
	require.NoError(t, os.WriteFile(bad, []byte("---\nactive: [\n---\n"), 0o644))
	_, err = Load(bad)
	var corrupt *CorruptError
	require.ErrorAs(t, err, &corrupt)
	assert.Contains(t, err.Error(), bad)
}

func TestSaveIsAtomicAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := Paths{Project: dir}
	f := &File{Loop: sampleLoop(), Body: "hello\n"}
	require.NoError(t, Save(p.State(), f))
	got, err := Load(p.State())
	require.NoError(t, err)
	assert.Equal(t, f.Loop, got.Loop)
	entries, err := os.ReadDir(filepath.Dir(p.State()))
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.Contains(e.Name(), ".tmp-"), "temp file left: %s", e.Name())
	}
}

// A write that fails at the rename (a folder stands where the file goes)
// reports it and leaves no temporary file behind.
func TestFailedWriteLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "state.md")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "inside"), 0o755))
	err := WriteFile(target, []byte("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writing "+target)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the folder is left")
	assert.Equal(t, "state.md", entries[0].Name())
}

func TestOutputsRoundTrip(t *testing.T) {
	f := &File{Body: "# loop\n"}
	tricky := "text with a fake header\n<!-- plansmith:output phase=x round=0 bytes=3 -->\nabc\n<!-- /plansmith:output -->\nend"
	f.AppendOutput(Output{Phase: "understand", Text: "1. a\n2. b"})
	f.AppendOutput(Output{Phase: "draft", Text: tricky})
	f.AppendOutput(Output{Phase: "critique", Round: 1, Text: "P1: FAIL"})
	outs := f.Outputs()
	require.Len(t, outs, 3)
	assert.Equal(t, Output{Phase: "draft", Text: tricky}, outs[1])
	assert.Equal(t, 1, outs[2].Round)
	assert.Equal(t, tricky, f.BestPlan())
}

func TestOutputsSkipDamagedRecords(t *testing.T) {
	f := &File{Body: "<!-- plansmith:output phase=draft round=0 bytes=999 -->\nshort\n"}
	assert.Empty(t, f.Outputs())
	assert.Equal(t, "", f.BestPlan())
}

func TestArchiveRemovesStateAndMarksInactive(t *testing.T) {
	dir := t.TempDir()
	p := Paths{Project: dir}
	f := &File{Loop: sampleLoop()}
	require.NoError(t, Save(p.State(), f))
	now := time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC)
	dst, err := Archive(p, f, ExitCancelled, now)
	require.NoError(t, err)
	_, err = os.Stat(p.State())
	assert.True(t, errors.Is(err, fs.ErrNotExist))
	got, err := Load(dst)
	require.NoError(t, err)
	assert.False(t, got.Loop.Active)
	assert.Equal(t, ExitCancelled, got.Loop.ExitReason)

	// A second archive in the same second gets a distinct name.
	require.NoError(t, Save(p.State(), &File{Loop: sampleLoop()}))
	dst2, err := Archive(p, &File{Loop: sampleLoop()}, ExitCancelled, now)
	require.NoError(t, err)
	assert.NotEqual(t, dst, dst2)
}

func TestArchiveFailureStillDeactivates(t *testing.T) {
	dir := t.TempDir()
	p := Paths{Project: dir}
	require.NoError(t, Save(p.State(), &File{Loop: sampleLoop()}))
	// A file where the archive folder's folder should be: the archive
	// cannot be written. (One where the archive folder goes is moved
	// aside: TestAFileWhereTheArchiveGoesIsMovedAside.)
	require.NoError(t, os.WriteFile(p.Work(), nil, 0o644))

	_, err := Archive(p, &File{Loop: sampleLoop()}, ExitCompleted, time.Now())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "marked inactive")
	got, err := Load(p.State())
	require.NoError(t, err)
	assert.False(t, got.Loop.Active, "an ended loop must not stay active when its archive fails")
	assert.Equal(t, ExitCompleted, got.Loop.ExitReason)
}

// A file where the archive folder goes (a repository can carry one) is
// moved aside, as the lock's folder is: otherwise no loop could be
// archived, a corrupt one included, and none could end (review BI1).
func TestAFileWhereTheArchiveGoesIsMovedAside(t *testing.T) {
	p := Paths{Project: t.TempDir()}
	require.NoError(t, os.MkdirAll(p.Work(), 0o755))
	require.NoError(t, os.WriteFile(p.Archive(), []byte("junk"), 0o644))
	require.NoError(t, os.WriteFile(p.State(), []byte("not a state file"), 0o644))
	dst, err := ArchiveRaw(p, ExitCorrupt, time.Now())
	require.NoError(t, err)
	assert.Equal(t, p.Archive(), filepath.Dir(dst))
	assert.DirExists(t, p.Archive())
	moved, err := filepath.Glob(p.Archive() + ".moved-*")
	require.NoError(t, err)
	require.Len(t, moved, 1)
	junk, err := os.ReadFile(moved[0])
	require.NoError(t, err)
	assert.Equal(t, "junk", string(junk), "the file moved as it was")
	assert.NoFileExists(t, p.State())
}

func TestLockSerialises(t *testing.T) {
	p := Paths{Project: t.TempDir()}
	unlock, err := Lock(p)
	require.NoError(t, err)
	acquired := make(chan struct{})
	go func() {
		u, err := Lock(p)
		if err == nil {
			u()
		}
		close(acquired)
	}()
	select {
	case <-acquired:
		t.Fatal("second lock acquired while the first was held")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	<-acquired
}

// A lock held past LockWait is given up with a LockTimeoutError naming the
// lock; the wait left behind releases the lock the moment it gets it, so
// the lock is free again as soon as its holder lets go.
func TestLockGivesUpAfterLockWait(t *testing.T) {
	old := LockWait
	LockWait = 50 * time.Millisecond
	t.Cleanup(func() { LockWait = old })
	p := Paths{Project: t.TempDir()}
	unlock, err := Lock(p)
	require.NoError(t, err)

	_, err = Lock(p)
	var timeout *LockTimeoutError
	require.ErrorAs(t, err, &timeout)
	assert.Equal(t, p.Lock(), timeout.Path)
	assert.Contains(t, err.Error(), "another plansmith process has held the project's lock")

	unlock()
	LockWait = 10 * time.Second
	again, err := Lock(p)
	require.NoError(t, err, "the abandoned wait must not keep the lock")
	again()
}

func TestRoundTripConvergence(t *testing.T) {
	l := sampleLoop()
	l.CritiqueMode, l.FinalNext = CritiqueConverge, true
	l.Convergence = &Convergence{
		Verdict: converge.ReviseStrong, Next: converge.FinalRevise, Reason: `SIGNIFICANT C2 left: "slow" --- path`,
		Complexity: &converge.Complexity{Score: 8, Steps: 3, Domains: []string{"backend", "data"}, Integrations: []string{"payments"}, Unknowns: 4, Files: 6, Team: converge.Scaled},
		Scores:     &converge.Scores{ApproachSoundness: 7, RiskCoverage: 6, AssumptionValidity: 5, IntegrationFeasibility: 8, UnknownsCoverage: 4, ConstraintAlignment: 9},
		Ledger: converge.Ledger{Iteration: 2, Limit: 3, Degraded: true,
			Rounds: []converge.Round{{Iteration: 1, New: 2}, {Iteration: 2, New: 1, Resolved: 0, Degraded: true}},
			Challenges: []converge.Entry{
				{ID: "C1", Claim: "cache: never \"invalidated\"\n---", Severity: converge.Blocking, Status: converge.Resolved,
					History: []converge.Mark{{Iteration: 1, Status: converge.Open}, {Iteration: 2, Status: converge.Resolved}}},
				{ID: "C2", Claim: "인증 지연", Severity: converge.Significant, Status: converge.Unresolved, Mitigation: "retry",
					History: []converge.Mark{{Iteration: 2, Status: converge.Unresolved}}},
			}},
	}
	assertRoundTrip(t, &File{Loop: l, Body: "body\n"})

	l.Convergence = &Convergence{} // before the first critique
	assertRoundTrip(t, &File{Loop: l, Body: "body\n"})
}

func TestEncodeInlineStruct(t *testing.T) {
	type Inner struct {
		A string `yaml:"a"`
		N int    `yaml:"n,omitempty"`
	}
	type outer struct {
		Inner `yaml:",inline"`
		B     []string `yaml:"b"`
	}
	in := outer{Inner{A: "x: \"y\"\n---", N: 2}, []string{"c"}}
	n, err := encodeExact(reflect.ValueOf(in))
	require.NoError(t, err)
	out, err := yaml.Marshal(n)
	require.NoError(t, err)
	assert.Equal(t, "a: \"x: \\\"y\\\"\\n---\"\nn: 2\nb:\n    - \"c\"\n", string(out))
	var back outer
	require.NoError(t, yaml.Unmarshal(out, &back))
	assert.Equal(t, in, back)
}

func TestKeepAttemptKeepsTheClosest(t *testing.T) {
	f := &File{Body: "# loop\n"}
	f.AppendOutput(Output{Phase: "understand", Text: "1. a"})
	_, _, ok := f.BestAttempt()
	assert.False(t, ok)

	fake := "text with a fake header\n<!-- plansmith:output phase=draft round=0 bytes=3 attempt=1 missing=0 -->\nabc\n<!-- /plansmith:output -->"
	f.KeepAttempt("draft", 3, fake)
	f.KeepAttempt("draft", 1, "close")
	f.KeepAttempt("draft", 4, "Not an analysis at all.")
	text, missing, ok := f.BestAttempt()
	require.True(t, ok)
	assert.Equal(t, "close", text)
	assert.Equal(t, 1, missing)
	f.KeepAttempt("draft", 1, "as close, newer")
	text, _, _ = f.BestAttempt()
	assert.Equal(t, "as close, newer", text, "a tie goes to the newer answer")
	assert.Equal(t, "as close, newer", f.BestPlan(), "with no passed plan, the closest attempt is the best plan")
	assert.Equal(t, []Output{{Phase: "understand", Text: "1. a"}}, f.Outputs(), "attempts are not phase answers")

	f.KeepAttempt("revise", 5, "another phase replaces it")
	text, _, _ = f.BestAttempt()
	assert.Equal(t, "another phase replaces it", text)

	f.AppendOutput(Output{Phase: "draft", Text: "passed draft"})
	assert.Equal(t, "passed draft", f.BestPlan(), "a passed plan beats any attempt")
	f.DropAttempt()
	_, _, ok = f.BestAttempt()
	assert.False(t, ok)
	assert.Equal(t, 2, strings.Count(f.Body, recordPrefix), "only the two answers are left:\n%s", f.Body)

	// The body round-trips through the file.
	f.KeepAttempt("critique", 2, fake)
	data, err := Marshal(&File{Loop: sampleLoop(), Body: f.Body})
	require.NoError(t, err)
	back, err := Parse(data)
	require.NoError(t, err)
	text, missing, ok = back.BestAttempt()
	require.True(t, ok)
	assert.Equal(t, fake, text)
	assert.Equal(t, 2, missing)
	assert.Len(t, back.Outputs(), 2)
}

// A stray byte that is not UTF-8 never fails a save (YAML cannot hold it):
// it reads back as U+FFFD.
func TestMarshalReplacesInvalidUTF8(t *testing.T) {
	l := sampleLoop()
	l.Request = "add \xff caching"
	data, err := Marshal(&File{Loop: l})
	require.NoError(t, err)
	got, err := Parse(data)
	require.NoError(t, err)
	assert.Equal(t, "add \uFFFD caching", got.Loop.Request)
}

// A frontmatter of tens of thousands of keys (a repository can carry one
// in a subfolder) is corrupt, not minutes of yaml.v3 comparing every key
// with every other; a deep or long list of what a state file holds is not.
func TestParseRefusesAHugeMapping(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nactive: false\nphases: [understand]\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	b.WriteString("---\nbody\n")
	_, err := Parse([]byte(b.String()))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "keys; plansmith writes at most 128")

	b.Reset()
	b.WriteString("---\nactive: true\nphases:\n")
	for i := 0; i < 5000; i++ {
		b.WriteString("- understand\n")
	}
	b.WriteString("gate_runs:\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "- agent_id: a%d\n  done: true\n  output: \"x\"\n", i)
	}
	b.WriteString("---\n")
	f, err := Parse([]byte(b.String()))
	require.NoError(t, err)
	assert.Len(t, f.Loop.Phases, 5000)
	assert.Len(t, f.Loop.GateRuns, 200)
}

// Save never writes a state file whose frontmatter could not be read back
// (review CI2): a long request (or a ledger of long claims) made one that
// the next hook found corrupt, ending the loop. The file on disk is left
// as it was.
func TestSaveRefusesAFrontmatterItCannotReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "plansmith.local.md")
	f := &File{Loop: sampleLoop(), Body: "body\n"}
	require.NoError(t, Save(path, f))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	f.Loop.Request = strings.Repeat("a", frontLimit)
	err = Save(path, f)
	var tooLarge *FrontmatterTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Contains(t, err.Error(), "more than the 1024 KiB plansmith reads back")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))

	f.Loop.Request = strings.Repeat("a", frontLimit-4<<10)
	require.NoError(t, Save(path, f), "one that fits is written")
	back, err := LoadHead(path)
	require.NoError(t, err, "and read back")
	assert.Equal(t, f.Loop.Request, back.Loop.Request)
}
