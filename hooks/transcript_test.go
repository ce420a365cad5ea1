package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/loop"
)

func TestLastMessagePrefersInputField(t *testing.T) {
	msg := "from the input"
	got, err := lastMessage(Input{LastAssistantMessage: &msg, TranscriptPath: "../testdata/hooks/transcript.jsonl"}, nil)
	require.NoError(t, err)
	assert.Equal(t, msg, got)
}

func TestLastMessageFallsBackToTranscript(t *testing.T) {
	got, err := lastMessage(Input{TranscriptPath: "../testdata/hooks/transcript.jsonl"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "1. First point\n2. Second point", got, "joins the last message's text blocks, skipping sidechains and junk lines")
}

// Every way the answer cannot be read is a *loop.NoAnswerError, returned at
// once: a FIFO or a device never blocks the hook.
func TestLastMessageNoAnswer(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	// A transcript whose last line is the user's: the answer is not there
	// (yet), which is not an empty answer (review X, F5).
	noAnswer := filepath.Join(dir, "prompt-last.jsonl")
	require.NoError(t, os.WriteFile(noAnswer, []byte(`{"type":"assistant","message":{"content":"old"}}`+"\n"+`{"type":"user","message":{"content":"go on"}}`+"\n"), 0o644))
	// One whose only answer is longer than the limit.
	huge := filepath.Join(dir, "huge.jsonl")
	require.NoError(t, os.WriteFile(huge, []byte(`{"type":"assistant","message":{"content":"`+strings.Repeat("x", maxTranscriptTail+10)+`"}}`+"\n"), 0o644))
	cases := map[string]struct {
		in   Input
		want string
	}{
		"no field, no path":          {Input{}, "neither last_assistant_message nor transcript_path"},
		"missing":                    {Input{TranscriptPath: "/nonexistent/t.jsonl"}, "/nonexistent/t.jsonl cannot be opened (no such file or directory)"},
		"a folder":                   {Input{TranscriptPath: dir}, "is not a regular file"},
		"a device":                   {Input{TranscriptPath: "/dev/zero"}, "/dev/zero is not a regular file"},
		"a FIFO":                     {Input{TranscriptPath: fifo}, "is not a regular file"},
		"no answer after the prompt": {Input{TranscriptPath: noAnswer}, "holds no answer of the agent's after its last prompt"},
		"an answer past the limit":   {Input{TranscriptPath: huge}, "in its last 16 MiB"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := lastMessage(tc.in, nil); done <- err }()
			select {
			case err := <-done:
				var na *loop.NoAnswerError
				require.ErrorAs(t, err, &na)
				assert.Contains(t, na.Why, tc.want)
			case <-time.After(5 * time.Second):
				t.Fatal("reading the transcript blocked")
			}
		})
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// A long session's transcript is read from its end, and only as far back
// as the last answer goes (bounded by the limit): not the whole file.
func TestTranscriptIsReadFromTheEnd(t *testing.T) {
	var b strings.Builder
	old := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("old ", 64) + `"}]}}` + "\n"
	for b.Len() < 8<<20 {
		b.WriteString(old)
	}
	long := strings.Repeat("a long answer line ", 20000) // one line longer than a read step
	b.WriteString(`{"type":"user","message":{"content":"go on"}}` + "\n")
	b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"` + long + `"}]}}` + "\n")
	b.WriteString(`{"type":"assistant","message":{"content":"the end"}}` + "\n")
	path := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))

	got, _, err := transcriptLastMessage(path, maxTranscriptTail, time.Time{})
	require.NoError(t, err)
	assert.Equal(t, long+"\nthe end", got)

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	cr := &countingReader{r: f}
	var lines int
	require.NoError(t, scanLinesBackwards(cr, int64(b.Len()), maxTranscriptTail, func(line []byte) bool {
		lines++
		return !strings.Contains(string(line), `"user"`)
	}))
	assert.Equal(t, 3, lines)
	assert.Less(t, cr.n, int64(1<<20), "read %d bytes of %d to find the last answer", cr.n, b.Len())

	// With no user line in reach, reading stops at the limit and a line
	// cut by it is not passed on.
	cr = &countingReader{r: f}
	var seen []string
	require.NoError(t, scanLinesBackwards(cr, int64(b.Len()), 1<<20, func(line []byte) bool {
		seen = append(seen, string(line))
		return true
	}))
	assert.LessOrEqual(t, cr.n, int64(1<<20))
	for _, l := range seen {
		assert.True(t, strings.HasPrefix(l, "{"), "a cut line was passed on: %.40q", l)
	}
}

func TestBlockCap(t *testing.T) {
	// As Claude Code reads it (review AD3): trimmed, as a number, else by
	// its leading digits.
	// its leading digits; where it may read a value otherwise, no higher
	// than it could (review AF5).
	cases := map[string]int{"": 8, "3": 3, "0": 0, "-1": 0, "junk": 8, "4 ": 4, " 4": 4, "4.0": 4, "4.5": 4,
		"4 # lower": 4, "1e1": 1, "0.5": 1, "-3x": 8, "inf": 8, "12abc": 8, "20": 20,
		"1_0": 1, "10_0": 8, "9.5e0": 8, "1.55e1": 1, "0000000000000000000000000000001e1": 1}
	for v, want := range cases {
		env := loop.Env{Getenv: func(string) string { return v }}
		assert.Equal(t, want, blockCap(env), "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%q", v)
		// The setting is named in the pause when the cap is a reading of it.
		plain := v == "" || v == "3" || v == "0" || v == "-1" || v == "20" || v == "4 " || v == " 4"
		if plain {
			assert.Empty(t, blockCapSet(env), "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%q", v)
		} else {
			assert.Equal(t, v, blockCapSet(env), "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%q", v)
		}
	}
}

// An answer cut at the model's output limit and resumed by the client is
// given whole (review CO6). The transcript is the one Claude Code 2.1.330
// wrote for such a turn (paths neutralised): the plan's first sections in
// a message cut at max_tokens, the client's prompt to resume, then the
// rest, which is all the Stop input's last_assistant_message holds.
func TestAnAnswerResumedAfterTheOutputLimitIsWhole(t *testing.T) {
	// 2.1.330 writes its prompt to resume as a meta user line between the
	// two messages; 2.1.197 writes none.
	for _, cli := range []string{"2.1.197", "2.1.330"} {
		path := "../testdata/hooks/claude-code-" + cli + "/transcript-max-tokens.jsonl"
		rest := "## Verification\n- `go test ./...` passes; the load test in step 5 shows the cap"
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		tail := lastAssistantText(t, string(data))
		require.True(t, strings.HasPrefix(tail, rest), "%s: the fixture's last message is the resumed part", cli)

		got, ok, _ := wholeAnswer(path, tail, 0, time.Time{})
		require.True(t, ok, cli)
		assert.True(t, strings.HasPrefix(got, "## Goal\n"), "%s: the part before the cut comes first", cli)
		assert.True(t, strings.HasSuffix(got, tail), "%s: then the resumed part", cli)
		for _, h := range []string{"## Goal", "## Scope", "## Non-Scope", "## Steps", "## Verification", "## Risks", "## Open Questions"} {
			assert.Contains(t, got, h, cli)
		}
	}
	const path = "../testdata/hooks/claude-code-2.1.330/transcript-max-tokens.jsonl"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	tail := lastAssistantText(t, string(data))

	// The Stop's answer is not the transcript's last yet (the client
	// writes it a little later): waited for, then given up on.
	start := time.Now()
	_, ok, behind := wholeAnswer(path, "something else", 100*time.Millisecond, time.Time{})
	assert.False(t, ok)
	assert.True(t, behind, "the wait ran out with the transcript behind")
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "it waited for the transcript to catch up")
	// A transcript that cannot be read is not waited for (one not there
	// yet is, see TestASubagentsCutReportIsToldFromItsTranscript).
	start = time.Now()
	_, ok, behind = wholeAnswer(t.TempDir(), tail, time.Minute, time.Time{})
	assert.False(t, ok)
	assert.False(t, behind, "nothing to wait for")
	assert.Less(t, time.Since(start), time.Second)

	// No cut, no join: an answer after a Stop block (also a meta user
	// line) or after a tool result is the last message alone.
	dir := t.TempDir()
	for name, lines := range map[string][]string{
		"after a block": {
			`{"type":"assistant","message":{"stop_reason":"end_turn","content":[{"type":"text","text":"## Goal\nold"}]}}`,
			`{"type":"user","isMeta":true,"message":{"content":"Stop hook feedback:\nmissing sections"}}`,
			`{"type":"assistant","message":{"stop_reason":"end_turn","content":[{"type":"text","text":"new"}]}}`},
		"after another message not cut": {
			`{"type":"assistant","message":{"id":"m1","stop_reason":"end_turn","content":[{"type":"text","text":"## Goal\nold"}]}}`,
			`{"type":"assistant","message":{"id":"m2","stop_reason":"end_turn","content":[{"type":"text","text":"new"}]}}`},
		"two text blocks, which the client may join otherwise": {
			`{"type":"assistant","message":{"id":"m1","stop_reason":"end_turn","content":[{"type":"text","text":"new"}]}}`,
			`{"type":"assistant","message":{"id":"m1","stop_reason":"end_turn","content":[{"type":"text","text":"  part\n"}]}}`},
		"after a tool result": {
			`{"type":"assistant","message":{"stop_reason":"max_tokens","content":[{"type":"text","text":"## Goal\nold"}]}}`,
			`{"type":"user","isMeta":true,"message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}`,
			`{"type":"assistant","message":{"stop_reason":"end_turn","content":[{"type":"text","text":"new"}]}}`},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		start := time.Now()
		last := "new"
		if strings.HasPrefix(name, "two text blocks") {
			last = "new\n\npart"
		}
		_, ok, _ := wholeAnswer(p, last, time.Minute, time.Time{})
		assert.False(t, ok, name)
		assert.Less(t, time.Since(start), time.Second, "%s: caught up, so not waited for", name)
	}
}

