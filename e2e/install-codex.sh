#!/usr/bin/env bash
# Installs the Codex CLI the Codex end-to-end tests drive, pinned, into the
# repository's ignored cache, and prints the path of the `codex` executable.
# The npm package is a small Node launcher; the native binary comes in a
# platform package (an optional dependency aliased to @openai/codex@V-<platform>).
# Exit statuses: see npm-install.sh (3 = npm registry unreachable).
set -euo pipefail

version="${CODEX_VERSION:-0.169.0}"
pkg="@openai/codex"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$(cd "$here/.." && pwd)/.cache/codex-$version"
bin="$dest/node_modules/.bin/codex"
# shellcheck source=npm-install.sh
source "$here/npm-install.sh"

# `codex --version` prints "codex-cli 0.169.0".
version_of() { timeout 30 "$1" --version 2>/dev/null | awk '{print $NF; exit}'; }

current() { [[ -x "$bin" && "$(version_of "$bin" || true)" == "$version" ]]; }

verify() {
	local scratch=$1 got
	got="$(version_of "$scratch/node_modules/.bin/codex" || true)"
	if [[ "$got" != "$version" ]]; then
		echo "install-codex: installed binary reports version '$got', want $version (was the platform package skipped?)" >&2
		exit 1
	fi
}

install_pinned install-codex "$dest" "$bin" current verify "$pkg@$version"
