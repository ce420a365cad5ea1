package loop

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/state"
)

// The saved plan claims the gate's verdict only when the verdict was given
// on that plan, by a loop with the gate on (review V4: a record of an
// earlier plan, or one a loop without the gate held, was copied as it
// stood, verified: true included).
func TestGateMetaClaimsOnlyTheVerdictOnThisPlan(t *testing.T) {
	const passed = "# Plan A\n\n## Steps\n1. Add the limiter.\n\n" + gate.GapsStart + "\n" + gate.GapsEnd + "\n"
	const other = "# Plan B\n\n## Steps\n1. Drop the table.\n\n" + gate.GapsStart + "\n" + gate.GapsEnd + "\n"
	record := func() *gate.Record {
		return &gate.Record{Status: "passed", Verified: true, PlanHash: gate.PlanHash(passed), GapsHash: gate.GapsHash(passed), Evidence: gate.EvidenceObserved}
	}

	l := &state.Loop{Gate: true, GateRecord: record()}
	var meta state.PlanMeta
	gateMeta(l, &meta, passed)
	assert.True(t, meta.Verified, "the plan the gate passed")
	assert.Equal(t, l.GateRecord, meta.Gate)

	meta = state.PlanMeta{}
	gateMeta(l, &meta, other)
	assert.False(t, meta.Verified, "another plan")
	assert.Equal(t, map[string]string{"status": "not_run", "reason": "the gate's last verdict was on another version of the plan"}, meta.Gate)

	meta = state.PlanMeta{}
	gateMeta(&state.Loop{Gate: false, GateRecord: record()}, &meta, passed)
	assert.False(t, meta.Verified, "a loop without the gate claims no verdict")
	assert.Nil(t, meta.Gate)
}

// A loop whose assessments failed (closed, leaving no record) and which
// ended before another passed says so, not that the gate never ran (review
// AR3).
func TestGateMetaOfFailedAssessmentsIsNotNotRun(t *testing.T) {
	const plan = "# Plan\n\n## Steps\n1. Add the limiter.\n\n" + gate.GapsStart + "\n" + gate.GapsEnd + "\n"
	var meta state.PlanMeta
	gateMeta(&state.Loop{Gate: true, GateSession: gate.Session{Status: gate.StatusRevising, Attempts: 1}}, &meta, plan)
	assert.Equal(t, map[string]string{"status": "not_passed", "reason": "1 assessment(s) failed, and the loop ended before another passed"}, meta.Gate)
	assert.False(t, meta.Verified)

	meta = state.PlanMeta{}
	gateMeta(&state.Loop{Gate: true}, &meta, plan)
	assert.Equal(t, map[string]string{"status": "not_run"}, meta.Gate, "no assessment made")
}

// A gate that failed closed says why in the finishing message, where no
// uncovered finding does (review AX6).
func TestGateNoteSaysWhyAFailedClosedGateFailed(t *testing.T) {
	rec := &gate.Record{Status: "failed", Note: "critic output unreadable twice: no FINDING blocks"}
	assert.Equal(t, rec.Note, gateNote(&state.Loop{Gate: true, GateRecord: rec}))
	withFindings := &state.Loop{Gate: true, GateRecord: rec, GateSession: gate.Session{Uncovered: []gate.Finding{{ID: 1, Title: "x"}}}}
	assert.Empty(t, gateNote(withFindings), "the findings say why")
	assert.Empty(t, gateNote(&state.Loop{Gate: true, GateRecord: &gate.Record{Status: "passed", Verified: true, Note: "overridden"}}))
}