// lastAssistantText is the text of the last assistant line of a transcript.
func lastAssistantText(t *testing.T, jsonl string) string {
	t.Helper()
	var text string
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var l transcriptLine
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		if l.Type == "assistant" {
			text = strings.Join(lineTexts(l), "\n")
		}
	}
	return text
}

// A sub-agent's report cut at the output limit and resumed is told from
// its own transcript, whose lines are all its sidechain (review CO7: the
// client reports only the part after the cut, and a critic's high finding
// before it was never judged). The fixture is the transcript Claude Code
// 2.1.330 wrote for such a run (paths neutralised).
func TestASubagentsCutReportIsToldFromItsTranscript(t *testing.T) {
	const path = "../testdata/hooks/claude-code-2.1.330/agent-transcript-max-tokens.jsonl"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var tail string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l transcriptLine
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		require.True(t, l.IsSidechain, "a sub-agent's transcript is all sidechain")
		if l.Type == "assistant" {
			tail = strings.Join(lineTexts(l), "\n")
		}
	}
	require.True(t, strings.HasPrefix(tail, "### FINDING-2"), "the fixture's last message is the resumed part")
	cut, checked := subagentCut(path, tail, 0)
	assert.True(t, cut)
	assert.True(t, checked)
	got, ok, _ := waitForAnswer(path, tail, true, 0, 0, time.Time{})
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(got, "### FINDING-1"), "the finding before the cut is in the transcript")

	// A report not cut is not; a transcript not there yet is waited for,
	// then given up on.
	dir := t.TempDir()
	whole := filepath.Join(dir, "agent-a1.jsonl")
	require.NoError(t, os.WriteFile(whole, []byte(`{"type":"user","isSidechain":true,"message":{"content":"review"}}`+"\n"+
		`{"type":"assistant","isSidechain":true,"message":{"id":"m1","stop_reason":"end_turn","content":[{"type":"text","text":"### NO ISSUES FOUND"}]}}`+"\n"), 0o644))
	cut, checked = subagentCut(whole, "### NO ISSUES FOUND", time.Minute)
	assert.False(t, cut)
	assert.True(t, checked)
	start := time.Now()
	cut, checked = subagentCut(filepath.Join(dir, "agent-later.jsonl"), tail, 100*time.Millisecond)
	assert.False(t, cut)
	assert.True(t, checked, "a client that keeps no transcript: nothing to tell from")
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "a transcript not there yet is waited for")
	assert.Equal(t, filepath.Join("/h/.claude/projects/k/s1", "subagents", "agent-a1.jsonl"), subagentTranscript("/h/.claude/projects/k/s1.jsonl", "a1"))
	assert.Empty(t, subagentTranscript("/h/.claude/projects/k/s1.jsonl", "../x"))
}

