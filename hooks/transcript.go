package hooks

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// lastMessage is the agent's final answer: last_assistant_message when
// Claude Code sent it, else the last assistant message in the transcript.
func lastMessage(in Input) (string, error) {
	if in.LastAssistantMessage != nil {
		return *in.LastAssistantMessage, nil
	}
	if in.TranscriptPath == "" {
		return "", errors.New("the Stop hook input has neither last_assistant_message nor transcript_path")
	}
	return transcriptLastMessage(in.TranscriptPath)
}

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

// transcriptLastMessage reads a Claude Code transcript (JSONL) and returns
// the text of the last assistant message of the main conversation. Claude
// Code writes one line per content block, so consecutive assistant lines are
// joined; any user line (a prompt or a tool result) starts a new message.
func transcriptLastMessage(path string) (string, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading transcript: %w", err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var parts []string
	for sc.Scan() {
		var l transcriptLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.IsSidechain {
			continue
		}
		switch l.Type {
		case "user":
			parts = parts[:0]
		case "assistant":
			var blocks []contentBlock
			if json.Unmarshal(l.Message.Content, &blocks) != nil {
				var s string
				if json.Unmarshal(l.Message.Content, &s) == nil {
					parts = append(parts, s)
				}
				continue
			}
			for _, b := range blocks {
				if b.Type == "text" {
					parts = append(parts, b.Text)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("reading transcript %s: %w", path, err)
	}
	return strings.Join(parts, "\n"), nil
}
