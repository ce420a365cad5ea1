#!/usr/bin/env bash
# Logs the call; blocks the first stop in a project (creating a marker), so
# the model gets one more turn, then lets every later stop happen.
# .hooklog/stop-blocks, when present, holds how many stops to block instead.
set -eu
input="$(cat)"
printf '%s' "$input" | "$(dirname "$0")/log.sh" Stop
dir="${CLAUDE_PROJECT_DIR:-$PWD}/.hooklog"
want=1
[[ -f "$dir/stop-blocks" ]] && want="$(cat "$dir/stop-blocks")"
done=0
[[ -f "$dir/stop-blocked" ]] && done="$(cat "$dir/stop-blocked")"
if ((done < want)); then
	echo $((done + 1)) >"$dir/stop-blocked"
	echo "{\"decision\":\"block\",\"reason\":\"FIXTURE-STOP $((done + 1)): explore the project before stopping.\",\"systemMessage\":\"fixture blocked a stop\"}"
fi
