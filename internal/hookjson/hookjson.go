// Package hookjson decodes the JSON objects coding agents write to a hook's
// stdin, leniently, for every adapter (hooks/ for Claude Code, hooks/codex):
// unknown fields are ignored and a field of an unexpected type is left zero
// and named, so one odd field never makes a hook drop a call it must judge.
package hookjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
)

// MaxInput bounds what a hook reads from stdin: a 1 MiB assistant message is
// the design's largest case, so 64 MiB is generous without being unbounded.
const MaxInput = 64 << 20

// Read reads one hook input from r, at most MaxInput bytes and one more
// (so that Fields can tell the input was too large).
func Read(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return data, fmt.Errorf("reading hook input: %w", err)
	}
	return data, nil
}

// Fields decodes the object in data into fields, one destination pointer
// per key. A key that is absent leaves its destination alone; a key whose
// value does not fit its destination leaves it zero and is returned in
// unreadable (sorted). Only data that is not a JSON object (nothing at all,
// or more than MaxInput bytes) is an error.
func Fields(data []byte, fields map[string]any) (unreadable []string, err error) {
	switch {
	case len(data) > MaxInput:
		return nil, errors.New("hook input is larger than 64 MiB")
	case len(data) == 0:
		return nil, errors.New("hook input is empty (expected a JSON object on stdin)")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, inputError(err)
	}
	if raw == nil {
		return nil, errors.New("hook input is not a JSON object (it is null)")
	}
	for key, dst := range fields {
		v, ok := raw[key]
		if !ok {
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			unreadable = append(unreadable, key)
		}
	}
	sort.Strings(unreadable)
	return unreadable, nil
}

// ToolFields are the input fields a tool call cannot be judged without:
// which tool, its input, and whose project and session it belongs to.
var ToolFields = []string{"tool_name", "tool_input", "session_id", "cwd"}

// Unjudgeable says why a decoded tool-call input cannot be judged, given the
// fields that were unreadable and the tool's name: a field the judgement
// needs has the wrong type, or no tool is named. It also returns the tool
// name worth trusting ("" when tool_name was unreadable). Other fields of the
// wrong type are ignored.
func Unjudgeable(unreadable []string, tool string) (string, error) {
	if slices.Contains(unreadable, "tool_name") {
		tool = ""
	}
	for _, f := range ToolFields {
		if slices.Contains(unreadable, f) {
			return tool, fmt.Errorf("hook input field %s has an unexpected type", f)
		}
	}
	if tool == "" {
		return tool, errors.New("hook input names no tool (tool_name is missing or empty)")
	}
	return tool, nil
}

// inputError words a decoding failure for people: what was wrong with the
// input, not Go's names for the types it was decoded into. It keeps err
// for errors.Is/As.
func inputError(err error) error {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ):
		return &wordedError{fmt.Sprintf("hook input is not a JSON object (it is %s)", article(typ.Value)), err}
	case errors.As(err, &syn):
		return &wordedError{fmt.Sprintf("hook input is not a JSON object (invalid JSON at byte %d)", syn.Offset), err}
	}
	return &wordedError{"hook input is not a JSON object (the JSON ends too early)", err}
}

func article(jsonKind string) string {
	switch jsonKind {
	case "array", "object":
		return "an " + jsonKind
	case "":
		return "something else"
	}
	return "a " + jsonKind
}

// wordedError is an error with a message for people, wrapping the cause.
type wordedError struct {
	msg   string
	cause error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.cause }
