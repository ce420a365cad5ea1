// Package codexserver is a scripted stand-in for the OpenAI Responses API
// (POST /v1/responses, streamed as server-sent events), for driving the real
// Codex CLI in end-to-end tests through a custom model provider:
//
//	model_provider = "scripted"
//	[model_providers.scripted]
//	base_url = "<Server.URL>/v1"
//	wire_api = "responses"
//	env_key = "SCRIPTED_API_KEY"
//
// The server listens on 127.0.0.1 on a free port. Requests that offer tools
// are answered, strictly in order, by the script's replies; requests without
// tools are side calls and get SideText without touching the script. Every
// scripted request is recorded for assertions. When the script is used up the
// server answers with OverrunText and marks the request; after MaxOverruns of
// those it refuses with an error, so a client stuck in a loop cannot run
// forever.
package codexserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/plansmith/plansmith/e2e/scripted"
)

// MaxOverruns bounds how many requests past the end of the script are
// answered before the server starts refusing them.
const MaxOverruns = scripted.MaxOverruns

// OverrunText is the reply sent once the script is used up.
const OverrunText = "(codexserver: script exhausted)"

// SideText is the reply to side calls (requests without tools).
const SideText = scripted.SideText

// Server is a running scripted model. URL is its base URL without the /v1
// suffix. The Book's methods tell what it answered: Requests, Remaining,
// Overruns, SideCalls and Unhandled.
type Server struct {
	URL string
	*scripted.Book[Reply, Request]

	srv *httptest.Server
}

// New starts a server that answers scripted requests with script, in order.
// Close it when done.
func New(script ...Reply) *Server {
	s := &Server{Book: scripted.NewBook[Reply, Request](script)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server and waits for requests in flight.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/v1/responses" {
		s.responses(w, r)
		return
	}
	s.NotFound(r)
	writeError(w, http.StatusNotFound, "codexserver: no route for "+r.Method+" "+r.URL.Path)
}

// wireRequest is the part of a Responses API request the server reads.
type wireRequest struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	Tools  []wireTool      `json:"tools"`
	Input  []wireInputItem `json:"input"`
}

type wireTool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type wireInputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	if enc := r.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		writeError(w, http.StatusUnsupportedMediaType, "codexserver: compressed request bodies ("+enc+") are not supported")
		return
	}
	body, err := scripted.ReadBody(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "codexserver: reading body: "+err.Error())
		return
	}
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "codexserver: decoding body: "+err.Error())
		return
	}
	if len(req.Tools) == 0 {
		s.stream(w, req.Model, s.SideCall("resp"), Text(SideText))
		return
	}

	seen := s.record(req, body)
	reply, rec, outcome := s.Take("", func(index int, overrun bool) Request {
		r := seen
		r.Index, r.Overrun = index, overrun
		return r
	})
	switch outcome {
	case scripted.Exhausted:
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("codexserver: script exhausted %d requests ago", MaxOverruns))
		return
	case scripted.Overrun:
		reply = Text(OverrunText)
	}
	id := s.NewID("resp")
	if reply.Respond != nil {
		reply = reply.Respond(rec)
		reply.Respond = nil
	}
	s.stream(w, req.Model, id, reply)
}

// record turns a request into a Request. Take sets Index and Overrun.
func (s *Server) record(req wireRequest, body []byte) Request {
	rec := Request{Model: req.Model, Stream: req.Stream, Body: json.RawMessage(body)}
	for _, t := range req.Tools {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		rec.Tools = append(rec.Tools, name)
	}
	// The tail is what follows the model's last output item.
	tail := 0
	for i, it := range req.Input {
		switch {
		case it.Type == "message" && it.Role == "developer":
			rec.Developer = append(rec.Developer, contentText(it.Content))
		case it.Type == "message" && it.Role == "user":
			rec.LastUserText = contentText(it.Content)
		case it.Type == "message" && it.Role == "assistant",
			it.Type == "function_call", it.Type == "custom_tool_call":
			tail = i + 1
		}
	}
	for _, it := range req.Input[tail:] {
		switch {
		case it.Type == "message" && it.Role == "user":
			if p, ok := hookPrompt(contentText(it.Content)); ok {
				rec.HookPrompts = append(rec.HookPrompts, p)
			}
		case it.Type == "function_call_output", it.Type == "custom_tool_call_output":
			rec.Outputs = append(rec.Outputs, ToolOutput{CallID: it.CallID, Name: s.ToolOf(it.CallID), Output: outputText(it.Output)})
		}
	}
	return rec
}

// hookPrompt returns the contents of a `<hook_prompt hook_run_id="…">…</hook_prompt>`
// message, the form a Stop hook's block reason takes in the conversation.
func hookPrompt(text string) (string, bool) {
	const open, end = "<hook_prompt", "</hook_prompt>"
	if !strings.HasPrefix(text, open) || !strings.HasSuffix(text, end) {
		return "", false
	}
	_, rest, ok := strings.Cut(text, ">")
	if !ok {
		return "", false
	}
	return strings.TrimSuffix(rest, end), true
}

// contentText joins the text parts of a message's content (a string or a
// list of {type, text} parts).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// outputText reads a tool output, a string or a list of content parts.
func outputText(raw json.RawMessage) string { return contentText(raw) }

// stream writes reply as a Responses API event stream: the response is
// created, each output item is added, streamed (text as deltas) and done,
// and the response completes with a token usage.
func (s *Server) stream(w http.ResponseWriter, model, respID string, reply Reply) {
	type item = map[string]any
	var items []item
	if reply.Text != "" || reply.Call == nil {
		items = append(items, item{"type": "message", "id": s.NewID("msg"), "role": "assistant", "status": "completed",
			"content": []item{{"type": "output_text", "text": reply.Text, "annotations": []any{}}}})
	}
	if c := reply.Call; c != nil {
		callID := s.NewToolID("call", c.Name)
		if c.Item != nil {
			it := item{}
			for k, v := range c.Item {
				it[k] = v
			}
			for k, v := range map[string]any{"id": s.NewID("it"), "call_id": callID, "status": "completed"} {
				if _, ok := it[k]; !ok {
					it[k] = v
				}
			}
			items = append(items, it)
		} else if c.Custom {
			input, _ := c.Input.(string)
			items = append(items, item{"type": "custom_tool_call", "id": s.NewID("ctc"), "status": "completed",
				"call_id": callID, "name": c.Name, "input": input})
		} else {
			args, err := json.Marshal(c.Input)
			if err != nil {
				args = []byte("{}")
			}
			items = append(items, item{"type": "function_call", "id": s.NewID("fc"), "status": "completed",
				"call_id": callID, "name": c.Name, "arguments": string(args)})
		}
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data item) {
		data["type"] = event
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("response.created", item{"response": item{"id": respID, "object": "response", "model": model, "status": "in_progress"}})
	for i, it := range items {
		if it["type"] == "message" {
			send("response.output_item.added", item{"output_index": i, "item": item{"type": "message", "id": it["id"], "role": "assistant", "status": "in_progress", "content": []any{}}})
			if reply.Text != "" {
				send("response.output_text.delta", item{"output_index": i, "item_id": it["id"], "content_index": 0, "delta": reply.Text})
			}
		} else {
			send("response.output_item.added", item{"output_index": i, "item": it})
		}
		send("response.output_item.done", item{"output_index": i, "item": it})
	}
	send("response.completed", item{"response": item{"id": respID, "object": "response", "model": model, "status": "completed",
		"usage": item{"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}}})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	_, _ = w.Write(b)
}
