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
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/plansmith/plansmith/e2e/scripted"
)

// MaxOverruns bounds how many requests past the end of the script are
// answered before the server starts refusing them.
const MaxOverruns = scripted.MaxOverruns

// OverrunText is the reply sent once the script is used up.
const OverrunText = "(modelserver: script exhausted)"

// SideText is the reply to side calls (requests without tools).
const SideText = scripted.SideText

// Server is a running scripted model. URL is its base URL, suitable for
// ANTHROPIC_BASE_URL. The Book's methods tell what it answered: Requests,
// RouteRequests, Remaining, Overruns, SideCalls and Unhandled.
type Server struct {
	URL string
	*scripted.Book[Reply, Request]

	srv *httptest.Server
}

// New starts a server that answers main-agent requests with script, in
// order. Close it when done.
func New(script ...Reply) *Server {
	s := &Server{Book: scripted.NewBook[Reply, Request](script)}
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
func (s *Server) Route(match string, replies ...Reply) { s.AddRoute(match, replies) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.messages(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		s.countTokens(w, r)
	default:
		s.NotFound(r)
		writeError(w, http.StatusNotFound, "not_found_error", "modelserver: no route for "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	body, err := scripted.ReadBody(r)
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
	body, err := scripted.ReadBody(r)
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
		respond(w, req.Stream, s.SideCall("msg"), model, []block{{Type: "text", Text: SideText}}, "end_turn")
		return
	}

	route := s.RouteFor(firstUserText(req))
	seen := s.record(req, body)
	reply, rec, outcome := s.Take(route, func(index int, overrun bool) Request {
		r := seen
		r.Index, r.Route, r.Overrun = index, route, overrun
		return r
	})
	switch outcome {
	case scripted.Exhausted:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "modelserver: script exhausted too many times")
		return
	case scripted.Overrun:
		reply = Text(OverrunText)
	}

	// Respond runs outside the Book's lock: a scenario's function may be
	// slow, or may ask the server what it has answered so far.
	if reply.Respond != nil {
		reply = reply.Respond(rec)
	}

	if reply.Error != nil {
		writeError(w, reply.Error.Status, reply.Error.Type, reply.Error.Message)
		return
	}
	blocks, stop, err := s.blocks(reply)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "api_error", "modelserver: "+err.Error())
		return
	}
	respond(w, req.Stream, s.NewID("msg"), model, blocks, stop)
}

// firstUserText is the text of the request's first user message: for a
// sub-agent, the prompt it was started with.
func firstUserText(req wireRequest) string {
	for _, m := range req.Messages {
		if m.Role == "user" {
			return contentText(m.Content)
		}
	}
	return ""
}

// record decodes what tests assert on. Take sets Index, Route and Overrun.
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
				ToolName:  s.ToolOf(b.ToolUseID),
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

// blocks turns a reply into content blocks and a stop reason.
func (s *Server) blocks(r Reply) ([]block, string, error) {
	var out []block
	if r.Text != "" || r.ToolUse == nil {
		out = append(out, block{Type: "text", Text: r.Text})
	}
	if r.ToolUse == nil {
		if r.StopReason != "" {
			return out, r.StopReason, nil
		}
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
	id := s.NewToolID("toolu", r.ToolUse.Name)
	out = append(out, block{Type: "tool_use", ID: id, Name: r.ToolUse.Name, Input: input})
	return out, "tool_use", nil
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
