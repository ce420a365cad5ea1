package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/plansmith/plansmith/loop"
)

// lastMessage is the agent's final answer: last_assistant_message when
// Claude Code sent it, else the last assistant message in the transcript.
// Every error is a *loop.NoAnswerError. It takes no lock and should be called
// before the project lock is taken: a transcript may be large or slow.
func lastMessage(in Input, wait *transcriptWait) (string, error) {
	var msg string
	var err error
	var notYet bool
	switch {
	case in.LastAssistantMessage != nil:
		msg = *in.LastAssistantMessage
	case in.TranscriptPath == "":
		return "", &loop.NoAnswerError{Why: "the Stop hook input has neither last_assistant_message nor transcript_path"}
	default:
		msg, notYet, err = transcriptLastMessage(in.TranscriptPath, maxTranscriptTail, in.Began)
	}
	if strings.TrimSpace(msg) == "" && in.TranscriptPath != "" {
		// An answer with no text may have been given through
		// SendUserMessage, and 2.1.330 then sends no
		// last_assistant_message. A transcript that holds no answer yet
		// is waited for as one whose answer is empty: the client writes
		// the turn's last lines a moment after the Stop starts (seen under
		// load: the SendUserMessage call was not there yet, and the loop
		// paused on an answer it had). One that cannot be read is looked
		// at once, not waited for.
		catchUp := wait.left()
		if err != nil && !notYet {
			catchUp = 0
		}
		if sent, ok, _ := sentMessage(in.TranscriptPath, catchUp, in.Began); ok {
			return sent, nil
		}
		if notYet {
			// The wait ends once the transcript holds the turn's final
			// message: a text answer may be there now. Still none, and the
			// loop pauses saying so (nothing judged, no retry spent): an
			// answer not written yet is not an empty one.
			again, stillNot, againErr := transcriptLastMessage(in.TranscriptPath, maxTranscriptTail, in.Began)
			if againErr == nil {
				return again, nil
			}
			var na *loop.NoAnswerError
			if stillNot && errors.As(againErr, &na) {
				// Rounded: what is left of a wait begun a moment ago
				// is 1.99999989s, which the user reads (review FB5).
				na.Why += fmt.Sprintf(", %s after the turn ended", catchUp.Round(100*time.Millisecond))
			}
			return "", againErr
		}
	}
	return msg, err
}

// userMessageTools are the tools through which the agent answers in Claude
// Code's brief mode (2.1.330: `claude --brief`, CLAUDE_CODE_BRIEF=1), where
// plain assistant text is hidden from the user: SendUserMessage and its
// alias Brief.
var userMessageTools = []string{"SendUserMessage", "Brief"}

// visibleOutputPrompt starts the prompt Claude Code (seen: 2.1.197, in
// brief mode) has the model continue with when it ended its turn with no
// text after SendUserMessage: a meta user line within the agent's turn.
const visibleOutputPrompt = "[Your previous response had no visible output."

func isVisibleOutputPrompt(l transcriptLine) bool {
	texts := lineTexts(l)
	return l.IsMeta && len(texts) == 1 && strings.HasPrefix(texts[0], visibleOutputPrompt)
}

// toolUseBlock is an assistant content block as far as a SendUserMessage
// call is concerned.
type toolUseBlock struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input struct {
		Message *string `json:"message"`
	} `json:"input"`
}

// sentMessage is transcriptSentMessage once the transcript has caught up
// with the Stop, waiting at most catchUp (2.1.330 writes the turn's last
// lines a moment after the Stop hook starts: seen, the SendUserMessage call
// not there yet). Only an answer with no text waits. A message found
// before the turn's end is written may not be the turn's last: it is
// taken only when the wait runs out; behind says the wait ran out with
// the transcript there.
func sentMessage(path string, catchUp time.Duration, since time.Time) (message string, ok, behind bool) {
	start := time.Now()
	for {
		message, caughtUp, ok := transcriptSentMessage(path, maxTranscriptTail, since)
		if caughtUp || time.Since(start) >= catchUp {
			return message, ok, !caughtUp && present(path)
		}
		time.Sleep(transcriptPoll)
	}
}

