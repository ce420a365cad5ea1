#!/usr/bin/env bash
# Logs the call, then refuses every Write with the documented deny JSON.
set -eu
input="$(cat)"
printf '%s' "$input" | "$(dirname "$0")/log.sh" PreToolUse
if printf '%s' "$input" | grep -Eq '"tool_name" *: *"Write"'; then
	echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"FIXTURE-DENY: writes are denied by the fixture plugin"}}'
fi
