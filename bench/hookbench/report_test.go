package main

import (
	"strings"
	"testing"
	"time"
)

func TestReportRatios(t *testing.T) {
	v := func(name string, ms ...int) *variant {
		x := &variant{name: name}
		for _, m := range ms {
			x.times = append(x.times, time.Duration(m)*time.Millisecond)
		}
		return x
	}
	vs := []*variant{
		v("floor", 2, 2, 3),
		v("minimal Go program", 3, 3, 9),
		v("plugin pretooluse loop", 4, 5, 4),
		v("plugin stop loop", 6, 6, 1),
		v("original pretooluse loop", 72, 60, 80),
		v("original stop loop", 120, 150, 90),
	}
	var b strings.Builder
	report(&b, vs, 3, "plugin", map[string]string{"PreToolUse": "cmd"})
	out := b.String()
	// Compare lines with their runs of spaces made one.
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	flat := strings.Join(lines, "\n")
	for _, want := range []string{
		"plugin pretooluse loop 4.00ms 4.00ms 5.00ms 2.00x",
		"original / plugin, pretooluse with a loop 18.00x",
		"original / plugin, stop with a loop 20.00x",
		"original / minimal Go program, pretooluse with a loop 24.00x",
		"original / minimal Go program, stop with a loop 40.00x",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// A ratio whose variants were not run is left out, not printed as 0 or Inf.
	if strings.Contains(out, "10,000 / 10 plan files") {
		t.Errorf("report prints a ratio of variants it did not run:\n%s", out)
	}
}
