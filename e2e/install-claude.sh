#!/usr/bin/env bash
# Installs one Claude Code CLI the end-to-end tests drive, pinned, into the
# repository's ignored cache (.cache/claude-code-<version>/, so versions sit
# side by side), and prints the path of its `claude` executable.
# CLAUDE_CODE_VERSION picks the version (default: the pinned one in
# claude-code-versions).
# Exit statuses: see npm-install.sh (3 = npm registry unreachable).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=claude-code-versions
source "$here/claude-code-versions"
version="${CLAUDE_CODE_VERSION:-$CLAUDE_CODE_PINNED}"
pkg="@anthropic-ai/claude-code"
dest="$(cd "$here/.." && pwd)/.cache/claude-code-$version"
bin="$dest/node_modules/.bin/claude"
# shellcheck source=npm-install.sh
source "$here/npm-install.sh"

version_of() { timeout 30 "$1" --version 2>/dev/null | awk '{print $1; exit}'; }

current() { [[ -x "$bin" && "$(version_of "$bin" || true)" == "$version" ]]; }

verify() {
	local scratch=$1
	# The package ships a placeholder that its postinstall replaces with the
	# native binary; if the npm in use skipped install scripts, run it ourselves.
	if ! "$scratch/node_modules/.bin/claude" --version >/dev/null 2>&1; then
		(cd "$scratch/node_modules/$pkg" && node install.cjs) >&2
	fi
	local got
	got="$(version_of "$scratch/node_modules/.bin/claude" || true)"
	if [[ "$got" != "$version" ]]; then
		echo "install-claude: installed binary reports version '$got', want $version" >&2
		exit 1
	fi
}

install_pinned install-claude "$dest" "$bin" current verify "$pkg@$version"
