package hooks

import (
	"encoding/json"
	"io"
	"time"

	"github.com/plansmith/plansmith/internal/hookjson"
)

// Input is the JSON object Claude Code writes to a hook's stdin. Fields a
// given event does not carry are left zero; unknown fields are ignored.
type Input struct {
	// Began is when this hook process began its work (not in the JSON).
	Began          time.Time `json:"-"`
	SessionID      string    `json:"session_id"`
	TranscriptPath string    `json:"transcript_path"`
	Cwd            string    `json:"cwd"`
	HookEventName  string    `json:"hook_event_name"`
	PermissionMode string    `json:"permission_mode"`
	AgentID        string    `json:"agent_id"`

	// Stop (and SubagentStop: AgentID, LastAssistantMessage,
	// AgentTranscriptPath, the sub-agent's own transcript)
	StopHookActive       bool    `json:"stop_hook_active"`
	LastAssistantMessage *string `json:"last_assistant_message"`
	AgentTranscriptPath  string  `json:"agent_transcript_path"`
	// BackgroundTasks is work still in flight at a Stop. A client that
	// sends the field at all also reports sub-agent runs to the hooks.
	BackgroundTasks *[]json.RawMessage `json:"background_tasks"`
	// SessionCrons is the session's scheduled tasks at a Stop (CronCreate,
	// ScheduleWakeup, /loop), each with the prompt it will submit.
	SessionCrons *[]json.RawMessage `json:"session_crons"`

	// SessionStart; UserPromptSubmit (who authored the prompt)
	Source string `json:"source"`
	// SessionEnd
	Reason string `json:"reason"`

	// PreToolUse / PostToolUse
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`

	// UserPromptSubmit
	Prompt string `json:"prompt"`

	// Unreadable names the fields that are present with a type other than
	// the expected one; they are left zero (see decodeInput).
	Unreadable []string `json:"-"`
}

// readInput reads one hook input object from r. It also returns the bytes
// it read: a tool call it could not decode is judged on them
// (loop.UndecodableTool).
func readInput(r io.Reader) (Input, []byte, error) {
	data, err := hookjson.Read(r)
	if err != nil {
		return Input{}, data, err
	}
	in, err := decodeInput(data)
	return in, data, err
}

// decodeInput decodes a hook input object field by field, leniently: an
// unknown field is ignored, and a field of an unexpected type ("agent_id":
// 5, "stop_hook_active": "true") is left zero and named in Unreadable, so
// one odd field never makes a hook drop the whole call. Only input that is
// not a JSON object at all is an error.
func decodeInput(data []byte) (Input, error) {
	var in Input
	bad, err := hookjson.Fields(data, map[string]any{
		"session_id": &in.SessionID, "transcript_path": &in.TranscriptPath, "cwd": &in.Cwd,
		"hook_event_name": &in.HookEventName, "permission_mode": &in.PermissionMode, "agent_id": &in.AgentID,
		"stop_hook_active": &in.StopHookActive, "last_assistant_message": &in.LastAssistantMessage, "agent_transcript_path": &in.AgentTranscriptPath,
		"tool_name": &in.ToolName, "tool_input": &in.ToolInput, "tool_response": &in.ToolResponse,
		"prompt": &in.Prompt, "background_tasks": &in.BackgroundTasks, "session_crons": &in.SessionCrons, "source": &in.Source, "reason": &in.Reason,
	})
	in.Unreadable = bad
	return in, err
}