// transcriptSentMessage returns the message of the last SendUserMessage
// call of the agent's current turn: in brief mode the agent answers
// through it and ends the turn with no text, and judged by that empty
// final text the answer was refused as empty and lost, the next short
// "Sent." judged as the plan (review CT). The turn is what follows the
// last user line that is neither a tool's result nor the client's prompt
// for visible output (so: a prompt, or the Stop's own feedback), or the
// last prompt the user typed while the agent worked (2.1.330's
// queued_command attachment); it reads backwards, at most limit bytes, as
// transcriptLastMessage does. A call that failed or was refused is passed
// over: its message did not reach the user. ok is false when the turn sent
// no message; caughtUp says whether the transcript ends with the turn's
// final message (one that calls no tool), else it may not have caught up.
// A block another hook on this Stop wrote after since is passed over
// (blockedSince).
func transcriptSentMessage(path string, limit int64, since time.Time) (message string, caughtUp, ok bool) {
	file, size, missing := openTranscript(path)
	if file == nil {
		return "", !missing, false
	}
	defer file.Close()
	failed := map[string]bool{} // the calls refused or failed: their message never reached the user
	newest := true
	err := scanConversation(file, size, limit, false, since, func(l transcriptLine) bool {
		switch l.Type {
		case "user":
			newest = false
			var results []struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
				IsError   bool   `json:"is_error"`
			}
			if json.Unmarshal(l.Message.Content, &results) == nil {
				for _, r := range results {
					if r.Type == "tool_result" && r.IsError {
						failed[r.ToolUseID] = true
					}
				}
			}
			return hasToolResult(l) || isVisibleOutputPrompt(l)
		case "attachment":
			// A prompt the user typed while the agent worked: a message
			// sent before it answered an earlier request (review CV4).
			return l.Attachment.Type != "queued_command"
		case "assistant":
			var blocks []toolUseBlock
			if json.Unmarshal(l.Message.Content, &blocks) != nil {
				blocks = nil
			}
			if newest {
				caughtUp = !callsATool(l)
				newest = false
			}
			for i := len(blocks) - 1; i >= 0; i-- {
				b := blocks[i]
				if b.Type == "tool_use" && slices.Contains(userMessageTools, b.Name) && !failed[b.ID] && b.Input.Message != nil && strings.TrimSpace(*b.Input.Message) != "" {
					message, ok = *b.Input.Message, true
					return false
				}
			}
		}
		return true
	})
	if err != nil {
		return "", true, false
	}
	return message, caughtUp, ok
}

// maxTranscriptTail bounds how much of a transcript's end is read: the last
// message of a session is at its end, and a long session's transcript grows
// to hundreds of megabytes. 16 MiB holds the design's largest answer (1 MiB)
// many times over.
const maxTranscriptTail = 16 << 20

// tailChunk is how much is read per step backwards from the end.
const tailChunk = 64 << 10

