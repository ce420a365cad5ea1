// Package modelserver is a scripted stand-in for the Anthropic Messages API,
// for driving the real Claude Code CLI in end-to-end tests.
//
// The server listens on 127.0.0.1 on a free port. Requests that offer tools
// come from the main agent (or a sub-agent) and are answered, strictly in
// order, by the script's replies; requests without tools are the client's
// side calls (titles, summaries) and get a short text without touching the
// script. Every main-agent request is recorded for assertions. When the
// script is used up the server answers with a plain end-of-turn text and
// marks the request as an overrun; after MaxOverruns of those it refuses
// with an error, so a client stuck in a loop cannot run forever.
//
// A sub-agent's requests can be kept apart from the main agent's with
// Route: a request whose first user message (for a sub-agent, the prompt it
// was started with) contains the route's text takes the route's replies
// instead of the script's. That is what lets a background sub-agent run
// while the main agent carries on: their requests interleave in no fixed
// order, but each conversation still gets its own replies in order.
package modelserver

import (
	"bytes"
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
const OverrunText = "(modelserver: script exhausted)"

// SideText is the reply to side calls (requests without tools).
const SideText = "Scripted session"

// maxBody caps a request body; the CLI's requests are a few hundred KiB.
const maxBody = 32 << 20

// Server is a running scripted model. URL is its base URL, suitable for
// ANTHROPIC_BASE_URL.
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
	toolNames map[string]string // tool_use id → tool name, for results
	ids       int
	routes    []*route
}

// route is the script of the sub-agents whose prompt contains match.
type route struct {
	match    string
	replies  []Reply
	next     int
	requests []Request
}