// The output limit cuts anywhere, and the model resumes mid-thought: the
// parts join as the model wrote them, a line break only where the resumed
// part starts a block of its own (review CS: "## Verifi" + "cation" was
// joined by a line break, and the plan was told it had no Verification).
func TestAResumedAnswerJoinsWhereItWasCut(t *testing.T) {
	dir := t.TempDir()
	for i, tt := range []struct{ before, after, want string }{
		{"## Goal\nx\n## Verifi", "cation\n- go test", "## Goal\nx\n## Verification\n- go test"},
		{"## Goal\nthe sender retr", "ies each event", "## Goal\nthe sender retries each event"},
		{"## Steps\n1. add it\n<promise>PLAN", "_OK</promise>", "## Steps\n1. add it\n<promise>PLAN_OK</promise>"},
		{"## Goal\nretries for the sender.", "## Scope\nthe sender", "## Goal\nretries for the sender.\n## Scope\nthe sender"},
		{"## Steps\n1. add it", "2. call it", "## Steps\n1. add it\n2. call it"},
		{"## Risks\nduplicates", "- none else\n<promise>PLAN_OK</promise>", "## Risks\nduplicates\n- none else\n<promise>PLAN_OK</promise>"},
		{"## Goal\nx\n", "## Scope\ny", "## Goal\nx\n## Scope\ny"},
	} {
		enc := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		lines := []string{
			`{"type":"user","message":{"content":"plan it"}}`,
			`{"type":"assistant","message":{"id":"m1","stop_reason":"max_tokens","content":[{"type":"text","text":` + enc(tt.before) + `}]}}`,
			`{"type":"user","isMeta":true,"message":{"content":"Output token limit hit. Resume directly"}}`,
			`{"type":"assistant","message":{"id":"m2","stop_reason":"end_turn","content":[{"type":"text","text":` + enc(tt.after) + `}]}}`,
		}
		p := filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i))
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		got, ok, _ := wholeAnswer(p, tt.after, 0, time.Time{})
		require.True(t, ok, tt.want)
		assert.Equal(t, tt.want, got)
	}
}