type transcriptLine struct {
	Type        string `json:"type"`
	Timestamp   string `json:"timestamp"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	// Attachment is what a line of type "attachment" carries: 2.1.330
	// writes a prompt the user typed while the agent worked as one of
	// type queued_command, within the turn.
	Attachment struct {
		Type string `json:"type"`
	} `json:"attachment"`
	Message struct {
		ID         string          `json:"id"`
		Content    json.RawMessage `json:"content"`
		StopReason string          `json:"stop_reason"`
	} `json:"message"`
}

// wholeAnswer is continuedAnswer once the transcript has caught up with
// the Stop: Claude Code (2.1.330) writes it a little after the Stop hook
// starts (seen: the turn's last messages were missing when the hook began,
// there a second later). It waits at most catchUp; the Stop asks only for
// an answer that failed its checks, so a passing one never waits.
// behind is set when the wait ran out before the transcript, which is
// there, reached last.
func wholeAnswer(path, last string, catchUp time.Duration, since time.Time) (whole string, ok, behind bool) {
	whole, ok, caughtUp := waitForAnswer(path, last, false, catchUp, 0, since)
	return whole, ok, !ok && !caughtUp && present(path)
}

// present reports whether a transcript is there: one that is not tells
// nothing, and a read of it was not left behind by it.
func present(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// subagentCut reports whether a sub-agent's last message (last, its
// SubagentStop's last_assistant_message) only resumes a report the client
// cut at the model's output limit, read from the sub-agent's own
// transcript (every line of it is a sidechain's). The client then reports
// only the part after the cut, everywhere: the SubagentStop, the Agent
// call's result, the notification (review CO7). checked is false when the
// transcript is there but did not reach last within catchUp: whether the
// report was cut cannot be told, and a cut one must not count (it did,
// the transcript 5 s behind). A transcript that never appears is taken as
// a client that keeps none: nothing to tell from, as before.
func subagentCut(path, last string, catchUp time.Duration) (cut, checked bool) {
	_, ok, caughtUp := waitForAnswer(path, last, true, catchUp, subagentAppears, time.Time{})
	if !ok && !caughtUp {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return false, true
		}
	}
	return ok, ok || caughtUp
}

// waitForAnswer is continuedAnswer, waiting at most catchUp for the
// transcript to reach last, of which at most appear for it to be there at
// all (a session's transcript is there from its first tool call; a
// sub-agent's appears a moment after its end is reported). caughtUp is
// false when the wait ran out first.
func waitForAnswer(path, last string, sidechain bool, catchUp, appear time.Duration, since time.Time) (whole string, ok, caughtUp bool) {
	start := time.Now()
	for {
		whole, caughtUp, ok := continuedAnswer(path, last, sidechain, maxTranscriptTail, since)
		waited := time.Since(start)
		if ok || caughtUp || waited >= catchUp {
			return whole, ok, caughtUp
		}
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) && waited >= appear {
			return whole, ok, caughtUp
		}
		time.Sleep(transcriptPoll)
	}
}

// transcriptCatchUp bounds how long a Stop waits for the transcript to
// reach the answer it judges, and subagentCatchUp how long a gate run's
// hook waits for the sub-agent's (seen: well under a second, on a busy
// machine longer), and subagentAppears how long for that file to appear;
// transcriptPoll is how often they look.
const (
	transcriptCatchUp = loop.TranscriptWait
	subagentAppears   = time.Second
	transcriptPoll    = 25 * time.Millisecond
)

var subagentCatchUp = 5 * time.Second // a variable for tests

// transcriptWait is one Stop's allowance for waiting on its transcript:
// transcriptCatchUp in all, counted from the first wait, however many
// reads wait (the answer, a message sent, the rest of a cut answer). Once
// it is spent the transcript is known to be behind, and a later read looks
// once: a Stop whose transcript never caught up waited 2 s three times.
// nil allows each read the whole of transcriptCatchUp.
type transcriptWait struct{ until time.Time }

func (w *transcriptWait) left() time.Duration {
	if w == nil {
		return transcriptCatchUp
	}
	if w.until.IsZero() {
		w.until = time.Now().Add(transcriptCatchUp)
	}
	return max(0, time.Until(w.until))
}

// continuedAnswer gives the agent's whole answer when its last message
// (last, the Stop input's last_assistant_message) continues one that was
// cut at the model's output limit: Claude Code then prompts the model on
// its own to resume (2.1.330 writes that prompt as a meta user line after
// the assistant message whose stop_reason is max_tokens; 2.1.197 writes no
// line for it, so the resumed message follows the cut one directly), and
// the Stop input carries only the resumed part (review CO6: a long plan was judged by its last sections
// and told that Goal, Scope and Steps were missing). The transcript's
// messages are joined, oldest first, when the newest of them is last; ok
// is false when there was no such cut, or the transcript cannot tell.
// caughtUp says whether the transcript's newest message is last (else it
// may not have caught up yet).
//
// sidechain reads a sub-agent's own transcript, whose lines are all
// sidechain lines; a session's transcript passes them over. A block another
// hook on this Stop wrote after since is passed over (blockedSince).
func continuedAnswer(path, last string, sidechain bool, limit int64, since time.Time) (whole string, caughtUp, ok bool) {
	file, size, missing := openTranscript(path)
	if file == nil {
		return "", !missing, false
	}
	defer file.Close()
	var messages [][]string // each message's texts, newest message first
	var current []string    // the message being read, its lines newest first
	id := ""                // the message id of the lines being read
	reading, cut, resumed, broken := false, false, false, false
	end := func() {
		if len(current) > 0 {
			slices.Reverse(current)
			messages = append(messages, current)
		}
		current, id, reading = nil, "", false
	}
	err := scanConversation(file, size, limit, sidechain, since, func(l transcriptLine) bool {
		switch l.Type {
		case "assistant":
			if reading && id != "" && l.Message.ID != "" && l.Message.ID != id {
				// Another message right before, with no prompt between:
				// 2.1.197 writes no line for its prompt to resume.
				end()
				cut = true
			}
			if cut {
				// What comes before the resumed part must be a message
				// cut at the output limit.
				if l.Message.StopReason != "max_tokens" {
					broken = true
					return false
				}
				cut, resumed = false, true
			}
			reading, id = true, l.Message.ID
			if texts := lineTexts(l); len(texts) > 0 {
				current = append(current, strings.Join(texts, "\n"))
			}
		case "user":
			if !reading && len(messages) == 0 {
				return false // no answer after the last prompt: not caught up
			}
			end()
			if cut || !l.IsMeta || hasToolResult(l) {
				broken = broken || cut
				return false
			}
			cut = true // 2.1.330's prompt to resume, if a cut message comes before
		}
		return true
	})
	end()
	if err != nil {
		return "", true, false
	}
	// Compared word by word: how the client joins a message's text blocks
	// into last_assistant_message is not the transcript's business, and a
	// mismatch would hold every failed answer up for the whole wait.
	if len(messages) == 0 || !slices.Equal(strings.Fields(strings.Join(messages[0], "\n")), strings.Fields(last)) {
		return "", false, false // the transcript is not (yet) at the answer the Stop names
	}
	if broken || cut || !resumed || len(messages) < 2 {
		return "", true, false
	}
	var b strings.Builder
	for i := len(messages) - 1; i >= 0; i-- {
		part := strings.Join(messages[i], "\n")
		if b.Len() > 0 && resumesOnANewLine(b.String(), part) {
			b.WriteByte('\n')
		}
		b.WriteString(part)
	}
	return b.String(), true, true
}

// resumesOnANewLine reports whether part, which resumes before after a cut
// at the output limit, starts a line of its own. The limit cuts anywhere,
// and the model is told to pick up mid-thought: "## Verifi" resumed with
// "cation" is one heading, and joined by a line break the plan had no
// Verification (review CS). A part that starts a markdown block (a heading,
// a list item, a table row, a code fence, the promise) after a line that
// did not end is on a line of its own; anything else continues the line.
func resumesOnANewLine(before, part string) bool {
	if strings.HasSuffix(before, "\n") || strings.HasPrefix(part, "\n") {
		return false
	}
	t := strings.TrimLeft(part, " \t")
	for _, p := range []string{"#", "- ", "* ", "+ ", "|", "```", "~~~", ">", "<promise>", "<!--"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	n := 0
	for n < len(t) && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' '
}

