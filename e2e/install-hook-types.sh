#!/usr/bin/env bash
# Installs what the hook-output contract test needs, pinned, into the
# repository's ignored cache: the Agent SDK's type definitions (the version
# released with Claude Code 2.1.197) and the TypeScript compiler. Prints the
# install folder (it holds node_modules/.bin/tsc).
#
#   exit 0  installed (or already was); the folder is the only line on stdout
#   exit 3  the npm registry is unreachable (tests skip on this status only)
#   exit 1  anything else
#
# Only the type definitions matter, so optional (native binary) and peer
# packages are left out: the SDK's declaration file is checked with
# skipLibCheck, and the hook output types need nothing from its imports.
set -euo pipefail

sdk="@anthropic-ai/claude-agent-sdk@${AGENT_SDK_VERSION:-0.3.197}"
ts="typescript@${TYPESCRIPT_VERSION:-5.9.3}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.cache/hook-types"
stamp="$dest/installed"

npm_quiet() { npm "$@" 2> >(grep -v 'Unknown user config' >&2 || true); }

if [[ -f "$stamp" && "$(cat "$stamp")" == "$sdk $ts" ]]; then
	echo "$dest"
	exit 0
fi

mkdir -p "$root/.cache"
if command -v flock >/dev/null; then
	exec 9>"$root/.cache/hook-types.lock"
	flock 9
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$sdk $ts" ]]; then
		echo "$dest"
		exit 0
	fi
fi

command -v npm >/dev/null || { echo "install-hook-types: npm not found on PATH" >&2; exit 1; }
fetch=(--fetch-retries=0 --fetch-timeout=15000)
if ! timeout 30 npm ping "${fetch[@]}" >/dev/null 2>&1; then
	registry="$(npm config get registry 2>/dev/null || echo '?')"
	echo "install-hook-types: npm registry $registry unreachable; cannot install $sdk $ts" >&2
	exit 3
fi

scratch="$(mktemp -d "$root/.cache/hook-types.tmp.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
echo "install-hook-types: installing $sdk $ts into $dest" >&2
npm_quiet install "${fetch[@]}" --prefix "$scratch" --no-audit --no-fund --no-save --loglevel=error \
	--omit=optional --legacy-peer-deps "$sdk" "$ts" >&2
[[ -f "$scratch/node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts" ]] || {
	echo "install-hook-types: $sdk has no sdk.d.ts" >&2
	exit 1
}
"$scratch/node_modules/.bin/tsc" --version >/dev/null
echo "$sdk $ts" >"$scratch/installed"

rm -rf "$dest"
mv -T "$scratch" "$dest"
echo "$dest"
