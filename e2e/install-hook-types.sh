#!/usr/bin/env bash
# Installs what the hook-output contract test needs, pinned, into the
# repository's ignored cache: the Agent SDK's type definitions (the version
# released with Claude Code 2.1.197) and the TypeScript compiler. Prints the
# install folder (it holds node_modules/.bin/tsc).
# Exit statuses: see npm-install.sh (3 = npm registry unreachable).
#
# Only the type definitions matter, so optional (native binary) and peer
# packages are left out: the SDK's declaration file is checked with
# skipLibCheck, and the hook output types need nothing from its imports.
set -euo pipefail

sdk="@anthropic-ai/claude-agent-sdk@${AGENT_SDK_VERSION:-0.3.197}"
ts="typescript@${TYPESCRIPT_VERSION:-5.9.3}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$(cd "$here/.." && pwd)/.cache/hook-types"
stamp="$dest/installed"
# shellcheck source=npm-install.sh
source "$here/npm-install.sh"

current() { [[ -f "$stamp" && "$(cat "$stamp")" == "$sdk $ts" ]]; }

verify() {
	local scratch=$1
	[[ -f "$scratch/node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts" ]] || {
		echo "install-hook-types: $sdk has no sdk.d.ts" >&2
		exit 1
	}
	"$scratch/node_modules/.bin/tsc" --version >/dev/null
	echo "$sdk $ts" >"$scratch/installed"
}

install_pinned install-hook-types "$dest" "$dest" current verify --omit=optional --legacy-peer-deps "$sdk" "$ts"
