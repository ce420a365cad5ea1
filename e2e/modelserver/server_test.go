package modelserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// event is one server-sent event.
type event struct {
	Name string
	Data map[string]any
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	var out []event
	var name string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d))
			require.Equal(t, name, d["type"], "event name and data type agree")
			out = append(out, event{Name: name, Data: d})
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func names(evs []event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// mainRequest is a request body the way the main agent sends it.
func mainRequest(stream bool, messages ...string) string {
	return `{"model":"m","stream":` + map[bool]string{true: "true", false: "false"}[stream] +
		`,"tools":[{"name":"Write"},{"name":"Bash"}],"system":[{"type":"text","text":"sys"}],"messages":[` +
		strings.Join(messages, ",") + `]}`
}

const userHello = `{"role":"user","content":"hello"}`

func TestStreamedReplies(t *testing.T) {
	tests := []struct {
		name   string
		reply  Reply
		events []string
		stop   string
		check  func(t *testing.T, evs []event)
	}{
		{
			name:   "text",
			reply:  Text("hi there"),
			events: []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"},
			stop:   "end_turn",
			check: func(t *testing.T, evs []event) {
				delta := evs[2].Data["delta"].(map[string]any)
				assert.Equal(t, "text_delta", delta["type"])
				assert.Equal(t, "hi there", delta["text"])
			},
		},
		{
			name:   "text cut at the output limit",
			reply:  Reply{Text: "## Goal", StopReason: "max_tokens"},
			events: []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"},
			stop:   "max_tokens",
			check:  func(t *testing.T, evs []event) {},
		},
		{
			name:   "tool use",
			reply:  Tool("Write", map[string]string{"file_path": "/x", "content": "y"}),
			events: []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"},
			stop:   "tool_use",
			check: func(t *testing.T, evs []event) {
				start := evs[1].Data["content_block"].(map[string]any)
				assert.Equal(t, "tool_use", start["type"])
				assert.Equal(t, "Write", start["name"])
				assert.NotEmpty(t, start["id"])
				delta := evs[2].Data["delta"].(map[string]any)
				assert.Equal(t, "input_json_delta", delta["type"])
				assert.JSONEq(t, `{"file_path":"/x","content":"y"}`, delta["partial_json"].(string))
			},
		},
		{
			name:  "text then tool use",
			reply: Reply{Text: "let me look", ToolUse: &ToolUse{Name: "Bash", Input: map[string]string{"command": "ls"}}},
			events: []string{"message_start",
				"content_block_start", "content_block_delta", "content_block_stop",
				"content_block_start", "content_block_delta", "content_block_stop",
				"message_delta", "message_stop"},
			stop: "tool_use",
			check: func(t *testing.T, evs []event) {
				assert.EqualValues(t, 0, evs[1].Data["index"])
				assert.EqualValues(t, 1, evs[4].Data["index"])
			},
		},
		{
			name:   "tool use without input sends an empty object",
			reply:  Tool("Read", nil),
			events: []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"},
			stop:   "tool_use",
			check: func(t *testing.T, evs []event) {
				assert.Equal(t, "{}", evs[2].Data["delta"].(map[string]any)["partial_json"])
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.reply)
			defer s.Close()
			resp := post(t, s.URL+"/v1/messages?beta=true", mainRequest(true, userHello))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			evs := readEvents(t, resp.Body)
			require.Equal(t, tt.events, names(evs))
			md := evs[len(evs)-2].Data["delta"].(map[string]any)
			assert.Equal(t, tt.stop, md["stop_reason"])
			tt.check(t, evs)
			assert.Equal(t, 0, s.Remaining())
		})
	}
}

