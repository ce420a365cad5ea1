package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Input is the JSON object Claude Code writes to a hook's stdin. Fields a
// given event does not carry are left zero; unknown fields are ignored.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode"`
	AgentID        string `json:"agent_id"`

	// Stop (and SubagentStop: AgentID, LastAssistantMessage)
	StopHookActive       bool    `json:"stop_hook_active"`
	LastAssistantMessage *string `json:"last_assistant_message"`
	// BackgroundTasks is work still in flight at a Stop. A client that
	// sends the field at all also reports sub-agent runs to the hooks.
	BackgroundTasks *[]json.RawMessage `json:"background_tasks"`

	// SessionStart
	Source string `json:"source"`

	// PreToolUse / PostToolUse
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`

	// UserPromptSubmit
	Prompt string `json:"prompt"`
}

// maxInput bounds what a hook reads from stdin: a 1 MiB assistant message is
// the design's largest case, so 64 MiB is generous without being unbounded.
const maxInput = 64 << 20

// DecodeInput reads one hook input object from r.
func DecodeInput(r io.Reader) (Input, error) {
	in, _, err := readInput(r)
	return in, err
}

// readInput is DecodeInput that also returns the bytes it read, for the one
// caller that must look at input it could not decode (ExitPlanMode).
func readInput(r io.Reader) (Input, []byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return Input{}, data, fmt.Errorf("reading hook input: %w", err)
	}
	in, err := decodeInput(data)
	return in, data, err
}

func decodeInput(data []byte) (Input, error) {
	var in Input
	if len(data) > maxInput {
		return in, errors.New("hook input is larger than 64 MiB")
	}
	if len(data) == 0 {
		return in, errors.New("hook input is empty (expected a JSON object on stdin)")
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	return in, nil
}
