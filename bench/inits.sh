#!/usr/bin/env bash
# What the packages plansmith links cost before a hook does anything: the Go
# runtime's own account of each package's initialisation (GODEBUG=inittrace=1),
# over N starts of the hook binary outside any loop (so the hook itself does
# almost nothing), as medians. A package's init runs in every process that
# links it, whatever the command; the table says which libraries the hooks'
# start pays for. Usage: bench/inits.sh BINARY [N]
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-101}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for _ in $(seq "$n"); do
	echo '{}' | GOMAXPROCS=1 GODEBUG=inittrace=1 HOME="$work" "$bin" hook pretooluse 2>&1 >/dev/null | grep '^init ' || true
	echo '--'
done | python3 -c '
import collections, statistics, sys
runs, cur = [], collections.Counter()
for line in sys.stdin:
    if line.startswith("--"):
        runs.append(cur); cur = collections.Counter(); continue
    f = line.split()  # init PKG @T ms, C ms clock, B bytes, A allocs
    cur[f[1].replace("%2e", ".")] += float(f[4])
pkgs = set().union(*runs)
med = {p: statistics.median(r.get(p, 0.0) for r in runs) for p in pkgs}
total = statistics.median(sum(r.values()) for r in runs)
print(f"package initialisation, GODEBUG=inittrace=1, median of {len(runs)} starts: {total:.3f} ms in {len(pkgs)} packages")
for p in sorted(pkgs, key=lambda p: -med[p])[:12]:
    print(f"  {med[p]:6.3f} ms  {p}")
'
