package phases

import (
	"slices"
	"strings"

	"github.com/plansmith/plansmith/principles"
)

// phaseData is what every templates/phases/<phase>.md sees.
type phaseData struct {
	Phase       string   // phase name
	Label       string   // "critique [5/8]"
	Sections    []string // required plan sections
	Promise     string   // completion promise text
	Memory      string   // lessons from earlier runs (explore only; may be empty)
	Gate        bool     // ask for the gaps block
	Round       int      // critique round, 1-based
	Perspective string   // technical | maintainability | devils-advocate
	Open        bool     // open critique (no principles)
	Principles  string   // principles section of the critique prompt
	Final       bool     // this revise finalizes
	Iterate     bool     // the extra revise after the sequence
	Later       []string // the phases still to come after this one, for "not yet" hints
	Converge    string   // convergence mode: the ledger part of a critique or revise prompt
	// AfterCritique: a critique comes right before this revise; HasPlan: a
	// draft or revise comes somewhere before it. A revise with neither
	// writes the plan (--phases understand,explore,revise; review AW4).
	AfterCritique, HasPlan bool

	UnderstandItems, UnderstandKeywords, ExploreRefs, Options, CritiqueItems, CritiqueEvidence int
}

// Korean, SectionNames and Gaps are methods rather than fields so that only
// the phase templates showing them (draft, revise) pay for them: a Stop
// hook renders one phase's prompt in a fresh process.

// Korean is the first section's Korean heading, when it has one.
func (d phaseData) Korean() string { return koreanName(d.Sections[0]) }

// SectionNames says, per required section, which heading names count
// ("Steps — also implementation steps, …").
func (d phaseData) SectionNames() []string { return sectionHelp(d.Sections) }

// Gaps is the gaps block instructions, or "" when Gate is off.
func (d phaseData) Gaps() string {
	if !d.Gate {
		return ""
	}
	return render("phases/gaps.md", nil)
}

// Prompt returns the instructions for the phase at p: a header with the
// phase and progress, note (when non-empty) set apart at the top, the
// phase's instructions, and the original request. The Stop hook sends it
// when a phase begins; `plansmith plan` prints the first one; a resumed
// loop re-sends it; the gate passes a note naming uncovered findings.
func Prompt(cfg Config, p Progress, note string) string {
	phase := PhaseAt(cfg, p.Index)
	d := phaseData{
		Phase:              phase,
		Label:              Label(cfg, p),
		Sections:           sectionNames(cfg),
		Promise:            strings.TrimSpace(cfg.CompletionPromise),
		Memory:             strings.TrimSpace(cfg.Memory),
		Gate:               cfg.Gate,
		Open:               cfg.OpenCritique,
		Final:              isFinal(cfg, p),
		Iterate:            phase == Iterate,
		UnderstandItems:    understandItems,
		UnderstandKeywords: understandKeywords,
		ExploreRefs:        exploreRefs,
		Options:            alternativesOptions,
		CritiqueItems:      critiqueItems,
		CritiqueEvidence:   critiqueEvidence,
	}
	if p.Index >= 0 && p.Index < len(cfg.Phases) {
		d.Later = cfg.Phases[p.Index+1:]
	}
	if p.Index > 0 && p.Index <= len(cfg.Phases) {
		d.AfterCritique = cfg.Phases[p.Index-1] == Critique
		d.HasPlan = slices.Contains(cfg.Phases[:p.Index], Draft) || slices.Contains(cfg.Phases[:p.Index], Revise)
	}
	if cfg.Converge {
		switch phase {
		case Critique:
			d.Converge = convergeCritiquePrompt(cfg, p)
		case Revise, Iterate:
			d.Converge = convergeRevisePrompt(cfg, p)
		}
	}
	if phase == Critique {
		d.Round = CritiqueRound(cfg, p.Index)
		d.Perspective = Perspective(d.Round)
		if !cfg.OpenCritique && !cfg.Converge {
			d.Principles = strings.TrimSpace(principles.Render())
		}
	}
	name := phase
	if phase == Iterate {
		name = Revise
	}
	return render("messages/prompt.md", promptData{
		Label:        d.Label,
		Note:         strings.TrimSpace(note),
		Instructions: strings.TrimSpace(render("phases/"+name+".md", d)),
		Request:      strings.TrimSpace(cfg.Request),
	})
}

type promptData struct {
	Label, Note, Instructions, Request string
}

func sectionNames(cfg Config) []string {
	if len(cfg.RequiredSections) == 0 {
		return DefaultSections
	}
	return cfg.RequiredSections
}

// sectionHelp lists, per required section, the heading names that count for
// it: a known section's other names, or the exact name of a custom one.
func sectionHelp(sections []string) []string {
	m := newSectionMatcher(sections)
	out := make([]string, len(sections))
	for i, name := range sections {
		if g := m.groups[i]; g >= 0 {
			var also []string
			for _, a := range acceptedNames(g, 9) {
				if !strings.EqualFold(a, name) {
					also = append(also, a)
				}
			}
			out[i] = name + " — also " + strings.Join(also, ", ")
		} else {
			out[i] = name + " — a heading that starts with this name"
		}
	}
	return out
}
