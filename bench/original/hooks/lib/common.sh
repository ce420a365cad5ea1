# Shared helpers of the bash original (re-implemented from the seed's
# description for benchmarks; see bench/original/README.md).

STATE_FILE=".claude/plansmith.local.md"

# frontmatter prints the YAML between the first two --- lines.
frontmatter() {
	sed -n '/^---$/,/^---$/{ /^---$/d; p; }' "$1"
}

# fm_get KEY prints one frontmatter value, quotes stripped.
fm_get() {
	printf '%s\n' "$FRONTMATTER" | grep "^$1:" | sed "s/^$1: *//; s/^\"\(.*\)\"\$/\1/" || true
}

# sed_inplace EXPR FILE: portable in-place edit (temp file + mv, not sed -i).
sed_inplace() {
	local tmp
	tmp="$2.tmp.$$"
	sed "$1" "$2" >"$tmp" && mv "$tmp" "$2"
}

# block_with REASON: the Stop hook's block decision.
block_with() {
	jq -n --arg reason "$1" '{decision: "block", reason: $reason}'
	exit 0
}

# advance_phase: move to the next phase in the sequence.
advance_phase() {
	local next_index next_phase
	next_index=$((PHASE_INDEX + 1))
	next_phase=$(printf '%s\n' "$PHASES" | awk -F, -v i="$next_index" '{ print $(i + 1) }')
	sed_inplace "s/^phase: .*/phase: $next_phase/; s/^phase_index: .*/phase_index: $next_index/" "$STATE_FILE"
	NEXT_PHASE=$next_phase
}

# get_section_pattern NAME: the heading pattern of a section, English or Korean.
get_section_pattern() {
	case "$1" in
	Goal) echo '^#+ *(Goal|목표)' ;;
	Scope) echo '^#+ *(Scope|범위)' ;;
	Non-Scope) echo '^#+ *(Non-Scope|비범위)' ;;
	Steps) echo '^#+ *(Steps|단계별 계획)' ;;
	Verification) echo '^#+ *(Verification|검증)' ;;
	Risks) echo '^#+ *(Risks|리스크)' ;;
	"Open Questions") echo '^#+ *(Open Questions|오픈 질문)' ;;
	*) echo "^#+ *$1" ;;
	esac
}

# has_plan_headings TEXT: negative validation for the early phases.
has_plan_headings() {
	local s n=0
	local IFS=,
	for s in $REQUIRED_SECTIONS; do
		if printf '%s\n' "$1" | grep -qE "$(get_section_pattern "$s")"; then
			n=$((n + 1))
		fi
	done
	[ "$n" -ge 2 ]
}