// In brief mode (2.1.330: --brief, CLAUDE_CODE_BRIEF=1) the agent answers
// through SendUserMessage and ends the turn with no text; the Stop judges
// that message (review CT: the empty text was judged, the answer lost).
// The lines are shaped as the CLI wrote them in e2e's brief scenario.
func TestABriefAnswerIsTheTurnsLastSentMessage(t *testing.T) {
	const (
		prompt   = `{"type":"user","message":{"content":"plan it"}}`
		feedback = `{"type":"user","isMeta":true,"message":{"content":"Stop hook feedback:\nmissing sections"}}`
		final    = `{"type":"assistant","message":{"id":"m9","stop_reason":"end_turn","content":[{"type":"text","text":""}]}}`
		queued   = `{"type":"attachment","attachment":{"type":"queued_command","prompt":"also cover the retries","origin":{"kind":"human"}}}`
	)
	send := func(id, msg string) string {
		return `{"type":"assistant","message":{"id":"m` + id + `","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t` + id + `","name":"SendUserMessage","input":{"message":` + strconvQuote(msg) + `,"status":"normal"}}]}}`
	}
	result := func(id string, isError bool) string {
		return fmt.Sprintf(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t%s","content":"Message delivered to user.","is_error":%v}]}}`, id, isError)
	}
	side := `{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"s1","name":"SendUserMessage","input":{"message":"a sub-agent's"}}]}}`
	brief := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t5","name":"Brief","input":{"message":"## Goal\nby the alias"}}]}}`
	empty := ""
	blank := "\n\n"
	text := "the final text"
	dir := t.TempDir()
	for i, tc := range []struct {
		name  string
		lines []string
		last  *string // last_assistant_message; nil: not sent (2.1.330 sends none for an empty one)
		want  string
	}{
		{"the sent message, no text after", []string{prompt, send("1", "## Goal\nfirst"), result("1", false), send("2", "## Goal\nsecond"), result("2", false), final}, &empty, "## Goal\nsecond"},
		{"no last_assistant_message", []string{prompt, send("1", "## Goal\nsent"), result("1", false), final}, nil, "## Goal\nsent"},
		{"by its alias", []string{prompt, brief, result("5", false), final}, nil, "## Goal\nby the alias"},
		{"not yet in the transcript's final message", []string{prompt, send("1", "## Goal\nsent")}, nil, "## Goal\nsent"},
		{"a final text wins", []string{prompt, send("1", "## Goal\nsent"), result("1", false), final}, &text, text},
		{"a refused call did not reach the user", []string{prompt, send("1", "## Goal\nsent"), result("1", true), final}, &empty, ""},
		{"one sent before the Stop's feedback is an earlier answer", []string{prompt, send("1", "## Goal\nold"), result("1", false), final, feedback, final}, &empty, ""},
		{"a sub-agent's is not the agent's", []string{prompt, side, final}, &empty, ""},
		// 2.1.330 writes a prompt the user typed while the agent worked as
		// an attachment within the turn (review CV4).
		{"one sent before a prompt the user queued answered an earlier one", []string{prompt, send("1", "## Goal\nold"), result("1", false), queued, final}, &empty, ""},
		{"one sent after it is the answer", []string{prompt, send("1", "## Goal\nold"), result("1", false), queued, send("2", "## Goal\nnew"), result("2", false), final}, &empty, "## Goal\nnew"},
		{"a final text of white space is none", []string{prompt, send("1", "## Goal\nsent"), result("1", false), final}, &blank, "## Goal\nsent"}, // mutation check, review CW
	} {
		path := filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i))
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(tc.lines, "\n")+"\n"), 0o644))
		start := time.Now()
		got, err := lastMessage(Input{LastAssistantMessage: tc.last, TranscriptPath: path}, nil)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
		if tc.want == "" {
			assert.Less(t, time.Since(start), transcriptCatchUp, "%s: the transcript had caught up, so it was not waited for", tc.name)
		}
	}

	// 2.1.197 has the model continue after a turn with no text ("Sent."
	// follows): its prompt is within the turn, the Stop's feedback is not.
	reprompt := `{"type":"user","isMeta":true,"message":{"content":"[Your previous response had no visible output. Please continue and produce a user-visible response.]"}}`
	sentText := `{"type":"assistant","message":{"id":"m10","stop_reason":"end_turn","content":[{"type":"text","text":"Sent."}]}}`
	for name, tc := range map[string]struct {
		lines []string
		want  string
	}{
		"after the prompt for visible output": {[]string{prompt, send("1", "## Goal\nsent"), result("1", false), final, reprompt, sentText}, "## Goal\nsent"},
		"before the Stop's feedback":          {[]string{prompt, send("1", "## Goal\nsent"), result("1", false), final, feedback, sentText}, ""},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(tc.lines, "\n")+"\n"), 0o644))
		got, ok, _ := sentMessage(path, time.Minute, time.Time{})
		assert.Equal(t, tc.want, got, name)
		assert.Equal(t, tc.want != "", ok, name)
	}

	// A transcript that cannot be read is looked at once for a message
	// sent, not waited on (mutation check, review CW).
	start := time.Now()
	_, err := lastMessage(Input{TranscriptPath: filepath.Join(dir, "not-there.jsonl")}, nil)
	require.Error(t, err)
	assert.Less(t, time.Since(start), transcriptCatchUp/2, "an unreadable transcript is not waited on")

	// The client writes the turn's last lines a moment after the Stop
	// starts: the call is waited for, up to transcriptCatchUp.
	path := filepath.Join(dir, "late.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(prompt+"\n"), 0o644))
	appendLater(path, send("1", "## Goal\nlate"), result("1", false), final)
	got, err := lastMessage(Input{LastAssistantMessage: &empty, TranscriptPath: path}, nil)
	require.NoError(t, err)
	assert.Equal(t, "## Goal\nlate", got)

	// A transcript that ends with another tool's call has not caught up
	// with the turn's end either (mutation check, review CW: taken as
	// caught up, the message sent after it was not waited for).
	read := `{"type":"assistant","message":{"id":"m3","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"a.go"}}]}}`
	path = filepath.Join(dir, "late-after-a-call.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(prompt+"\n"+read+"\n"), 0o644))
	appendLater(path, result("3", false), send("1", "## Goal\nlate"), result("1", false), final)
	got, err = lastMessage(Input{LastAssistantMessage: &empty, TranscriptPath: path}, nil)
	require.NoError(t, err)
	assert.Equal(t, "## Goal\nlate", got)

	// 2.1.330 sends no last_assistant_message for a turn that ended with no
	// text; under load its transcript still ended with an earlier tool's
	// result when the Stop began, and the loop paused, saying there was no
	// answer (CI, e2e TestPlanSentThroughSendUserMessageInBriefMode). A
	// transcript that holds no answer yet is waited for, for a message sent
	// or a text answer.
	for name, tc := range map[string]struct{ later, want string }{
		"a message sent": {send("1", "## Goal\nlater") + "\n" + result("1", false) + "\n" + final, "## Goal\nlater"},
		"a text answer":  {`{"type":"assistant","message":{"id":"m4","stop_reason":"end_turn","content":[{"type":"text","text":"## Goal\nin text"}]}}`, "## Goal\nin text"},
	} {
		path := filepath.Join(dir, "lagging-"+strings.ReplaceAll(name, " ", "-")+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(prompt+"\n"+read+"\n"+result("3", false)+"\n"), 0o644))
		appendLater(path, tc.later)
		got, err := lastMessage(Input{TranscriptPath: path}, nil)
		require.NoError(t, err, name)
		assert.Equal(t, tc.want, got, name)
	}
}

