package hookjson

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFields(t *testing.T) {
	var (
		id     string
		active bool
		n      int
	)
	bad, err := Fields([]byte(`{"session_id":"s1","stop_hook_active":"true","count":3,"extra":{"x":1}}`),
		map[string]any{"session_id": &id, "stop_hook_active": &active, "count": &n, "absent": new(string)})
	require.NoError(t, err)
	assert.Equal(t, "s1", id)
	assert.False(t, active, "a wrong type is left zero")
	assert.Equal(t, 3, n)
	assert.Equal(t, []string{"stop_hook_active"}, bad)

	for _, in := range []string{`[1,2,3]`, `null`, `"x"`, `{`} {
		_, err := Fields([]byte(in), map[string]any{})
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), "not a JSON object")
	}
}

func TestReadAndSizes(t *testing.T) {
	data, err := Read(strings.NewReader(""))
	require.NoError(t, err)
	_, err = Fields(data, nil)
	assert.ErrorContains(t, err, "empty")
	data, err = Read(strings.NewReader(strings.Repeat(" ", MaxInput+10)))
	require.NoError(t, err)
	assert.Len(t, data, MaxInput+1, "reading stops one byte past the limit")
	_, err = Fields(data, nil)
	assert.ErrorContains(t, err, "larger than 64 MiB")
}

func TestUnjudgeable(t *testing.T) {
	tool, err := Unjudgeable([]string{"agent_id", "permission_mode"}, "Bash")
	assert.NoError(t, err, "fields the judgement does not need")
	assert.Equal(t, "Bash", tool)
	_, err = Unjudgeable([]string{"session_id"}, "Bash")
	assert.ErrorContains(t, err, "session_id")
	tool, err = Unjudgeable([]string{"tool_name"}, "Bash")
	assert.ErrorContains(t, err, "tool_name")
	assert.Empty(t, tool, "an unreadable tool name is not trusted")
	_, err = Unjudgeable(nil, "")
	assert.ErrorContains(t, err, "names no tool")
}
