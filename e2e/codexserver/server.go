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
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// MaxOverruns bounds how many requests past the end of the script are
// answered before the server starts refusing them.
const MaxOverruns = 20

// OverrunText is the reply sent once the script is used up.
const OverrunText = "(codexserver: script exhausted)"

// SideText is the reply to side calls (requests without tools).
const SideText = "Scripted session"

// maxBody caps a request body; Codex's requests are tens of KiB.
const maxBody = 32 << 20

// Server is a running scripted model. URL is its base URL without the /v1
// suffix.
type Server struct {
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	script    []Reply
	next      int
	requests  []Request
	sideCalls int
	overruns  int
	unhandled []string
	callNames map[string]string // call id → tool name
	ids       int
}

// New starts a server that answers scripted requests with script, in order.
// Close it when done.
func New(script ...Reply) *Server {
	s := &Server{script: script, callNames: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server and waits for requests in flight.
func (s *Server) Close() { s.srv.Close() }

// Requests returns a copy of the scripted requests recorded so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Remaining is how many scripted replies have not been used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next
}

// Overruns is how many scripted requests arrived after the script ran out.
func (s *Server) Overruns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overruns
}

// SideCalls is how many requests without tools were answered.
func (s *Server) SideCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sideCalls
}

// Unhandled lists "METHOD /path" of requests answered with 404.
func (s *Server) Unhandled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unhandled...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/v1/responses" {
		s.responses(w, r)
		return
	}
	s.mu.Lock()
	s.unhandled = append(s.unhandled, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
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
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
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
		s.mu.Lock()
		s.sideCalls++
		id := s.newID("resp")
		s.mu.Unlock()
		s.stream(w, req.Model, id, Text(SideText))
		return
	}

	s.mu.Lock()
	rec := s.record(req, body)
	var reply Reply
	switch {
	case s.next < len(s.script):
		reply = s.script[s.next]
		s.next++
	case s.overruns >= MaxOverruns:
		s.mu.Unlock()
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("codexserver: script exhausted %d requests ago", MaxOverruns))
		return
	default:
		s.overruns++
		rec.Overrun = true
		reply = Text(OverrunText)
	}
	s.requests = append(s.requests, rec)
	id := s.newID("resp")
	s.mu.Unlock()

	if reply.Respond != nil {
		reply = reply.Respond(rec)
		reply.Respond = nil
	}
	s.stream(w, req.Model, id, reply)
}

// record turns a request into a Request. The caller holds s.mu.
func (s *Server) record(req wireRequest, body []byte) Request {
	rec := Request{Index: len(s.requests), Model: req.Model, Stream: req.Stream, Body: json.RawMessage(body)}
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
			rec.Outputs = append(rec.Outputs, ToolOutput{CallID: it.CallID, Name: s.callNames[it.CallID], Output: outputText(it.Output)})
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

// newID returns a fresh identifier with prefix. The caller holds s.mu.
func (s *Server) newID(prefix string) string {
	s.ids++
	return fmt.Sprintf("%s_%04d", prefix, s.ids)
}

// stream writes reply as a Responses API event stream: the response is
// created, each output item is added, streamed (text as deltas) and done,
// and the response completes with a token usage.
func (s *Server) stream(w http.ResponseWriter, model, respID string, reply Reply) {
	type item = map[string]any
	var items []item
	s.mu.Lock()
	if reply.Text != "" || reply.Call == nil {
		items = append(items, item{"type": "message", "id": s.newID("msg"), "role": "assistant", "status": "completed",
			"content": []item{{"type": "output_text", "text": reply.Text, "annotations": []any{}}}})
	}
	if c := reply.Call; c != nil {
		callID := s.newID("call")
		s.callNames[callID] = c.Name
		if c.Custom {
			input, _ := c.Input.(string)
			items = append(items, item{"type": "custom_tool_call", "id": s.newID("ctc"), "status": "completed",
				"call_id": callID, "name": c.Name, "input": input})
		} else {
			args, err := json.Marshal(c.Input)
			if err != nil {
				args = []byte("{}")
			}
			items = append(items, item{"type": "function_call", "id": s.newID("fc"), "status": "completed",
				"call_id": callID, "name": c.Name, "arguments": string(args)})
		}
	}
	s.mu.Unlock()

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
