package state

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/plainfile"
)

func TestSplitFrontmatterClosingLine(t *testing.T) {
	cases := []struct {
		name, data, front, body string
		err                     bool
	}{
		{name: "plain", data: "---\na: 1\n---\nbody\n", front: "a: 1\n", body: "body\n"},
		{name: "closing line at the end without newline", data: "---\na: 1\n---", front: "a: 1\n", body: ""},
		{name: "white space around the closing line", data: "---\na: 1\n  --- \t\nbody", front: "a: 1\n", body: "body"},
		{name: "CRLF closing line", data: "---\na: 1\n---\r\nbody", front: "a: 1\n", body: "body"},
		{name: "four dashes do not close", data: "---\na: 1\n----\n---\nb", front: "a: 1\n----\n", body: "b"},
		{name: "the first closing line wins", data: "---\na: 1\n---\n---\n", front: "a: 1\n", body: "---\n"},
		{name: "empty frontmatter", data: "---\n---\nbody", front: "", body: "body"},
		{name: "unclosed", data: "---\na: 1\n", err: true},
		{name: "no opening line", data: "a: 1\n---\n", err: true},
		{name: "opening line with a space", data: "--- \na: 1\n---\n", err: true},
		// An editor's CRLF line ends and byte-order mark (review BT2).
		{name: "CRLF throughout", data: "---\r\na: 1\r\nb: 2\r\n---\r\nbody\r\nmore\r\n", front: "a: 1\nb: 2\n", body: "body\nmore\n"},
		{name: "CRLF opening line only", data: "---\r\na: 1\n---\nbody\n", front: "a: 1\n", body: "body\n"},
		{name: "CRLF lines after an LF opening line", data: "---\na: 1\r\n---\r\nbody\r\n", front: "a: 1\n", body: "body\n"},
		{name: "a CRLF body after an LF closing line is kept", data: "---\r\na: 1\r\n---\nbody\r\n", front: "a: 1\n", body: "body\r\n"},
		{name: "a body with LF lines keeps its CRLF", data: "---\r\na: 1\r\n---\r\nan answer\r\nwith both\n", front: "a: 1\n", body: "an answer\r\nwith both\n"},
		{name: "byte-order mark", data: "\ufeff---\na: 1\n---\nbody\n", front: "a: 1\n", body: "body\n"},
		{name: "byte-order mark and CRLF", data: "\ufeff---\r\na: 1\r\n---\r\nbody\r\n", front: "a: 1\n", body: "body\n"},
		{name: "byte-order mark, empty frontmatter", data: "\ufeff---\r\n---\r\n", front: "", body: ""},
		{name: "byte-order mark alone", data: "\ufeff", err: true},
		{name: "byte-order mark twice", data: "\ufeff\ufeff---\na: 1\n---\n", err: true},
		{name: "CR alone", data: "---\ra: 1\r---\r", err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			front, body, err := splitFrontmatter([]byte(c.data))
			if c.err {
				assert.Error(t, err)
				_, _, _, err := readHead(strings.NewReader(c.data))
				assert.Error(t, err, "readHead agrees")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.front, string(front))
			assert.Equal(t, c.body, string(body))

			// readHead agrees, whatever sizes the reads come in.
			for _, r := range []io.Reader{strings.NewReader(c.data), iotest.OneByteReader(strings.NewReader(c.data)),
				iotest.DataErrReader(strings.NewReader(c.data))} {
				hf, at, closedCRLF, err := readHead(r)
				require.NoError(t, err)
				assert.Equal(t, c.front, string(hf))
				assert.Equal(t, c.body, string(bodyLF([]byte(c.data[at:]), closedCRLF)))
			}
		})
	}
}

// countingReader fails the test if more than limit bytes are read.
type countingReader struct {
	r     io.Reader
	n     int
	limit int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	if c.n > c.limit {
		return n, errors.New("read past the limit")
	}
	return n, err
}

func TestReadHeadStopsAtTheBody(t *testing.T) {
	f := &File{Loop: sampleLoop(), Body: strings.Repeat("an answer the agent gave\n", 1<<20)}
	data, err := Marshal(f)
	require.NoError(t, err)
	front, _, err := splitFrontmatter(data)
	require.NoError(t, err)
	r := &countingReader{r: bytes.NewReader(data), limit: len(front) + 2*headChunk}
	got, at, _, err := readHead(r)
	require.NoError(t, err)
	assert.Equal(t, front, got)
	assert.Equal(t, f.Body, string(data[at:]))
}

