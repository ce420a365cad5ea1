# understand: 3+ numbered items, 2+ understanding keywords, no plan headings.
# (Sourced by stop-hook.sh; re-implemented from the seed's description.)
ITEMS=$(printf '%s\n' "$OUTPUT" | grep -cE '^[[:space:]]*[0-9]+[.)]' || true)
KEYWORDS=$(printf '%s\n' "$OUTPUT" | grep -ciE 'problem|constraint|success criteria|assumption|requirement|문제|제약|성공 기준|가정|요구' || true)
if has_plan_headings "$OUTPUT"; then
	block_with "understand [$((PHASE_INDEX + 1))/$TOTAL]: plan headings found. Understand the problem first; do not write the plan yet.

Request: $PROMPT"
fi
MISSING=""
if [ "$ITEMS" -lt 3 ]; then
	MISSING="$MISSING
- numbered items: found $ITEMS, need 3"
fi
if [ "$KEYWORDS" -lt 2 ]; then
	MISSING="$MISSING
- analysis keywords: found $KEYWORDS, need 2"
fi
if [ -n "$MISSING" ]; then
	block_with "understand [$((PHASE_INDEX + 1))/$TOTAL] did not pass its checks:$MISSING

Request: $PROMPT"
fi
printf '\n<!-- PHASE_OUTPUT understand -->\n%s\n' "$OUTPUT" >>"$STATE_FILE"
advance_phase
block_with "understand passed. Now: $NEXT_PHASE [$((PHASE_INDEX + 2))/$TOTAL]. Read the codebase and list what you find, with file paths.

Request: $PROMPT"
