# explore: 2+ file path references, no plan headings.
# (Sourced by stop-hook.sh; re-implemented from the seed's description.)
FILES=$(printf '%s\n' "$OUTPUT" | grep -oE '[A-Za-z0-9_./-]+\.(go|ts|js|py|rs|java|rb|sh|md|json|yaml|yml|toml)' | sort -u | wc -l)
if has_plan_headings "$OUTPUT"; then
	block_with "explore [$((PHASE_INDEX + 1))/$TOTAL]: plan headings found. Explore first.

Request: $PROMPT"
fi
if [ "$FILES" -lt 2 ]; then
	block_with "explore [$((PHASE_INDEX + 1))/$TOTAL] did not pass its checks:
- file references: found $FILES, need 2

Request: $PROMPT"
fi
printf '\n<!-- PHASE_OUTPUT explore -->\n%s\n' "$OUTPUT" >>"$STATE_FILE"
advance_phase
block_with "explore passed. Now: $NEXT_PHASE [$((PHASE_INDEX + 2))/$TOTAL].

Request: $PROMPT"