// hasToolResult reports whether a user line carries a tool's result: the
// agent's own turn going on, never the client's prompt to resume.
func hasToolResult(l transcriptLine) bool {
	var blocks []contentBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// openTranscript opens a transcript to read it backwards: a regular file,
// opened without waiting on a FIFO. file is nil when it cannot be read so;
// missing says it is not there (yet: a sub-agent's transcript appears a
// moment after its end is reported), which a caller may wait out, unlike
// anything else.
func openTranscript(path string) (file *os.File, size int64, missing bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, errors.Is(err, fs.ErrNotExist)
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	return f, info.Size(), false
}

// transcriptLastMessage returns the text of the last assistant message of
// the main conversation in a Claude Code transcript (JSONL). Claude Code
// writes one line per content block, so the assistant lines after the last
// user line (a prompt or a tool result) are joined. It reads backwards from
// the end, at most limit bytes, and only from a regular file: a FIFO,
// device or folder given as the transcript is refused without blocking.
// notYet says the transcript holds no answer after its last prompt (or
// tool result), or ends with a message that calls a tool: the turn's
// answer may not be written yet. A block another hook on this Stop wrote
// after since is passed over (blockedSince).
func transcriptLastMessage(path string, limit int64, since time.Time) (answer string, notYet bool, err error) {
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", false, &loop.NoAnswerError{Why: fmt.Sprintf("the transcript %s cannot be opened (%s)", path, errText(err))}
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return "", false, &loop.NoAnswerError{Why: fmt.Sprintf("the transcript %s cannot be read (%s)", path, errText(err))}
	}
	if !info.Mode().IsRegular() {
		return "", false, &loop.NoAnswerError{Why: fmt.Sprintf("the transcript %s is not a regular file", path)}
	}
	var lines [][]string // each assistant line's texts, newest line first
	calls := false       // the newest assistant line calls a tool
	err = scanConversation(file, info.Size(), limit, false, since, func(l transcriptLine) bool {
		switch l.Type {
		case "user":
			notYet = true
			return false
		case "assistant":
			if len(lines) == 0 {
				calls = callsATool(l)
			}
			lines = append(lines, lineTexts(l))
		}
		return true
	})
	if err != nil {
		return "", false, &loop.NoAnswerError{Why: fmt.Sprintf("reading the transcript %s: %s", path, errText(err))}
	}
	if calls {
		// A message that calls a tool is not the turn's last: its result
		// and the answer after it are not written yet (seen: 2.1.330's
		// transcript ended with the Bash call that started the loop when
		// the Stop began). Its text, often empty, is no answer.
		return "", true, &loop.NoAnswerError{Why: "the session's transcript ends with a tool call of the agent's and holds no answer after it"}
	}
	if len(lines) == 0 {
		// No answer found is not an empty answer (review X, F5: it was
		// judged as one, and spent the loop's retries).
		return "", notYet, &loop.NoAnswerError{Why: fmt.Sprintf("the session's transcript holds no answer of the agent's after its last prompt, in its last %d MiB", limit>>20)}
	}
	var parts []string
	for i := len(lines) - 1; i >= 0; i-- {
		parts = append(parts, lines[i]...)
	}
	return strings.Join(parts, "\n"), false, nil
}