func TestLoadHeadMatchesLoad(t *testing.T) {
	pieces := []string{"---", "-", "\n", "\r\n", " ", `"`, ":", "#", "목표", "<promise>", "\u2028"}
	r := rand.New(rand.NewSource(2))
	dir := t.TempDir()
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for n := r.Intn(12); n >= 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		l := sampleLoop()
		l.Request = b.String()
		path := filepath.Join(dir, "state.md")
		require.NoError(t, Save(path, &File{Loop: l, Body: b.String() + b.String()}))
		full, err := Load(path)
		require.NoError(t, err)
		head, err := LoadHead(path)
		require.NoError(t, err)
		assert.Equal(t, full.Loop, head.Loop)
		assert.Empty(t, head.Body)
	}
}

func TestLoadHeadErrorsAreLoads(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadHead(filepath.Join(dir, "nope.md"))
	assert.True(t, errors.Is(err, fs.ErrNotExist))
	for name, data := range map[string]string{
		"empty":     "",
		"unclosed":  "---\nactive: true\nphases: [a]\n",
		"bad yaml":  "---\nactive: [true\n---\n",
		"no phases": "---\nactive: true\n---\n",
		"markdown":  "# just markdown\n",
	} {
		path := filepath.Join(dir, name+".md")
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
		_, err := LoadHead(path)
		var corrupt *CorruptError
		assert.ErrorAs(t, err, &corrupt, name)
	}
}

func TestSaveHeadKeepsTheBody(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.md")
	body := "\n## Request\nAdd auth\n" + strings.Repeat("x", 3*headChunk) + "\n---\nnot frontmatter\n"
	require.NoError(t, Save(path, &File{Loop: sampleLoop(), Body: body}))

	f, err := LoadHead(path)
	require.NoError(t, err)
	f.Loop.ConsecutiveBlocks = 0
	f.Loop.Request = "a longer request, so the frontmatter grows"
	require.NoError(t, Save(path, f))

	got, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, body, got.Body)
	assert.Equal(t, f.Loop, got.Loop)

	f.Body = "changed"
	assert.Error(t, Save(path, f), "a head-only file must not replace the body")
	got, err = Load(path)
	require.NoError(t, err)
	assert.Equal(t, body, got.Body)
}

func TestLoadHeadRefusesWhatLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	p := Paths{Project: dir}
	require.NoError(t, os.MkdirAll(filepath.Dir(p.State()), 0o755))
	real := filepath.Join(dir, "real.md")
	require.NoError(t, Save(real, &File{Loop: sampleLoop()}))
	require.NoError(t, os.Symlink(real, p.State()))
	_, lerr := Load(p.State())
	_, herr := LoadHead(p.State())
	var link *LinkError
	assert.ErrorAs(t, lerr, &link)
	assert.ErrorAs(t, herr, &link)

	require.NoError(t, os.Remove(p.State()))
	require.NoError(t, os.Mkdir(p.State(), 0o755))
	_, herr = LoadHead(p.State())
	var corrupt *CorruptError
	assert.ErrorAs(t, herr, &corrupt)
}

// A planted state file of gigabytes with no closing line (review I, F5: one
// hook call took 29 s and 6 GB) is corrupt after frontLimit, not read whole.
func TestLoadHeadStopsAtTheFrontmatterLimit(t *testing.T) {
	old := frontLimit
	frontLimit = 1 << 20
	defer func() { frontLimit = old }()
	path := plantedState(t, "---\nactive: true\n", 64<<20) // zeros, no closing line
	_, err := LoadHead(path)
	var corrupt *CorruptError
	require.ErrorAs(t, err, &corrupt)
	assert.Contains(t, err.Error(), "does not end within its first 1 MiB")
}