// appendLater appends lines to the transcript at path a moment from now,
// as the client writes a turn's last lines after the Stop hook starts.
func appendLater(path string, lines ...string) {
	go func() {
		time.Sleep(200 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			fmt.Fprintln(f, strings.Join(lines, "\n"))
			f.Close()
		}
	}()
}

// A Stop begins before the client has written the turn's end (seen in
// e2e: 2.1.330's transcript still ended with the Bash call that started
// the loop, three messages short). What it reads then is not the turn's
// answer: not the text of a message that calls a tool, nor a message sent
// before the turn's last. It waits for the end, and when that does not
// come, it says there is no answer rather than judge an empty one (which
// spent a retry and told the agent its plan was empty).
func TestATranscriptBehindTheStopIsWaitedFor(t *testing.T) {
	const (
		prompt = `{"type":"user","message":{"content":"plan it"}}`
		final  = `{"type":"assistant","message":{"id":"m9","stop_reason":"end_turn","content":[{"type":"text","text":""}]}}`
		read   = `{"type":"assistant","message":{"id":"m3","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"a.go"}}]}}`
		// The client writes a line per content block: a message's text
		// before its call, each with the message's stop reason.
		intro = `{"type":"assistant","message":{"id":"m1","stop_reason":"tool_use","content":[{"type":"text","text":"I will send the plan now."}]}}`
	)
	send := func(id, msg string) string {
		return `{"type":"assistant","message":{"id":"m` + id + `","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t` + id + `","name":"SendUserMessage","input":{"message":` + strconvQuote(msg) + `}}]}}`
	}
	result := func(id string) string {
		return `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t` + id + `","content":"Message delivered to user."}]}}`
	}
	dir := t.TempDir()
	for i, tc := range []struct {
		name        string
		now, later  []string
		want, noAns string
	}{
		{"the text of a message whose call is not written yet", []string{prompt, intro},
			[]string{send("1", "## Goal\nsent"), result("1"), final}, "## Goal\nsent", ""},
		{"a message sent before the turn's last one", []string{prompt, send("1", "## Goal\nfirst"), result("1")},
			[]string{send("2", "## Goal\nsecond"), result("2"), final}, "## Goal\nsecond", ""},
		{"a tool call, and the turn's end never written", []string{prompt, read}, nil,
			"", "ends with a tool call of the agent's and holds no answer after it, 2s after the turn ended"},
		{"a tool's result, and the turn's end never written", []string{prompt, read, result("3")}, nil,
			"", "holds no answer of the agent's after its last prompt, in its last 16 MiB, 2s after the turn ended"},
		// A call is told by its block too, and by the newest line alone
		// (review EB: mutants reading only the stop reason, or the oldest
		// line read, survived).
		{"a call whose line has no stop reason", []string{prompt, strings.Replace(read, `"stop_reason":"tool_use",`, "", 1)}, nil,
			"", "ends with a tool call of the agent's"},
		{"a call after a text line that has no stop reason", []string{prompt, strings.Replace(intro, `"stop_reason":"tool_use",`, "", 1), read}, nil,
			"", "ends with a tool call of the agent's"},
	} {
		path := filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i))
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(tc.now, "\n")+"\n"), 0o644))
		if tc.later != nil {
			appendLater(path, tc.later...)
		}
		// The Stop's own allowance, as the hook passes it (review FB5:
		// what was left of it read "1.99999989s after the turn ended").
		got, err := lastMessage(Input{TranscriptPath: path}, &transcriptWait{})
		if tc.noAns != "" {
			var na *loop.NoAnswerError
			require.ErrorAs(t, err, &na, tc.name)
			assert.Contains(t, na.Why, tc.noAns, tc.name)
			// The user reads it: Claude Code's file, under a session id,
			// is nothing they act on when it holds no answer (review EC7).
			assert.NotContains(t, na.Why, path, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

// The client writes a Stop hook's block into the transcript while the
// Stop's other hooks still run (seen: plansmith registered twice; another
// plugin's quick Stop hook that blocks does the same). A block written
// after the Stop began is that other hook's, not the end of the turn
// being judged: the plan sent in brief mode before it is the answer
// (with the real CLI, 2.1.330 paused "no answer after its last prompt"
// and 2.1.197 judged "Sent."), and a cut answer before it is joined. A
// block written before the Stop began still ends the turn.
func TestAnotherHooksBlockOnTheSameStopIsNotTheTurnsEnd(t *testing.T) {
	began := time.Date(2026, 11, 27, 11, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return began.Add(d).Format(time.RFC3339Nano) }
	block := func(d time.Duration) string {
		return `{"type":"user","isMeta":true,"timestamp":"` + at(d) + `","message":{"role":"user","content":"Stop hook feedback:\nalso run the linter"}}`
	}
	const (
		prompt = `{"type":"user","message":{"content":"plan it"}}`
		send   = `{"type":"assistant","message":{"id":"m1","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t1","name":"SendUserMessage","input":{"message":"## Goal\nsent"}}]}}`
		result = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Message delivered to user."}]}}`
		final  = `{"type":"assistant","message":{"id":"m2","stop_reason":"end_turn","content":[{"type":"text","text":""}]}}`
		// 2.1.197 has the model go on, and it says "Sent.".
		reprompt = `{"type":"user","isMeta":true,"message":{"content":"[Your previous response had no visible output. Please continue and produce a user-visible response.]"}}`
		said     = `{"type":"assistant","message":{"id":"m3","stop_reason":"end_turn","content":[{"type":"text","text":"Sent."}]}}`
		// A plan cut at the output limit, resumed (2.1.330's shape).
		cut     = `{"type":"assistant","message":{"id":"m4","stop_reason":"max_tokens","content":[{"type":"text","text":"## Goal\nCache."}]}}`
		resume  = `{"type":"user","isMeta":true,"message":{"content":"Output token limit hit. Resume directly."}}`
		resumed = `{"type":"assistant","message":{"id":"m5","stop_reason":"end_turn","content":[{"type":"text","text":"## Steps\n1. Add it."}]}}`
	)
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		path := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		return path
	}

	path := write("brief", prompt, send, result, final, block(5*time.Millisecond))
	got, err := lastMessage(Input{TranscriptPath: path, Began: began}, nil)
	require.NoError(t, err)
	assert.Equal(t, "## Goal\nsent", got, "2.1.330: the plan sent before the other hook's block")

	// A text answer is read past the block at once, without waiting
	// (review EB: a mutant that ended the text answer's reading there
	// survived; the answer was paused after the wait).
	path = write("text", prompt, said, block(5*time.Millisecond))
	start := time.Now()
	got, err = lastMessage(Input{TranscriptPath: path, Began: began}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Sent.", got)
	assert.Less(t, time.Since(start), transcriptCatchUp/2, "not waited for")

	path = write("sent", prompt, send, result, final, reprompt, said, block(time.Millisecond))
	got, ok, _ := sentMessage(path, time.Minute, began)
	assert.True(t, ok)
	assert.Equal(t, "## Goal\nsent", got, "2.1.197: the plan sent, not \"Sent.\"")

	path = write("cut", prompt, cut, resume, resumed, block(time.Millisecond))
	got, ok, _ = wholeAnswer(path, "## Steps\n1. Add it.", time.Minute, began)
	assert.True(t, ok)
	assert.Equal(t, "## Goal\nCache.\n## Steps\n1. Add it.", got)

	// An earlier Stop's block ends the turn: what was sent before it
	// answered that Stop.
	path = write("earlier", prompt, send, result, final, block(-time.Second))
	got, ok, _ = sentMessage(path, 0, began)
	assert.False(t, ok, got)
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A sub-agent's transcript that is there but has not reached the output
// its hook reports when the wait runs out cannot tell whether the report
// was cut: not checked, so that the run counts for nothing until a later
// look tells (a cut critic report counted when its transcript was 5 s
// behind). Once the transcript has caught up, a look without waiting
// tells.
func TestASubagentTranscriptBehindItsOutputTellsNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent-a1.jsonl")
	cutPart := `{"type":"assistant","isSidechain":true,"message":{"id":"m1","stop_reason":"max_tokens","content":[{"type":"text","text":"### FINDING-1: No rollback\n- **Severity**: high\n"}]}}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(`{"type":"user","isSidechain":true,"message":{"content":"review"}}`+"\n"+cutPart), 0o644))
	resumed := "### FINDING-2: Failover\n- **Severity**: medium\n- **Description**: x"
	cut, checked := subagentCut(path, resumed, 100*time.Millisecond)
	assert.False(t, cut)
	assert.False(t, checked, "the transcript never reached the output: nothing told")

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"user","isSidechain":true,"isMeta":true,"message":{"content":"Output token limit hit. Resume directly"}}` + "\n" +
		`{"type":"assistant","isSidechain":true,"message":{"id":"m2","stop_reason":"end_turn","content":[{"type":"text","text":` + strconv.Quote(resumed) + `}]}}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	cut, checked = subagentCut(path, resumed, 0)
	assert.True(t, cut)
	assert.True(t, checked)
}

// A transcript that is not there at all leaves no read behind it: the
// answer is judged as it came (a client that keeps none, or the scripts'
// inputs), not asked for again without end.
func TestAMissingTranscriptIsNotBehind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.jsonl")
	_, ok, behind := wholeAnswer(path, "short", 50*time.Millisecond, time.Time{})
	assert.False(t, ok)
	assert.False(t, behind)
	_, ok, behind = sentMessage(path, 50*time.Millisecond, time.Time{})
	assert.False(t, ok)
	assert.False(t, behind)
}

// A Stop whose transcript never catches up waits for it once in all, not
// once per read: the empty answer, a message sent, and the rest of a cut
// answer each waited transcriptCatchUp, 6 s before the agent was asked for
// its answer again (review EC).
func TestAStopWaitsForItsTranscriptOnceInAll(t *testing.T) {
	env, dir := guardedProject(t, func() string { return "/usr/bin" })
	path := filepath.Join(t.TempDir(), "t.jsonl")
	behind := `{"type":"user","message":{"content":"plan it"}}` + "\n" +
		`{"type":"assistant","message":{"id":"m3","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"a.go"}}]}}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(behind), 0o644))
	in, err := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "Stop",
		"transcript_path": path, "last_assistant_message": ""})
	require.NoError(t, err)
	var out bytes.Buffer
	start := time.Now()
	run(t, "stop", string(in), &out, env)
	took := time.Since(start)
	assert.Contains(t, out.String(), "had not caught up", "the agent is asked for its answer again")
	assert.Less(t, took, 2*transcriptCatchUp, "each read waited on its own")
}