// New starts a server that answers main-agent requests with script, in
// order. Close it when done.
func New(script ...Reply) *Server {
	s := &Server{script: script, toolNames: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server and waits for requests in flight.
func (s *Server) Close() { s.srv.Close() }

// Route answers every request whose first user message contains match with
// replies, in order, instead of the main script; such requests are recorded
// under the route (RouteRequests), not in Requests. Routes are tried in the
// order they were added; the first that matches wins. Past its replies a
// route answers like an exhausted script (an overrun). Add routes before the
// client runs.
func (s *Server) Route(match string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes = append(s.routes, &route{match: match, replies: replies})
}

// RouteRequests returns a copy of the requests the route added with match
// answered, in arrival order (their Index counts within the route).
func (s *Server) RouteRequests(match string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.routes {
		if r.match == match {
			return append([]Request(nil), r.requests...)
		}
	}
	return nil
}

// Requests returns a copy of the main-agent requests recorded so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Remaining is how many scripted replies have not been used, the routes'
// included.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.script) - s.next
	for _, r := range s.routes {
		n += len(r.replies) - r.next
	}
	return n
}

// Overruns is how many main-agent requests arrived after the script ran out.
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
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.messages(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		s.countTokens(w, r)
	default:
		s.mu.Lock()
		s.unhandled = append(s.unhandled, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "not_found_error", "modelserver: no route for "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "modelserver: reading body: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"input_tokens": len(body)/4 + 1})
}

// wireRequest is the part of a Messages API request the server reads.
type wireRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []wireMessage   `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "modelserver: reading body: "+err.Error())
		return
	}
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "modelserver: decoding body: "+err.Error())
		return
	}
	model := req.Model
	if model == "" {
		model = "scripted-model"
	}

	if len(req.Tools) == 0 {
		s.mu.Lock()
		s.sideCalls++
		id := s.newID("msg")
		s.mu.Unlock()
		respond(w, req.Stream, id, model, []block{{Type: "text", Text: SideText}}, "end_turn")
		return
	}

	s.mu.Lock()
	rt := s.routeFor(req)
	rec := s.record(req, body)
	replies, next, recorded := &s.script, &s.next, &s.requests
	if rt != nil {
		replies, next, recorded = &rt.replies, &rt.next, &rt.requests
		rec.Route = rt.match
	}
	rec.Index = len(*recorded)
	var reply Reply
	switch {
	case *next < len(*replies):
		reply = (*replies)[*next]
		*next++
	case s.overruns >= MaxOverruns:
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, "invalid_request_error", "modelserver: script exhausted too many times")
		return
	default:
		s.overruns++
		rec.Overrun = true
		reply = Text(OverrunText)
	}
	*recorded = append(*recorded, rec)
	s.mu.Unlock()

	// Called outside the lock: a scenario's function may be slow or may
	// inspect the server.
	if reply.Respond != nil {
		reply = reply.Respond(rec)
	}

	if reply.Error != nil {
		writeError(w, reply.Error.Status, reply.Error.Type, reply.Error.Message)
		return
	}
	s.mu.Lock()
	blocks, stop, err := s.blocks(reply)
	msgID := s.newID("msg")
	s.mu.Unlock()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "api_error", "modelserver: "+err.Error())
		return
	}
	respond(w, req.Stream, msgID, model, blocks, stop)
}

// routeFor returns the route whose text the request's first user message
// contains, or nil; s.mu must be held.
func (s *Server) routeFor(req wireRequest) *route {
	if len(s.routes) == 0 {
		return nil
	}
	first := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			first = contentText(m.Content)
			break
		}
	}
	for _, r := range s.routes {
		if strings.Contains(first, r.match) {
			return r
		}
	}
	return nil
}

// record decodes what tests assert on; s.mu must be held. The caller sets
// Index.
func (s *Server) record(req wireRequest, body []byte) Request {
	rec := Request{
		Model:    req.Model,
		Stream:   req.Stream,
		System:   contentText(req.System),
		Messages: len(req.Messages),
		Body:     json.RawMessage(body),
	}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	for _, m := range req.Messages {
		if m.Role == "system" {
			rec.SystemMessages = append(rec.SystemMessages, contentText(m.Content))
		}
	}
	var notes []string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == "system" {
			notes = append([]string{contentText(m.Content)}, notes...)
			continue
		}
		if m.Role != "user" {
			notes = nil
			continue
		}
		rec.Notes = strings.Join(notes, "\n")
		rec.LastUserText = contentText(m.Content)
		for _, b := range decodeBlocks(m.Content) {
			if b.Type != "tool_result" {
				continue
			}
			rec.ToolResults = append(rec.ToolResults, ToolResult{
				ToolUseID: b.ToolUseID,
				ToolName:  s.toolNames[b.ToolUseID],
				Content:   contentText(b.Content),
				IsError:   b.IsError,
			})
		}
		break
	}
	return rec
}

// block is one content block of a reply, as sent on the wire.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// blocks turns a reply into content blocks and a stop reason; s.mu must be held.
func (s *Server) blocks(r Reply) ([]block, string, error) {
	var out []block
	if r.Text != "" || r.ToolUse == nil {
		out = append(out, block{Type: "text", Text: r.Text})
	}
	if r.ToolUse == nil {
		return out, "end_turn", nil
	}
	input := []byte("{}")
	if r.ToolUse.Input != nil {
		var err error
		input, err = json.Marshal(r.ToolUse.Input)
		if err != nil {
			return nil, "", fmt.Errorf("marshalling input of tool %s: %w", r.ToolUse.Name, err)
		}
	}
	id := s.newID("toolu")
	s.toolNames[id] = r.ToolUse.Name
	out = append(out, block{Type: "tool_use", ID: id, Name: r.ToolUse.Name, Input: input})
	return out, "tool_use", nil
}

// newID returns a fresh id with prefix; s.mu must be held.
func (s *Server) newID(prefix string) string {
	s.ids++
	return fmt.Sprintf("%s_e2e%04d", prefix, s.ids)
}

// decodeBlocks reads a content field that is a string or a list of blocks.
func decodeBlocks(raw json.RawMessage) []wireBlock {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return []wireBlock{{Type: "text", Text: s}}
	}
	var bs []wireBlock
	if json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	return bs
}

// contentText joins the text blocks of a content field.
func contentText(raw json.RawMessage) string {
	var parts []string
	for _, b := range decodeBlocks(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func usage() map[string]int { return map[string]int{"input_tokens": 10, "output_tokens": 10} }

// respond sends a whole message, as SSE events when stream is set.
func respond(w http.ResponseWriter, stream bool, id, model string, blocks []block, stop string) {
	if !stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage(),
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	ev := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
	}})
	for i, b := range blocks {
		switch b.Type {
		case "text":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		case "tool_use":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 10}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, kind, msg string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]string{"type": kind, "message": msg}})
}