// stopFeedback starts the line in which Claude Code hands a Stop hook's
// block to the model.
const stopFeedback = "Stop hook feedback:"

// blockedSince reports whether l is a Stop hook's block written after
// since, when the Stop being judged began: another hook on the same Stop
// (another plugin's, or plansmith's own other registration) that finished
// first. The client writes it while the other hooks still run (seen), and
// read as the turn's end it hid the answer before it: a plan sent in brief
// mode was not found and the loop paused (2.1.330) or judged "Sent."
// (2.1.197). A block of an earlier Stop was written before this one began.
func blockedSince(l transcriptLine, since time.Time) bool {
	if since.IsZero() || l.Type != "user" || !l.IsMeta {
		return false
	}
	texts := lineTexts(l)
	if len(texts) == 0 || !strings.HasPrefix(texts[0], stopFeedback) {
		return false
	}
	at, err := time.Parse(time.RFC3339Nano, l.Timestamp)
	return err == nil && at.After(since)
}

// callsATool reports whether an assistant line calls a tool: a line that
// holds the call, or (the client writes a line per content block) one
// whose message stopped to call one, written before the call's own line.
func callsATool(l transcriptLine) bool {
	if l.Message.StopReason == "tool_use" {
		return true
	}
	var blocks []contentBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return false
	}
	return slices.ContainsFunc(blocks, func(b contentBlock) bool { return b.Type == "tool_use" })
}

// lineTexts returns an assistant line's text blocks, in order.
func lineTexts(l transcriptLine) []string {
	var blocks []contentBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		var s string
		if json.Unmarshal(l.Message.Content, &s) == nil {
			return []string{s}
		}
		return nil
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return out
}

// scanConversation calls fn with each line of r's conversation, the main
// one or, with sidechain, a sub-agent's, newest first, as
// scanLinesBackwards reads them: lines that do not decode are passed
// over, and so is the block of another hook on this Stop written after
// since (blockedSince).
func scanConversation(r io.ReaderAt, size, limit int64, sidechain bool, since time.Time, fn func(transcriptLine) bool) error {
	return scanLinesBackwards(r, size, limit, func(line []byte) bool {
		var l transcriptLine
		if json.Unmarshal(line, &l) != nil || l.IsSidechain != sidechain || blockedSince(l, since) {
			return true
		}
		return fn(l)
	})
}

// scanLinesBackwards calls fn with each line of r (size bytes long), last
// line first, until fn returns false, the start is reached, or limit bytes
// have been read. A line cut by the limit is not passed on.
func scanLinesBackwards(r io.ReaderAt, size, limit int64, fn func([]byte) bool) error {
	var carry []byte // the start of a line whose beginning is not read yet
	pos := size
	floor := max(size-limit, 0)
	step := int64(tailChunk)
	for pos > floor {
		n := min(step, pos-floor)
		step *= 2 // a long line is read in few steps, and copied O(its size) times
		pos -= n
		chunk := make([]byte, n, n+int64(len(carry)))
		if _, err := r.ReadAt(chunk, pos); err != nil && err != io.EOF {
			return err
		}
		chunk = append(chunk, carry...)
		for {
			i := bytes.LastIndexByte(chunk, '\n')
			if i < 0 {
				break
			}
			if line := chunk[i+1:]; len(line) > 0 && !fn(line) {
				return nil
			}
			chunk = chunk[:i]
		}
		carry = chunk
	}
	if pos == 0 && len(carry) > 0 {
		fn(carry)
	}
	return nil
}

// errText is an error's reason without Go's "open /path:" prefix, which
// the caller already words for people.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}
