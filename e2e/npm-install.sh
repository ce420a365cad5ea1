# Sourced by the e2e installers: install pinned npm packages into the
# repository's ignored .cache/, the same way for every dependency.
#
#   exit 0  installed (or already was); OUT is the only line on stdout
#   exit 3  the npm registry is unreachable (tests skip on this status only)
#   exit 1  anything else
#
# Idempotent and safe to run concurrently: installs are serialised with flock
# and happen in a scratch folder renamed into place, so a reader never sees
# half a package.

# npm warns about unrelated user config on some machines; keep stderr for real errors.
npm_quiet() { npm "$@" 2> >(grep -v 'Unknown user config' >&2 || true); }

# install_pinned NAME DEST OUT CURRENT VERIFY NPM-ARGS...
#   NAME     the installer's name, for messages
#   DEST     the folder under .cache/ that holds the install
#   OUT      what to print on success
#   CURRENT  a command that succeeds when DEST already holds the pinned versions
#   VERIFY   a command run with the scratch folder; it fails when the install is unusable
install_pinned() {
	local name=$1 dest=$2 out=$3 current=$4 verify=$5
	shift 5
	if "$current"; then
		echo "$out"
		exit 0
	fi
	mkdir -p "$(dirname "$dest")"
	if command -v flock >/dev/null; then
		exec 9>"$dest.lock"
		flock 9
		# Look again: another run may have finished the job while we waited.
		if "$current"; then
			echo "$out"
			exit 0
		fi
	fi

	local pkgs=() a
	for a in "$@"; do [[ $a == -* ]] || pkgs+=("$a"); done
	command -v npm >/dev/null || { echo "$name: npm not found on PATH" >&2; exit 1; }
	# Fail fast when offline: no retries, short timeouts.
	local fetch=(--fetch-retries=0 --fetch-timeout=15000)
	if ! timeout 30 npm ping "${fetch[@]}" >/dev/null 2>&1; then
		echo "$name: npm registry $(npm config get registry 2>/dev/null || echo '?') unreachable; cannot install ${pkgs[*]}" >&2
		exit 3
	fi

	scratch="$(mktemp -d "$dest.tmp.XXXXXX")"
	trap 'rm -rf "$scratch"' EXIT
	echo "$name: installing ${pkgs[*]} into $dest" >&2
	npm_quiet install "${fetch[@]}" --prefix "$scratch" --no-audit --no-fund --no-save --loglevel=error "$@" >&2
	"$verify" "$scratch"

	# Swap into place (a stale or broken earlier install is replaced).
	rm -rf "$dest"
	mv -T "$scratch" "$dest"
	echo "$out"
}