// A frontmatter past frontLimit that is closed (a planted state file the
// next Stop reads whole) is corrupt before yaml.v3 builds a tree of it.
func TestParseRefusesAFrontmatterPastTheLimit(t *testing.T) {
	old := frontLimit
	frontLimit = 64 << 10
	defer func() { frontLimit = old }()
	front := "---\nactive: true\nphases: [understand]\nx:\n" + strings.Repeat("- a\n", 20000) + "---\nbody\n"
	_, err := Parse([]byte(front))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than")
	path := filepath.Join(t.TempDir(), ".claude", "plansmith.local.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(front), 0o644))
	_, err = Load(path)
	var corrupt *CorruptError
	require.ErrorAs(t, err, &corrupt)
	_, err = LoadHead(path)
	require.ErrorAs(t, err, &corrupt, "LoadHead agrees")
}

// Load and every read of plansmith's own files stop at ownedLimit: a file
// longer is corrupt, moved aside by the session's Stop, never read whole.
func TestLoadStopsAtTheFileLimit(t *testing.T) {
	old := ownedLimit
	ownedLimit = 1 << 20
	defer func() { ownedLimit = old }()
	path := plantedState(t, "", 8<<20)
	_, err := Load(path)
	var corrupt *CorruptError
	require.ErrorAs(t, err, &corrupt)
	assert.ErrorIs(t, err, plainfile.ErrTooLarge)
	_, err = ReadOwned(path)
	assert.ErrorIs(t, err, plainfile.ErrTooLarge)
}

// plantedState is a state file as a repository could plant one: start,
// then zeros up to size bytes (a sparse file, nothing written to disk).
func plantedState(t *testing.T, start string, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".claude", "plansmith.local.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(start), 0o644))
	require.NoError(t, os.Truncate(path, size))
	return path
}

// An editor that saves the state file with CRLF line ends, or puts a
// byte-order mark first, leaves a loop both readers read as before: the
// same frontmatter, no value with a trailing "\r", the same answers and
// gate texts; a save after LoadHead keeps them (review BT2).
func TestLoadAndLoadHeadReadAnEditorsSave(t *testing.T) {
	critic := "FINDING: counters reset\non failover\r\n(a CRLF of its own)"
	f := gateFile(critic, "validator prompt\nline two", "VERDICT: PASS")
	f.Loop.Request = "Add rate limiting\nper client"
	f.AppendOutput(Output{Phase: "draft", Round: 1, Text: "# Plan\n\n## Goal\nlimit\n"})
	lf, err := Marshal(f)
	require.NoError(t, err)
	want, err := Parse(lf)
	require.NoError(t, err)

	crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n")) // as unix2dos or sed 's/$/\r/' write it
	forms := map[string][]byte{
		"CRLF throughout":        crlf,
		"CRLF opening line only": append([]byte("---\r\n"), lf[len("---\n"):]...),
		"byte-order mark":        append([]byte("\ufeff"), lf...),
		"byte-order mark, CRLF":  append([]byte("\ufeff"), crlf...),
	}
	for name, data := range forms {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "plansmith.local.md")
			require.NoError(t, os.WriteFile(path, data, 0o600))

			full, err := Load(path)
			require.NoError(t, err)
			assert.Equal(t, want.Loop, full.Loop)
			assert.Equal(t, want.Body, full.Body)
			assert.Equal(t, want.Outputs(), full.Outputs())
			assert.Equal(t, critic, full.Loop.GateRuns[0].Output)

			head, err := LoadHead(path)
			require.NoError(t, err)
			wantHead := want.Loop
			wantHead.GateRuns = append(gate.Runs(nil), want.Loop.GateRuns...)
			for i := range wantHead.GateRuns {
				wantHead.GateRuns[i].Output, wantHead.GateRuns[i].Prompt = "", ""
			}
			assert.Equal(t, wantHead, head.Loop)

			// A hook that read the head saves: the file is the LF one,
			// its answers and texts kept.
			head.Loop.PhaseIndex = 1
			require.NoError(t, Save(path, head))
			again, err := Load(path)
			require.NoError(t, err)
			assert.Equal(t, 1, again.Loop.PhaseIndex)
			assert.Equal(t, want.Outputs(), again.Outputs())
			assert.Equal(t, critic, again.Loop.GateRuns[0].Output)
			assert.Equal(t, "validator prompt\nline two", again.Loop.GateRuns[1].Prompt)
		})
	}
}
