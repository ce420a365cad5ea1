#!/usr/bin/env bash
# Installs the Claude Code CLI the end-to-end tests drive, pinned, into the
# repository's ignored cache, and prints the path of the `claude` executable.
#
#   exit 0  installed (or already was); the path is the only line on stdout
#   exit 3  the npm registry is unreachable (tests skip on this status only)
#   exit 1  anything else (npm failed, the binary does not run, ...)
#
# Idempotent and safe to run concurrently: installs are serialised with flock
# and happen in a scratch folder renamed into place, so a reader never sees
# half a package.
set -euo pipefail

version="${CLAUDE_CODE_VERSION:-2.1.197}"
pkg="@anthropic-ai/claude-code"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.cache/claude-code"
bin="$dest/node_modules/.bin/claude"

# npm warns about unrelated user config on some machines; keep stderr for real errors.
npm_quiet() { npm "$@" 2> >(grep -v 'Unknown user config' >&2 || true); }

installed_version() {
	[[ -x "$bin" ]] || return 1
	timeout 30 "$bin" --version 2>/dev/null | awk '{print $1; exit}'
}

if [[ "$(installed_version || true)" == "$version" ]]; then
	echo "$bin"
	exit 0
fi

# Serialise concurrent installs (two test packages may ask at once), then
# look again: the other run may have finished the job.
mkdir -p "$root/.cache"
if command -v flock >/dev/null; then
	exec 9>"$root/.cache/claude-code.lock"
	flock 9
	if [[ "$(installed_version || true)" == "$version" ]]; then
		echo "$bin"
		exit 0
	fi
fi

command -v npm >/dev/null || { echo "install-claude: npm not found on PATH" >&2; exit 1; }

# Fail fast when offline: no retries, short timeouts.
fetch=(--fetch-retries=0 --fetch-timeout=15000)
if ! timeout 30 npm ping "${fetch[@]}" >/dev/null 2>&1; then
	registry="$(npm config get registry 2>/dev/null || echo '?')"
	echo "install-claude: npm registry $registry unreachable; cannot install $pkg@$version" >&2
	exit 3
fi

scratch="$(mktemp -d "$root/.cache/claude-code.tmp.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

echo "install-claude: installing $pkg@$version into $dest" >&2
npm_quiet install "${fetch[@]}" --prefix "$scratch" --no-audit --no-fund --no-save --loglevel=error \
	"$pkg@$version" >&2

# The package ships a placeholder that its postinstall replaces with the
# native binary; if the npm in use skipped install scripts, run it ourselves.
if ! "$scratch/node_modules/.bin/claude" --version >/dev/null 2>&1; then
	(cd "$scratch/node_modules/$pkg" && node install.cjs) >&2
fi
got="$("$scratch/node_modules/.bin/claude" --version 2>/dev/null | awk '{print $1; exit}')"
if [[ "$got" != "$version" ]]; then
	echo "install-claude: installed binary reports version '$got', want $version" >&2
	exit 1
fi

# Swap into place (a stale or broken earlier install is replaced).
rm -rf "$dest"
mv -T "$scratch" "$dest"
echo "$bin"
