package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeInputLenient(t *testing.T) {
	tests := []struct {
		name       string
		input      string
		tool       string
		session    string
		unreadable []string
		err        string
	}{
		{"well formed", `{"session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`, "Bash", "s", nil, ""},
		{"unknown fields", `{"session_id":"s","tool_name":"Bash","tool_use_id":7,"new":{"x":1}}`, "Bash", "s", nil, ""},
		{"agent id number", `{"session_id":"s","agent_id":5,"tool_name":"Write"}`, "Write", "s", []string{"agent_id"}, ""},
		{"stop hook active string", `{"session_id":"s","stop_hook_active":"true","tool_name":"Bash"}`, "Bash", "s", []string{"stop_hook_active"}, ""},
		{"permission mode number", `{"session_id":"s","permission_mode":1,"tool_name":"Edit"}`, "Edit", "s", []string{"permission_mode"}, ""},
		{"several", `{"session_id":2,"tool_name":["Bash"],"cwd":{}}`, "", "", []string{"cwd", "session_id", "tool_name"}, ""},
		{"null fields are zero", `{"session_id":null,"tool_name":"Bash","last_assistant_message":null}`, "Bash", "", nil, ""},
		{"not an object", `[1,2]`, "", "", nil, "not a JSON object"},
		{"null", `null`, "", "", nil, "not a JSON object"},
		{"truncated", `{"tool_name":"Bash",`, "", "", nil, "not a JSON object"},
		{"empty", ``, "", "", nil, "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := decodeInput([]byte(tc.input))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.tool, in.ToolName)
			assert.Equal(t, tc.session, in.SessionID)
			assert.Equal(t, tc.unreadable, in.Unreadable)
		})
	}
	in, err := decodeInput([]byte(`{"tool_input":{"command":"ls"},"stop_hook_active":true,"last_assistant_message":"hi"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"command":"ls"}`, string(in.ToolInput))
	assert.True(t, in.StopHookActive)
	require.NotNil(t, in.LastAssistantMessage)
	assert.Equal(t, "hi", *in.LastAssistantMessage)
}
