package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/plansmith/plansmith/loop"
)

// NoAnswerError says the agent's last answer could not be read at all (no
// last_assistant_message and no readable transcript): the loop's error for
// it, so the loop pauses instead of judging.
type NoAnswerError = loop.NoAnswerError

// lastMessage is the agent's final answer: last_assistant_message when
// Claude Code sent it, else the last assistant message in the transcript.
// Every error is a *NoAnswerError. It takes no lock and should be called
// before the project lock is taken: a transcript may be large or slow.
func lastMessage(in Input) (string, error) {
	if in.LastAssistantMessage != nil {
		return *in.LastAssistantMessage, nil
	}
	if in.TranscriptPath == "" {
		return "", &NoAnswerError{Why: "the Stop hook input has neither last_assistant_message nor transcript_path"}
	}
	return transcriptLastMessage(in.TranscriptPath, maxTranscriptTail)
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
	IsSidechain bool   `json:"isSidechain"`
	Message     struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// transcriptLastMessage returns the text of the last assistant message of
// the main conversation in a Claude Code transcript (JSONL). Claude Code
// writes one line per content block, so the assistant lines after the last
// user line (a prompt or a tool result) are joined. It reads backwards from
// the end, at most limit bytes, and only from a regular file: a FIFO,
// device or folder given as the transcript is refused without blocking.
func transcriptLastMessage(path string, limit int64) (string, error) {
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", &NoAnswerError{Why: fmt.Sprintf("the transcript %s cannot be opened (%s)", path, errText(err))}
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return "", &NoAnswerError{Why: fmt.Sprintf("the transcript %s cannot be read (%s)", path, errText(err))}
	}
	if !info.Mode().IsRegular() {
		return "", &NoAnswerError{Why: fmt.Sprintf("the transcript %s is not a regular file", path)}
	}
	var lines [][]string // each assistant line's texts, newest line first
	err = scanLinesBackwards(file, info.Size(), limit, func(line []byte) bool {
		var l transcriptLine
		if json.Unmarshal(line, &l) != nil || l.IsSidechain {
			return true
		}
		switch l.Type {
		case "user":
			return false
		case "assistant":
			lines = append(lines, lineTexts(l))
		}
		return true
	})
	if err != nil {
		return "", &NoAnswerError{Why: fmt.Sprintf("reading the transcript %s: %s", path, errText(err))}
	}
	if len(lines) == 0 {
		// No answer found is not an empty answer (review X, F5: it was
		// judged as one, and spent the loop's retries).
		return "", &NoAnswerError{Why: fmt.Sprintf("the transcript %s holds no answer of the agent's after its last prompt, in its last %d MiB", path, limit>>20)}
	}
	var parts []string
	for i := len(lines) - 1; i >= 0; i-- {
		parts = append(parts, lines[i]...)
	}
	return strings.Join(parts, "\n"), nil
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
