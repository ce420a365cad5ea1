#!/bin/bash
# The bash original's Stop hook (phase machine dispatcher), re-implemented
# from the seed's description for benchmarks: see bench/original/README.md.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib/common.sh"

INPUT=$(cat)
if [ ! -f "$STATE_FILE" ]; then
	exit 0
fi
FRONTMATTER=$(frontmatter "$STATE_FILE")
ACTIVE=$(fm_get active)
[ "$ACTIVE" = "true" ] || exit 0
PHASE=$(fm_get phase)
PHASE_INDEX=$(fm_get phase_index)
PHASES=$(fm_get phases)
MAX_PHASES=$(fm_get max_phases)
REQUIRED_SECTIONS=$(fm_get required_sections)
COMPLETION_PROMISE=$(fm_get completion_promise)
TOTAL=$(printf '%s\n' "$PHASES" | awk -F, '{ print NF }')
if [ "$MAX_PHASES" -gt 0 ] && [ "$PHASE_INDEX" -ge "$MAX_PHASES" ]; then
	exit 0
fi

# Hook input: last_assistant_message first, the transcript as a fallback.
OUTPUT=$(printf '%s' "$INPUT" | jq -r '.last_assistant_message // empty')
if [ -z "$OUTPUT" ]; then
	TRANSCRIPT=$(printf '%s' "$INPUT" | jq -r '.transcript_path // empty')
	if [ -n "$TRANSCRIPT" ] && [ -f "$TRANSCRIPT" ]; then
		OUTPUT=$(grep '"role":"assistant"' "$TRANSCRIPT" | tail -1 | jq -r '.message.content[] | select(.type == "text") | .text')
	fi
fi
PROMPT=$(sed -n '/^---$/,/^---$/!p' "$STATE_FILE" | sed -n '/^## Request/,/^## /p' | sed '1d;$d')

PHASE_FILE="$HERE/phases/$PHASE.sh"
if [ ! -f "$PHASE_FILE" ]; then
	block_with "plansmith: unknown phase $PHASE"
fi
source "$PHASE_FILE"
