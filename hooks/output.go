package hooks

import "github.com/plansmith/plansmith/loop"

// StopOutput is the Stop hook's answer. With Decision "block" the turn
// continues and Reason goes to the model; SystemMessage is shown to the user.
type StopOutput struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// SpecificOutput is the hookSpecificOutput object of PreToolUse,
// PostToolUse, UserPromptSubmit and SessionStart answers.
type SpecificOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// SpecificAnswer wraps a SpecificOutput, optionally with a user message.
type SpecificAnswer struct {
	HookSpecificOutput SpecificOutput `json:"hookSpecificOutput"`
	SystemMessage      string         `json:"systemMessage,omitempty"`
}

// The outcome → answer mappings: Claude Code's JSON for each loop outcome.
// A nil answer writes nothing.

func stopAnswer(o loop.StopOutcome) any {
	switch o.Kind {
	case loop.Block:
		return &StopOutput{Decision: "block", Reason: o.Reason, SystemMessage: o.Message}
	case loop.Pause, loop.Finish:
		return &StopOutput{SystemMessage: o.Message}
	}
	return nil
}

func toolAnswer(o loop.ToolOutcome) any {
	if !o.Deny {
		return nil
	}
	return &SpecificAnswer{HookSpecificOutput: SpecificOutput{
		HookEventName:            "PreToolUse",
		PermissionDecision:       "deny",
		PermissionDecisionReason: o.Reason,
	}}
}

// contextAnswer is the answer of event (UserPromptSubmit, SessionStart, or
// PostToolUse, which tells the agent and the user about a sub-agent's run
// or a plan file's edit whose gate record could not be written) when the
// loop has something to say: Context for the model, Message for the user.
func contextAnswer(event string, o loop.PromptOutcome) any {
	if o.Context == "" && o.Message == "" {
		return nil
	}
	return &SpecificAnswer{HookSpecificOutput: SpecificOutput{
		HookEventName:     event,
		AdditionalContext: o.Context,
	}, SystemMessage: o.Message}
}
