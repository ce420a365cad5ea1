#!/bin/bash
# The bash original's PreToolUse hook (tool blocking), re-implemented from
# the seed's description for benchmarks: see bench/original/README.md.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib/common.sh"

INPUT=$(cat)
if [ ! -f "$STATE_FILE" ]; then
	exit 0
fi
FRONTMATTER=$(frontmatter "$STATE_FILE")
[ "$(fm_get active)" = "true" ] || exit 0
[ "$(fm_get block_tools)" = "true" ] || exit 0

TOOL=$(printf '%s' "$INPUT" | jq -r '.tool_name // empty')

deny() {
	jq -n --arg reason "$1" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: $reason}}'
	exit 0
}

case "$TOOL" in
Edit | Write | NotebookEdit | MultiEdit)
	deny "plansmith: $TOOL is blocked while planning (the session is read-only)."
	;;
Bash)
	CMD=$(printf '%s' "$INPUT" | jq -r '.tool_input.command // empty')
	# The plugin's own scripts are exempt.
	case "$CMD" in
	*"${CLAUDE_PLUGIN_ROOT:-/nonexistent}/scripts/"*) exit 0 ;;
	esac
	if printf '%s' "$CMD" | grep -qE '[|;&<>`]|\$\('; then
		deny "plansmith: pipes, lists, redirects and substitutions are blocked while planning."
	fi
	FIRST=$(printf '%s' "$CMD" | awk '{ print $1 }')
	SECOND=$(printf '%s' "$CMD" | awk '{ print $2 }')
	case "$FIRST" in
	ls | cat | head | tail | grep | rg | find | wc | file | stat | tree | pwd | echo | which | du | df | diff | sort | uniq | jq) exit 0 ;;
	git)
		case "$SECOND" in
		status | log | diff | show | branch | remote | tag | blame | ls-files) exit 0 ;;
		esac
		;;
	esac
	deny "plansmith: \`$FIRST\` is not on the read-only allow-list while planning."
	;;
*)
	exit 0
	;;
esac
