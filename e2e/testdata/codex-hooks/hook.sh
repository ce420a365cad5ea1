#!/usr/bin/env bash
# A logging hook for Codex CLI capture runs: hook.sh EVENT appends the JSON
# Codex sent on stdin (one object per line) to $CODEX_HOOKLOG/EVENT.jsonl and
# the hook's environment facts to $CODEX_HOOKLOG/EVENT.env, then answers from
# files in the same folder, so a test chooses what the hook says:
#   EVENT.out       printed as the hook's stdout (any event)
#   EVENT.exit      the exit status (default 0); with 2, EVENT.stderr is the reason
#   EVENT.N.out, EVENT.N.exit, EVENT.N.stderr: the same for the event's Nth
#                   call only (from 1), in place of the files above
#   Stop: stop-blocks holds how many stops to block (decision "block"), counted
#         in stop-blocked; the reason names the block's number.
#   PreToolUse: deny-pattern is an extended regex; a matching input is denied.
set -eu
event="$1"
dir="${CODEX_HOOKLOG:?CODEX_HOOKLOG must name the log folder}"
mkdir -p "$dir"
input="$(cat)"
printf '%s' "$input" | tr -d '\n' >>"$dir/$event.jsonl"
echo >>"$dir/$event.jsonl"
{
	echo "PWD=$PWD"
	env | grep -E '^(CODEX|CLAUDE)[A-Z_]*=' | grep -v '^CODEX_HOOKLOG=' | sort || true
} >"$dir/$event.env"

# answer KIND names the file this call answers KIND (out, exit, stderr) from.
n="$(wc -l <"$dir/$event.jsonl")"
n="${n//[^0-9]/}"
answer() {
	if [[ -f "$dir/$event.$n.$1" ]]; then
		echo "$dir/$event.$n.$1"
	else
		echo "$dir/$event.$1"
	fi
}
if [[ -f "$(answer out)" ]]; then
	cat "$(answer out)"
fi
case "$event" in
Stop)
	want=0 done=0
	[[ -f "$dir/stop-blocks" ]] && want="$(cat "$dir/stop-blocks")"
	[[ -f "$dir/stop-blocked" ]] && done="$(cat "$dir/stop-blocked")"
	if ((done < want)); then
		echo $((done + 1)) >"$dir/stop-blocked"
		echo "{\"decision\":\"block\",\"reason\":\"FIXTURE-STOP $((done + 1)): keep going.\"}"
	fi
	;;
PreToolUse)
	if [[ -f "$dir/deny-pattern" ]] && printf '%s' "$input" | grep -Eq -f "$dir/deny-pattern"; then
		echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"FIXTURE-DENY: refused by the capture hook"}}'
	fi
	;;
esac
if [[ -f "$(answer exit)" ]]; then
	code="$(cat "$(answer exit)")"
	[[ -f "$(answer stderr)" ]] && cat "$(answer stderr)" >&2
	exit "$code"
fi
