package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The gate's sub-agents, as Claude Code 2.1.330 reports them to the hooks:
// the Agent tool's PreToolUse and PostToolUse (the prompt, the model asked
// for, the agent id and the model it resolved to; a foreground run's output)
// and each sub-agent's SubagentStop (its final text). The critic runs in the
// background, as that client does by default, the validator in the
// foreground. The agent copies neither output: plansmith reads them itself.

// task is one entry of a Stop input's background_tasks.
type task struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Status      string `json:"status"`
	Description string `json:"description"`
	AgentType   string `json:"agent_type"`
}

// A sub-agent the demo runs: what Claude Code would report of it.
type subagent struct {
	role, agentID, model, resolved string
	output                         string
}

func (d *demo) gate() {
	outputs := d.sessionText("09-gate.md")
	critic := subagent{role: "critic", agentID: "a3c91e07d52b84f16", model: "opus", resolved: "claude-opus-5-5",
		output: between(outputs, "critic-output")}
	validator := subagent{role: "validator", agentID: "a7d20b5e9c14f3a82", model: "haiku", resolved: "claude-haiku-5-5",
		output: between(outputs, "validator-output")}
	criticPrompt := d.gateFile("critic-prompt.md")
	validatorPrompt := d.gateFile("validator-prompt.md") + "\n\n" + critic.output

	say("\n▶ The agent runs the critic in the background (Agent, model %s; the prompt is critic-prompt.md's content).", critic.model)
	in := critic.input(criticPrompt, true)
	d.preToolUse("Agent", in)
	d.postAgent(in, map[string]any{
		"isAsync": true, "status": "async_launched", "agentId": critic.agentID, "description": critic.role,
		"resolvedModel": critic.resolved, "prompt": criticPrompt, "canReadOutputFile": true,
	})
	say("  Claude Code reports the launch (PostToolUse: agent %s, resolved model %s);", critic.agentID, critic.resolved)
	say("  plansmith recognises the critic by its prompt and records the run.")

	say("\n▶ The agent ends its turn to wait for the critic (the Stop lists it in background_tasks).")
	d.stop("The critic is running in the background; I will go on when it finishes.", []task{{
		ID: critic.agentID, Type: "subagent", Status: "running", Description: critic.role, AgentType: "general-purpose"}})

	say("\n▶ The critic finishes (SubagentStop, agent %s, %d lines); Claude Code wakes the agent.", critic.agentID, lines(critic.output))
	d.subagentStop(critic)
	say("  plansmith records the critic's output and its hash.")

	say("\n▶ The agent runs the validator in the foreground (Agent, model %s; the prompt is validator-prompt.md's content, then the critic's output).", validator.model)
	in = validator.input(validatorPrompt, false)
	d.preToolUse("Agent", in)
	d.subagentStop(validator)
	d.postAgent(in, map[string]any{
		"status": "completed", "agentId": validator.agentID, "agentType": "general-purpose", "prompt": validatorPrompt,
		"content": []map[string]any{{"type": "text", "text": validator.output}}, "resolvedModel": validator.resolved,
	})
	say("  Claude Code reports the run and its output (SubagentStop, then PostToolUse: agent %s, resolved model %s);", validator.agentID, validator.resolved)
	say("  plansmith records it, and that it was given the critic's output.")

	say("\n▶ Both have finished: the agent ends its turn without copying either output.")
	d.stop("Both sub-agents have finished.", nil)
}

// input is the Agent tool's input for a run of s.
func (s subagent) input(prompt string, background bool) map[string]any {
	return map[string]any{"description": s.role, "prompt": prompt, "subagent_type": "general-purpose",
		"model": s.model, "run_in_background": background}
}

// postAgent sends the Agent tool's PostToolUse; plansmith never answers it.
func (d *demo) postAgent(input, response map[string]any) {
	d.quiet("posttooluse", map[string]any{
		"session_id": sessionID, "cwd": d.project, "hook_event_name": "PostToolUse", "permission_mode": "default",
		"tool_name": "Agent", "tool_input": input, "tool_response": response, "tool_use_id": "toolu_demo",
	})
}

// subagentStop sends a sub-agent's SubagentStop; plansmith never answers it.
func (d *demo) subagentStop(s subagent) {
	d.quiet("subagentstop", map[string]any{
		"session_id": sessionID, "cwd": d.project, "hook_event_name": "SubagentStop", "permission_mode": "default",
		"agent_id": s.agentID, "agent_type": "general-purpose", "stop_hook_active": false,
		"agent_transcript_path":  filepath.Join(d.project, "subagents", "agent-"+s.agentID+".jsonl"),
		"last_assistant_message": s.output, "background_tasks": []task{},
	})
}

// quiet sends a hook call that records and never answers; an answer would
// be a change worth seeing, so the demo stops on one.
func (d *demo) quiet(event string, in map[string]any) {
	if out := d.hook(event, in); out != "" {
		fail(fmt.Errorf("the %s hook answered %q", event, out))
	}
}

// gateFile reads one of the prompt files the gate wrote for this assessment.
func (d *demo) gateFile(name string) string {
	b, err := os.ReadFile(filepath.Join(d.project, ".claude", "plansmith", "gate", name))
	if err != nil {
		fail(err)
	}
	return string(b)
}

func (d *demo) sessionText(file string) string {
	b, err := session.ReadFile("session/" + file)
	if err != nil {
		fail(err)
	}
	return strings.TrimRight(string(b), "\n")
}

// between returns what the session file holds inside <tag>…</tag>: what the
// sub-agent produced (09-gate.md is also the reply an older client relays).
func between(s, tag string) string {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	inner, _, closed := strings.Cut(after, "</"+tag+">")
	if !ok || !closed {
		fail(fmt.Errorf("session/09-gate.md has no <%s> part", tag))
	}
	return strings.TrimSpace(inner)
}

func lines(s string) int { return strings.Count(s, "\n") + 1 }
