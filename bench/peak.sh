#!/usr/bin/env bash
# Peak memory (max RSS) of single plansmith hook calls on the real binary,
# measured by GNU time (a small parent, so nothing of it counts).
# Usage: bench/peak.sh BINARY
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
# GNU time's -f; BSD time (macOS) has no such option.
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
	echo "peak memory: GNU time (/usr/bin/time -f) is not installed; skipped"
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CLAUDE_CODE_SESSION_ID=s1

# inputs: a 1 MiB+ plan built from the demo's final revise.
python3 - "$here/../demo/session/08-final.md" "$work" <<'PY'
import json, sys
base = open(sys.argv[1]).read()
steps = "".join(f"{i}. Edit `internal/limit/bucket{i}.go`; verify with `go test ./internal/limit`.\n" for i in range(14000))
big = base.replace("## Verification", steps + "\n## Verification")
for name, msg in (("small", "hello"), ("big", big)):
    json.dump({"session_id": "s1", "last_assistant_message": msg}, open(f"{sys.argv[2]}/{name}.json", "w"))
json.dump({"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "grep -rn TODO src | sort | head -20"}},
          open(f"{sys.argv[2]}/bash.json", "w"))
print(f"(the large answer is {len(big) >> 10} KiB)")
PY

measure() { # name, input, event, plan args...
	local name=$1 input=$2 event=$3
	shift 3
	local project
	project=$(mktemp -d "$work/p.XXXX")
	if [ $# -gt 0 ]; then (cd "$project" && CLAUDE_PROJECT_DIR=$project "$bin" plan "$@" >/dev/null); fi
	# BODY_MIB=N: N MiB of recorded answers in the state's body.
	if [ -n "${BODY_MIB:-}" ]; then
		python3 -c 'import sys; line = b"The token bucket in internal/limit/bucket.go keeps one counter per key.\n"; sys.stdout.buffer.write(line * ((int(sys.argv[1]) << 20) // len(line)))' \
			"$BODY_MIB" >>"$project/.claude/plansmith.local.md"
	fi
	local kib
	kib=$(cd "$project" && CLAUDE_PROJECT_DIR=$project /usr/bin/time -f %M "$bin" hook "$event" <"$work/$input" 2>&1 >/dev/null | tail -1)
	awk -v n="$name" -v k="$kib" 'BEGIN { printf "peak memory  %-44s %6.1f MiB\n", n, k / 1024 }'
}
measure "stop, no loop" small.json stop
measure "pretooluse, bash pipeline in a loop" bash.json pretooluse --no-gate x
BODY_MIB=50 measure "pretooluse in a loop, 50 MiB state body" bash.json pretooluse --no-gate x
measure "stop, 1 MiB draft" big.json stop --no-gate --phases draft,revise x
measure "stop, 1 MiB final revise, gate begins" big.json stop --phases revise x
