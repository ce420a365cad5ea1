#!/usr/bin/env bash
# Appends this hook call's stdin (one JSON object per line) to
# .hooklog/<event>.jsonl in the project, and the hook's environment facts to
# .hooklog/<event>.env, then echoes nothing (the call changes nothing).
set -eu
event="$1"
dir="${CLAUDE_PROJECT_DIR:-$PWD}/.hooklog"
mkdir -p "$dir"
input="$(cat)"
printf '%s\n' "$input" | tr -d '\n' >>"$dir/$event.jsonl"
echo >>"$dir/$event.jsonl"
{
	echo "CLAUDE_PLUGIN_ROOT=${CLAUDE_PLUGIN_ROOT-<unset>}"
	echo "CLAUDE_PROJECT_DIR=${CLAUDE_PROJECT_DIR-<unset>}"
	echo "PWD=$PWD"
} >"$dir/$event.env"
if [[ "$event" == UserPromptSubmit ]]; then
	echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"FIXTURE-CONTEXT: the fixture hook added this."}}'
fi
