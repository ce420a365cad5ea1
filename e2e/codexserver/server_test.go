package codexserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// post sends body to /v1/responses and returns the stream's events as
// (name, data) pairs.
func post(t *testing.T, s *Server, body string) [][2]string {
	t.Helper()
	resp, err := http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var events [][2]string
	var name string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			events = append(events, [2]string{name, strings.TrimPrefix(line, "data: ")})
		}
	}
	return events
}

func names(events [][2]string) []string {
	var out []string
	for _, e := range events {
		out = append(out, e[0])
	}
	return out
}

const withTools = `{"model":"gpt-5.5","stream":true,"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"},{"type":"web_search"}],"input":[
 {"type":"message","role":"developer","content":[{"type":"input_text","text":"instructions"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"do it"}]}]}`

func TestScriptedRepliesStreamInOrder(t *testing.T) {
	s := New(Exec("ls -a"), Patch("*** Begin Patch\n*** End Patch\n"), Text("done"))
	defer s.Close()

	ev := post(t, s, withTools)
	assert.Equal(t, []string{"response.created", "response.output_item.added", "response.output_item.done", "response.completed"}, names(ev))
	var done struct {
		Item struct {
			Type, Name, Arguments, CallID string
		} `json:"item"`
	}
	require.NoError(t, json.Unmarshal([]byte(ev[2][1]), &done))
	assert.Equal(t, "function_call", done.Item.Type)
	assert.Equal(t, "exec_command", done.Item.Name)
	assert.JSONEq(t, `{"cmd":"ls -a"}`, done.Item.Arguments)

	ev = post(t, s, withTools)
	assert.Contains(t, ev[2][1], `"type":"custom_tool_call"`)
	assert.Contains(t, ev[2][1], `"input":"*** Begin Patch\n*** End Patch\n"`)

	ev = post(t, s, withTools)
	assert.Equal(t, []string{"response.created", "response.output_item.added", "response.output_text.delta",
		"response.output_item.done", "response.completed"}, names(ev))
	assert.Contains(t, ev[3][1], `"text":"done"`)

	// Past the script: the overrun text, marked.
	ev = post(t, s, withTools)
	assert.Contains(t, ev[3][1], OverrunText)
	reqs := s.Requests()
	require.Len(t, reqs, 4)
	assert.True(t, reqs[3].Overrun)
	assert.Equal(t, []string{"exec_command", "apply_patch", "web_search"}, reqs[0].Tools)
	assert.Equal(t, []string{"instructions"}, reqs[0].Developer)
	assert.Equal(t, "do it", reqs[0].LastUserText)
}

func TestRecordsOutputsAndHookPromptsAfterTheLastModelItem(t *testing.T) {
	s := New(Exec("ls"), Func(func(r Request) Reply { return Text("outputs " + r.Outputs[0].Name) }), Text("x"))
	defer s.Close()
	ev := post(t, s, withTools)
	var done struct {
		Item struct {
			CallID string `json:"call_id"`
		} `json:"item"`
	}
	require.NoError(t, json.Unmarshal([]byte(ev[2][1]), &done))

	body := `{"model":"m","tools":[{"type":"function","name":"exec_command"}],"input":[
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"do it"}]},
	 {"type":"function_call","call_id":"old","name":"exec_command","arguments":"{}"},
	 {"type":"function_call_output","call_id":"old","output":"stale"},
	 {"type":"function_call","call_id":"` + done.Item.CallID + `","name":"exec_command","arguments":"{}"},
	 {"type":"function_call_output","call_id":"` + done.Item.CallID + `","output":[{"type":"input_text","text":"a.txt"}]}]}`
	ev = post(t, s, body)
	assert.Contains(t, ev[3][1], "outputs exec_command", "Respond saw the output, named by the call it answers")

	body = `{"model":"m","tools":[{"type":"function","name":"exec_command"}],"input":[
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"do it"}]},
	 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"first"}]},
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt hook_run_id=\"stop:1:/x/hooks.json\">go on</hook_prompt>"}]}]}`
	post(t, s, body)
	reqs := s.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []ToolOutput{{CallID: done.Item.CallID, Name: "exec_command", Output: "a.txt"}}, reqs[1].Outputs)
	assert.Empty(t, reqs[1].HookPrompts)
	assert.Equal(t, []string{"go on"}, reqs[2].HookPrompts)
	assert.Empty(t, reqs[2].Outputs)
}

func TestSideCallsAndUnknownPaths(t *testing.T) {
	s := New(Text("scripted"))
	defer s.Close()
	ev := post(t, s, `{"model":"m","input":[]}`)
	assert.Contains(t, ev[3][1], SideText)
	assert.Equal(t, 1, s.SideCalls())
	assert.Equal(t, 1, s.Remaining(), "a side call leaves the script alone")

	resp, err := http.Get(s.URL + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, []string{"GET /v1/models"}, s.Unhandled())
}

func TestHookPrompt(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`<hook_prompt hook_run_id="stop:10:/h/hooks.json">FIX: go</hook_prompt>`, "FIX: go", true},
		{`<hook_prompt>a > b</hook_prompt>`, "a > b", true},
		{`plain text`, "", false},
		{`<hook_prompt unterminated`, "", false},
	} {
		got, ok := hookPrompt(c.in)
		assert.Equal(t, c.ok, ok, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}