func TestNonStreamedReply(t *testing.T) {
	s := New(Reply{Text: "a", ToolUse: &ToolUse{Name: "Bash", Input: map[string]string{"command": "ls"}}})
	defer s.Close()
	resp := post(t, s.URL+"/v1/messages", mainRequest(false, userHello))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var msg struct {
		Type       string `json:"type"`
		Role       string `json:"role"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
	assert.Equal(t, "message", msg.Type)
	assert.Equal(t, "assistant", msg.Role)
	assert.Equal(t, "tool_use", msg.StopReason)
	require.Len(t, msg.Content, 2)
	assert.Equal(t, "a", msg.Content[0].Text)
	assert.Equal(t, "Bash", msg.Content[1].Name)
	assert.JSONEq(t, `{"command":"ls"}`, string(msg.Content[1].Input))
}

func TestSideCallsDoNotConsumeTheScript(t *testing.T) {
	s := New(Text("scripted"))
	defer s.Close()
	for _, stream := range []bool{true, false} {
		body := `{"model":"m","stream":` + map[bool]string{true: "true", false: "false"}[stream] + `,"messages":[` + userHello + `]}`
		resp := post(t, s.URL+"/v1/messages", body)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Contains(t, string(b), SideText)
	}
	assert.Equal(t, 2, s.SideCalls())
	assert.Equal(t, 1, s.Remaining())
	assert.Empty(t, s.Requests())
}

func TestOtherRoutes(t *testing.T) {
	s := New()
	defer s.Close()

	resp := post(t, s.URL+"/v1/messages/count_tokens?beta=true", mainRequest(false, userHello))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var tok struct {
		InputTokens int `json:"input_tokens"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	assert.Positive(t, tok.InputTokens)

	resp = post(t, s.URL+"/v1/models", `{}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
	assert.Equal(t, "error", e.Type)
	assert.Equal(t, "not_found_error", e.Error.Type)
	assert.Equal(t, []string{"POST /v1/models"}, s.Unhandled())

	resp = post(t, s.URL+"/v1/messages", `{not json`)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestRecording(t *testing.T) {
	s := New(Text("one"), Text("two"))
	defer s.Close()
	post(t, s.URL+"/v1/messages", mainRequest(false, userHello, `{"role":"system","content":"extra context"}`))
	post(t, s.URL+"/v1/messages", mainRequest(true, userHello, `{"role":"system","content":"stale"}`,
		`{"role":"assistant","content":"x"}`, `{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`))

	reqs := s.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, Request{
		Index: 0, Model: "m", Stream: false, System: "sys", Messages: 2, Tools: []string{"Write", "Bash"},
		SystemMessages: []string{"extra context"},
		LastUserText:   "hello", Notes: "extra context", Body: reqs[0].Body,
	}, reqs[0])
	assert.Equal(t, 1, reqs[1].Index)
	assert.True(t, reqs[1].Stream)
	assert.Equal(t, "a\nb", reqs[1].LastUserText)
	assert.Empty(t, reqs[1].Notes, "system messages before the last user message are not notes")
	assert.Contains(t, string(reqs[1].Body), `"stale"`)
}

func TestToolResultsAndFunc(t *testing.T) {
	var seen Request
	s := New(
		Tool("Write", map[string]string{"file_path": "/x"}),
		Func(func(r Request) Reply {
			seen = r
			return Text("echo: " + r.ToolResults[0].Content)
		}),
	)
	defer s.Close()

	resp := post(t, s.URL+"/v1/messages", mainRequest(false, userHello))
	var first struct {
		Content []struct {
			ID string `json:"id"`
		} `json:"content"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&first))
	id := first.Content[len(first.Content)-1].ID
	require.NotEmpty(t, id)

	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id +
		`","is_error":true,"content":[{"type":"text","text":"denied: read-only"}]},{"type":"text","text":"note"}]}`
	resp = post(t, s.URL+"/v1/messages", mainRequest(false, userHello, `{"role":"assistant","content":"x"}`, result))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(b), "echo: denied: read-only")

	want := []ToolResult{{ToolUseID: id, ToolName: "Write", Content: "denied: read-only", IsError: true}}
	assert.Equal(t, want, seen.ToolResults)
	assert.Equal(t, "note", seen.LastUserText)
	assert.Equal(t, want, s.Requests()[1].ToolResults)
}

func TestOverrun(t *testing.T) {
	s := New(Text("only"))
	defer s.Close()
	for i := 0; i < MaxOverruns+1; i++ {
		resp := post(t, s.URL+"/v1/messages", mainRequest(true, userHello))
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		if i > 0 {
			assert.Contains(t, string(b), OverrunText, "request %d", i)
		}
	}
	assert.Equal(t, MaxOverruns, s.Overruns())
	reqs := s.Requests()
	require.Len(t, reqs, MaxOverruns+1)
	assert.False(t, reqs[0].Overrun)
	assert.True(t, reqs[1].Overrun)

	// Past the bound the server refuses, so a looping client ends.
	resp := post(t, s.URL+"/v1/messages", mainRequest(true, userHello))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestUnmarshallableInputIsAnAPIError(t *testing.T) {
	s := New(Tool("Bash", map[string]any{"bad": func() {}}))
	defer s.Close()
	resp := post(t, s.URL+"/v1/messages", mainRequest(false, userHello))
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	b, _ := io.ReadAll(resp.Body)
	assert.True(t, bytes.Contains(b, []byte("Bash")))
}

// replyText posts body and returns the text of the reply.
func replyText(t *testing.T, url, body string) string {
	t.Helper()
	resp := post(t, url+"/v1/messages", body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var m struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	require.NotEmpty(t, m.Content)
	return m.Content[0].Text
}

func TestRoutesKeepSubAgentsApart(t *testing.T) {
	s := New(Text("main 1"), Text("main 2"))
	defer s.Close()
	s.Route("CRITIC-PROMPT", Text("critic 1"), Text("critic 2"))
	s.Route("VALIDATOR-PROMPT", Text("validator 1"))

	critic := `{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"CRITIC-PROMPT review this"}]}`
	validator := `{"role":"user","content":"VALIDATOR-PROMPT check"}`
	later := `{"role":"assistant","content":"x"},{"role":"user","content":"go on"}`
	// The main agent's later turns mention the prompt, but only its first
	// user message decides where a request goes.
	mention := `{"role":"assistant","content":"I ran CRITIC-PROMPT"},{"role":"user","content":"and then"}`

	// Interleaved as a background sub-agent's requests are.
	assert.Equal(t, "critic 1", replyText(t, s.URL, mainRequest(false, critic)))
	assert.Equal(t, "main 1", replyText(t, s.URL, mainRequest(false, userHello, mention)))
	assert.Equal(t, "validator 1", replyText(t, s.URL, mainRequest(false, validator)))
	assert.Equal(t, "critic 2", replyText(t, s.URL, mainRequest(false, critic, later)))
	assert.Equal(t, "main 2", replyText(t, s.URL, mainRequest(false, userHello)))
	assert.Zero(t, s.Remaining())
	assert.Zero(t, s.Overruns())

	// A route past its replies overruns like the script.
	assert.Equal(t, OverrunText, replyText(t, s.URL, mainRequest(false, validator)))
	assert.Equal(t, 1, s.Overruns())

	main := s.Requests()
	require.Len(t, main, 2)
	assert.Equal(t, []int{0, 1}, []int{main[0].Index, main[1].Index})
	assert.Empty(t, main[0].Route)
	crit := s.RouteRequests("CRITIC-PROMPT")
	require.Len(t, crit, 2)
	assert.Equal(t, "CRITIC-PROMPT", crit[0].Route)
	assert.Equal(t, "<system-reminder>x</system-reminder>\nCRITIC-PROMPT review this", crit[0].LastUserText)
	assert.Equal(t, 1, crit[1].Index)
	assert.Equal(t, "go on", crit[1].LastUserText)
	val := s.RouteRequests("VALIDATOR-PROMPT")
	require.Len(t, val, 2)
	assert.True(t, val[1].Overrun)
	assert.Nil(t, s.RouteRequests("nothing"))
}

func TestFailAnswersWithAnAPIError(t *testing.T) {
	s := New(Fail(http.StatusBadRequest, "invalid_request_error", "scripted failure"), Text("after"))
	defer s.Close()
	resp := post(t, s.URL+"/v1/messages", mainRequest(true, userHello))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	var e struct {
		Error struct{ Type, Message string } `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
	assert.Equal(t, "invalid_request_error", e.Error.Type)
	assert.Equal(t, "scripted failure", e.Error.Message)
	assert.Equal(t, "after", replyText(t, s.URL, mainRequest(false, userHello)), "the script goes on")
	assert.Len(t, s.Requests(), 2)
}
