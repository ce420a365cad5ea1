#!/usr/bin/env bash
# Installs what the hook-output contract test needs, pinned, into the
# repository's ignored cache: the Agent SDK's type definitions released with
# one Claude Code CLI, and the TypeScript compiler, into
# .cache/hook-types-<sdk version>/. Prints that folder (it holds
# node_modules/.bin/tsc).
#
# CLAUDE_CODE_VERSION picks the CLI (default: the pinned one in
# claude-code-versions); the SDK is 0.3.<patch> for CLI 2.1.<patch>
# (AGENT_SDK_VERSION overrides), and the install fails unless that SDK's
# claudeCodeVersion is the CLI's.
# Exit statuses: see npm-install.sh (3 = npm registry unreachable).
#
# Only the type definitions matter, so optional (native binary) and peer
# packages are left out: the SDK's declaration file is checked with
# skipLibCheck, and the hook output types need nothing from its imports.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=claude-code-versions
source "$here/claude-code-versions"
cli="${CLAUDE_CODE_VERSION:-$CLAUDE_CODE_PINNED}"
sdk_version="${AGENT_SDK_VERSION:-0.3.${cli##*.}}"
sdk="@anthropic-ai/claude-agent-sdk@$sdk_version"
ts="typescript@${TYPESCRIPT_VERSION:-5.9.3}"
dest="$(cd "$here/.." && pwd)/.cache/hook-types-$sdk_version"
stamp="$dest/installed"
# shellcheck source=npm-install.sh
source "$here/npm-install.sh"

current() { [[ -f "$stamp" && "$(cat "$stamp")" == "$sdk $ts" ]]; }

verify() {
	local scratch=$1
	local dir="$scratch/node_modules/@anthropic-ai/claude-agent-sdk"
	[[ -f "$dir/sdk.d.ts" ]] || {
		echo "install-hook-types: $sdk has no sdk.d.ts" >&2
		exit 1
	}
	local for_cli
	for_cli="$(node -p "require('$dir/package.json').claudeCodeVersion" 2>/dev/null || true)"
	if [[ "$for_cli" != "$cli" ]]; then
		echo "install-hook-types: $sdk was released with Claude Code '$for_cli', want $cli (set AGENT_SDK_VERSION)" >&2
		exit 1
	fi
	"$scratch/node_modules/.bin/tsc" --version >/dev/null
	echo "$sdk $ts" >"$scratch/installed"
}

install_pinned install-hook-types "$dest" "$dest" current verify --omit=optional --legacy-peer-deps "$sdk" "$ts"
