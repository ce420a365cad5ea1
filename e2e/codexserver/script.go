package codexserver

import (
	"encoding/json"
	"fmt"
)

// Reply is one scripted answer of the model: text, a tool call, or both
// (text first). When Respond is set it is called with the request being
// answered and its result is sent instead, so a scenario can react to what
// the client sent. A zero Reply answers with an empty text.
type Reply struct {
	Text string
	Call *Call
	// Respond computes the reply from the request; a Respond in its result
	// is ignored.
	Respond func(Request) Reply
}

// Call is a tool call the model makes. A function call (Custom false) sends
// Input marshalled to JSON as its arguments; a custom (freeform) call, the
// kind Codex's apply_patch is, sends Input, which must be a string, as is.
type Call struct {
	Name   string
	Input  any
	Custom bool
	// Item, when set, is sent as the output item itself (its "type" and
	// fields as given, with an id and call_id added when missing): a kind
	// of call Codex did not offer, such as local_shell_call.
	Item map[string]any
}

// Text is a reply that only says s and ends the turn.
func Text(s string) Reply { return Reply{Text: s} }

// Exec is a reply that runs cmd through Codex's shell tool, exec_command
// (the tool Codex 0.169.0 offers for gpt-5.5; hooks see it as tool "Bash").
func Exec(cmd string) Reply {
	return Reply{Call: &Call{Name: "exec_command", Input: map[string]string{"cmd": cmd}}}
}

// Patch is a reply that calls Codex's freeform apply_patch tool with patch,
// the whole "*** Begin Patch … *** End Patch" text.
func Patch(patch string) Reply {
	return Reply{Call: &Call{Name: "apply_patch", Input: patch, Custom: true}}
}

// Func is a reply computed from the request it answers.
func Func(respond func(Request) Reply) Reply { return Reply{Respond: respond} }

// Request is what the server recorded of one scripted request (one that
// offered tools).
type Request struct {
	// Index counts scripted requests from 0, in arrival order.
	Index int
	Model string
	// Stream is the request's stream flag.
	Stream bool
	// Tools are the names of the tools offered (a tool without a name, such
	// as web_search, by its type).
	Tools []string
	// Developer holds the text of every developer message, in order: the
	// instructions, and where Codex puts SessionStart and UserPromptSubmit
	// additionalContext.
	Developer []string
	// LastUserText is the text of the last user message.
	LastUserText string
	// HookPrompts are the contents of the <hook_prompt> user messages that
	// follow the model's last output: how a Stop block reaches the model.
	HookPrompts []string
	// Outputs are the tool outputs that follow the model's last output.
	Outputs []ToolOutput
	// Overrun is true when the script was used up and the server answered
	// with OverrunText.
	Overrun bool
	// Body is the raw request body.
	Body json.RawMessage
}

// String summarises the request in one line for failure messages.
func (r Request) String() string {
	return fmt.Sprintf("request %d (%d outputs, %d hook prompts, overrun=%v): last user text %.200q",
		r.Index, len(r.Outputs), len(r.HookPrompts), r.Overrun, r.LastUserText)
}

// ToolOutput is one function_call_output or custom_tool_call_output item.
type ToolOutput struct {
	CallID string
	// Name is the name of the scripted call it answers ("" when the id was
	// not issued by this server).
	Name   string
	Output string
}
