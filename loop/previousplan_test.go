package loop

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
)

// TestThePreviousPlanIsTheLastOneJudged: in convergence mode a revise is
// compared with the plan the critique judged, the last draft or revise
// recorded (review DC5). A second cycle's revise that gave the first
// revise again was compared with the draft, and passed as a change
// (review EB: a mutant reading drafts only survived every test).
func TestThePreviousPlanIsTheLastOneJudged(t *testing.T) {
	var f state.File
	assert.Equal(t, "", previousPlan(&f))
	for _, o := range []state.Output{
		{Phase: phases.Understand, Text: "understood"},
		{Phase: phases.Draft, Text: "## Goal\ndraft"},
		{Phase: phases.Critique, Round: 1, Text: "C1 OPEN"},
		{Phase: phases.Revise, Round: 1, Text: "## Goal\nrevised"},
		{Phase: phases.Critique, Round: 2, Text: "C2 OPEN"},
	} {
		f.AppendOutput(o)
	}
	assert.Equal(t, "## Goal\nrevised", previousPlan(&f))
	f.AppendOutput(state.Output{Phase: phases.Iterate, Text: "## Goal\niterated"})
	assert.Equal(t, "## Goal\niterated", previousPlan(&f))
}
