package hooks

import (
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/state"
)

// MachineConfig is the phase machine's view of a loop's options; mem is the
// rendered Reflexion memory to inject into explore.
func MachineConfig(f *state.File, mem string) phases.Config {
	l := f.Loop
	return phases.Config{
		Phases:            l.Phases,
		RequiredSections:  l.RequiredSections,
		CompletionPromise: l.CompletionPromise,
		OpenCritique:      l.CritiqueMode == "open",
		MaxPhases:         l.MaxPhases,
		MaxRetries:        l.MaxRetries,
		Request:           l.Request,
		Memory:            mem,
		Converge:          l.Converge,
		Gate:              l.Gate,
	}
}

// MachineProgress is where the loop stands, in the phase machine's terms,
// convergence mode's ledger included.
func MachineProgress(f *state.File) phases.Progress {
	p := phases.Progress{Index: f.Loop.PhaseIndex, Retries: f.Loop.Retries, Transitions: f.Loop.Transitions, FinalNext: f.Loop.FinalNext}
	convergeProgress(f, &p)
	return p
}

// setProgress stores the machine's progress back into the loop.
func setProgress(f *state.File, p phases.Progress) {
	f.Loop.PhaseIndex = p.Index
	f.Loop.Retries = p.Retries
	f.Loop.Transitions = p.Transitions
	f.Loop.FinalNext = p.FinalNext
	f.Loop.Phase = phases.PhaseAt(phases.Config{Phases: f.Loop.Phases}, p.Index)
	setConverge(f, p, nil)
}
