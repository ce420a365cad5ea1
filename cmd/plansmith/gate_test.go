package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/plansmith/plansmith/gate"
)

func TestCrossCheck(t *testing.T) {
	high := gate.Finding{ID: 1, Title: "No rollback", Severity: gate.High}
	low := gate.Finding{ID: 2, Title: "Naming", Severity: gate.Low}
	someGaps := gate.Gaps{Present: true, Items: []gate.Gap{{ID: 1}}}
	noGaps := gate.Gaps{Present: true}
	tests := []struct {
		name     string
		pass     bool
		findings gate.Findings
		gaps     gate.Gaps
		wantPass bool
		overrode bool
	}{
		{name: "pass with gaps stands", pass: true, findings: gate.Findings{Items: []gate.Finding{high}}, gaps: someGaps, wantPass: true},
		{name: "fail with serious findings stands", findings: gate.Findings{Items: []gate.Finding{high}}, gaps: someGaps},
		{name: "pass with serious findings and no gaps fails", pass: true, findings: gate.Findings{Items: []gate.Finding{high}}, gaps: noGaps, overrode: true},
		{name: "fail with no issues passes", findings: gate.Findings{NoIssues: true}, gaps: noGaps, wantPass: true, overrode: true},
		{name: "fail with only low findings passes", findings: gate.Findings{Items: []gate.Finding{low}}, gaps: someGaps, wantPass: true, overrode: true},
		{name: "pass with only low findings and no gaps stands", pass: true, findings: gate.Findings{Items: []gate.Finding{low}}, gaps: noGaps, wantPass: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pass, reason, note := crossCheck(tt.pass, "validator says so", tt.findings, tt.gaps)
			assert.Equal(t, tt.wantPass, pass)
			assert.NotEmpty(t, reason)
			assert.Equal(t, tt.overrode, note != "", note)
		})
	}
}
