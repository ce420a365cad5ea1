package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// quantile returns the q-quantile of ds (nearest rank; ds is not changed).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s)-1) + 0.5)
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// comparisons are the ratios the design's targets are stated in.
var comparisons = []struct{ label, num, den string }{
	{"original / plugin, pretooluse with a loop", "original pretooluse loop", "plugin pretooluse loop"},
	{"original / plugin, stop with a loop", "original stop loop", "plugin stop loop"},
	{"original / plugin, pretooluse no loop", "original pretooluse no-loop", "plugin pretooluse no-loop"},
	{"50 MiB state / small state, pretooluse", "plugin pretooluse loop 50MiB-state", "plugin pretooluse loop"},
	{"a 300 KiB zsh snapshot / none, pretooluse", "plugin pretooluse loop zsh-snapshot", "plugin pretooluse loop"},
	{"10,000 / 10 plan files, ExitPlanMode", "plugin pretooluse ExitPlanMode 10000-plans", "plugin pretooluse ExitPlanMode 10-plans"},
	{"plugin / minimal Go program, pretooluse with a loop", "plugin pretooluse loop", "minimal Go program"},
	{"plugin / minimal Go program, stop with a loop", "plugin stop loop", "minimal Go program"},
	// What plansmith adds to its libraries' start (compare with the rows
	// above: the rest is the libraries' initialisation).
	{"plugin / libraries only, pretooluse with a loop", "plugin pretooluse loop", librariesOnly},
	{"plugin / libraries only, stop with a loop", "plugin stop loop", librariesOnly},
	{"libraries only / minimal Go program", librariesOnly, "minimal Go program"},
	{"plugin / binary, pretooluse no loop", "plugin pretooluse no-loop", "binary pretooluse no-loop"},
	{"plugin / binary, stop with a loop", "plugin stop loop", "binary stop loop"},
	// The most any hook that starts a Go program can gain on the original:
	// a program that does nothing at all. When this is under the 25x target,
	// no Go hook can meet it on this machine in this run.
	{"original / minimal Go program, pretooluse with a loop", "original pretooluse loop", "minimal Go program"},
	{"original / minimal Go program, stop with a loop", "original stop loop", "minimal Go program"},
}

func report(w io.Writer, vs []*variant, rounds int, plugin string, commands map[string]string) {
	med := map[string]time.Duration{}
	for _, v := range vs {
		med[v.name] = quantile(v.times, 0.5)
	}
	floor := med["floor"]
	fmt.Fprintf(w, "hookbench: %d interleaved rounds; each call is sh -c COMMAND, start to exit\n", rounds)
	fmt.Fprintf(w, "plugin = the command in hooks/hooks.json of %s, e.g. PreToolUse: %s\n", plugin, commands["PreToolUse"])
	fmt.Fprintf(w, "binary = GOMAXPROCS=1 exec build/plansmith hook EVENT, no look for a loop first; original = bench/original (bash, jq, sed, grep)\n\n")
	fmt.Fprintf(w, "%-46s %9s %9s %9s %8s\n", "variant", "median", "p10", "p90", "x floor")
	for _, v := range vs {
		fmt.Fprintf(w, "%-46s %7.2fms %7.2fms %7.2fms %7.2fx\n", v.name, ms(med[v.name]),
			ms(quantile(v.times, 0.1)), ms(quantile(v.times, 0.9)), float64(med[v.name])/float64(floor))
	}
	fmt.Fprintln(w)
	for _, c := range comparisons {
		n, okn := med[c.num]
		d, okd := med[c.den]
		if !okn || !okd || d == 0 {
			continue
		}
		fmt.Fprintf(w, "%-56s %7.2fx\n", c.label, float64(n)/float64(d))
	}
}
