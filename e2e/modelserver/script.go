package modelserver

import (
	"encoding/json"
	"fmt"
)

// Reply is one scripted answer of the model to a main-agent request: text,
// one tool call, or both (text first). When Respond is set it is called with
// the request being answered and its result is sent instead, so a scenario
// can react to what the client sent (echo a block reason, check a
// tool_result). A zero Reply answers with an empty text.
type Reply struct {
	Text    string
	ToolUse *ToolUse
	Respond func(Request) Reply
	// Error, when set, answers with an API error instead (HTTP status and
	// error type), as the real API does when a request fails.
	Error *APIError
	// StopReason, when set, replaces the stop reason of a text-only reply
	// (max_tokens: an answer cut at the output limit).
	StopReason string
}

// APIError is an error answer of the Messages API.
type APIError struct {
	Status  int
	Type    string
	Message string
}

// Fail is a reply that answers with an API error: status, error type and
// message, e.g. Fail(400, "invalid_request_error", "bad request").
func Fail(status int, kind, message string) Reply {
	return Reply{Error: &APIError{Status: status, Type: kind, Message: message}}
}

// ToolUse is a tool call the model makes. Input is marshalled to JSON and
// sent whole, as one input_json_delta.
type ToolUse struct {
	Name  string
	Input any
}

// Text is a reply that only says s and ends the turn.
func Text(s string) Reply { return Reply{Text: s} }

// Tool is a reply that calls the tool name with input.
func Tool(name string, input any) Reply {
	return Reply{ToolUse: &ToolUse{Name: name, Input: input}}
}

// Func is a reply computed from the request it answers. Respond must not
// itself return a Reply with Respond set; such a nested function is ignored.
func Func(respond func(Request) Reply) Reply { return Reply{Respond: respond} }

// Request is what the server recorded of one main-agent request (one that
// carried tools): enough to assert what the client told the model.
type Request struct {
	// Index counts main-agent requests from 0, in arrival order (a routed
	// request counts within its route).
	Index int
	// Route is the match text of the route that answered the request; empty
	// for the main script.
	Route string
	Model string
	// Stream is the request's stream flag.
	Stream bool
	// System is the system prompt's text, blocks joined by newlines.
	System string
	// Messages is the number of messages in the conversation sent.
	Messages int
	// Tools are the names of the tools offered to the model.
	Tools []string
	// LastUserText is the text blocks of the last user message, joined by
	// newlines (a plain string content counts as one text block).
	LastUserText string
	// ToolResults are the tool_result blocks of the last user message.
	ToolResults []ToolResult
	// SystemMessages is the text of every role "system" message in the
	// conversation, in order (newer clients put the environment section,
	// with the working directory, in one right after the first user message).
	SystemMessages []string
	// Notes is the text of the role "system" messages that follow the last
	// user message, joined by newlines: where the client puts a
	// UserPromptSubmit hook's additionalContext.
	Notes string
	// Overrun is true when the script was already used up and the server
	// answered with its fallback text.
	Overrun bool
	// Body is the raw request body, for assertions the fields above miss.
	Body json.RawMessage
}

// String summarises the request in one line, so a failed assertion on a
// list of requests stays readable.
func (r Request) String() string {
	return fmt.Sprintf("request %d (%d messages, %d tool results, overrun=%v): last user text %.200q",
		r.Index, r.Messages, len(r.ToolResults), r.Overrun, r.LastUserText)
}

// ToolResult is one tool_result block the client sent back.
type ToolResult struct {
	ToolUseID string
	// ToolName is the name of the scripted tool call this result answers
	// (empty when the id was not issued by this server).
	ToolName string
	// Content is the result's text (text blocks joined by newlines).
	Content string
	IsError bool
}
