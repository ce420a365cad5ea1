#!/usr/bin/env bash
# Measures plansmith's targets and prints medians (make bench).
#   - hook calls as Claude Code makes them (sh -c on hooks.json's command),
#     interleaved with the floor (sh -c /bin/true) and the bash original
#     (bench/original), with medians and ratios from one run (bench/hookbench);
#   - a hook call as a whole process (start to exit) and in-process;
#   - the Stop hook on a 1 MiB assistant message;
#   - peak memory (max RSS) of the hook process (bench/peak.sh);
#   - what each linked package's initialisation costs every start (bench/inits.sh);
#   - the phase validators and the tool policy in-process.
# Results are saved under bench/out/ (ignored by git). COUNT=N sets the Go
# benchmarks' repetitions, ROUNDS=N the interleaved rounds, PLUGIN=DIR the plugin
# folder whose hooks.json is timed (make bench: dist/plansmith, copied as a plugin
# install copies it; run directly: this checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-7}
mkdir -p bench/out
out="bench/out/$(date -u +%Y%m%dT%H%M%SZ).txt"

# PLUGIN=dist/plansmith (after make dist) times the hooks as a plugin install runs them
# (hookbench copies a plugin tree first, as Claude Code's install does).
go run ./bench/hookbench -n "${ROUNDS:-101}" -plugin "${PLUGIN:-.}" | tee "$out"
echo
go test -run '^$' -bench 'Hook' -benchtime 30x -count "$count" ./cmd/plansmith | tee -a "$out"
go test -run '^$' -bench . -count "$count" ./phases ./hooks/policy ./gate | tee -a "$out"

echo
echo "Medians over $count runs ($out):"
awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	ns[name] = ns[name] " " $3
}
function median(list,   a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	for (name in ns) {
		m = median(ns[name])
		print sprintf("%-58s %10.3f ms", name, m / 1e6)
	}
}' "$out" | sort
echo
bash bench/peak.sh build/plansmith | tee -a "$out"
echo
bash bench/inits.sh build/plansmith | tee -a "$out"
