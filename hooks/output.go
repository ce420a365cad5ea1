package hooks

// StopOutput is the Stop hook's answer. With Decision "block" the turn
// continues and Reason goes to the model; SystemMessage is shown to the user.
type StopOutput struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// SpecificOutput is the hookSpecificOutput object of PreToolUse and
// UserPromptSubmit answers.
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
