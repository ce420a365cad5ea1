package phases

import (
	"fmt"
	"strings"

	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/templates"
)

// Step judges the assistant's message for the current phase and decides
// what the Stop hook does next. It is pure: same inputs, same Outcome.
//
//   - Fails the checks: Retries+1. Past cfg.MaxRetries the loop is
//     Exhausted; otherwise Block with a retry reason
//     naming the phase, progress, each problem (found vs needed), what to
//     do, the phase instructions and the original request.
//   - Passes: Transitions+1. A final revise (last revise of the sequence,
//     Iterate, or FinalNext) Finalizes with Plan = the message without its
//     promise tags. Otherwise, when cfg.MaxPhases > 0 and Transitions has
//     reached it, the loop ends with MaxPhases; else Index+1, Retries 0, and
//     Block with the next phase's instructions.
//
// In convergence mode (see converge.go) a passed answer also updates
// Progress.Converge, and an accepted critique's Decision can mark the next
// revise final (FinalNext, skipping to it) or end the loop with Rethink.
//
// Output always describes the judged message, so the caller can record it
// (critique text and verdicts) whatever the Kind. A negative Retries or an
// out-of-range Index never panics: the index is read as Iterate past the
// end and as the first phase below zero.
func Step(cfg Config, p Progress, message string) Outcome {
	a := &answer{text: message}
	phase := PhaseAt(cfg, p.Index)
	out := Outcome{Progress: p, Output: Output{Phase: phase, Text: message}}
	out.Progress.Converge.Understand, out.Progress.Converge.Explore, out.Progress.Converge.Previous = "", "", ""
	if phase == Critique {
		out.Output.Round = CritiqueRound(cfg, p.Index)
	}
	out.Problems = validate(cfg, p, a)
	if phase == Critique && !cfg.OpenCritique && !cfg.Converge {
		out.Output.Verdicts = a.verdicts()
	}

	if len(out.Problems) > 0 {
		out.Progress.Retries = max(p.Retries, 0) + 1
		if out.Progress.Retries > cfg.MaxRetries {
			out.Kind = Exhausted
			return out
		}
		out.Kind = Block
		out.Reason = render("messages/retry.md", retryData{
			Label:    Label(cfg, p),
			Phase:    phase,
			Attempt:  out.Progress.Retries,
			Left:     cfg.MaxRetries - out.Progress.Retries,
			Problems: problemLines(out.Problems),
			Prompt:   Prompt(cfg, out.Progress, ""),
		})
		return out
	}

	out.Passed = true
	out.Progress.Transitions = p.Transitions + 1
	if cfg.Converge {
		out.Progress.Converge, out.Decision = convergeStep(cfg, p, a, phase)
	}
	if isFinal(cfg, p) {
		out.Kind = Finalize
		out.Plan = stripPromises(message)
		return out
	}
	if out.Decision != nil && out.Decision.Next == converge.End {
		out.Kind = Rethink
		return out
	}
	if cfg.MaxPhases > 0 && out.Progress.Transitions >= cfg.MaxPhases {
		out.Kind = MaxPhases
		return out
	}
	next := Progress{Index: max(p.Index, 0) + 1, Transitions: out.Progress.Transitions, Converge: out.Progress.Converge}
	if out.Decision != nil && out.Decision.Next == converge.FinalRevise {
		next.Index, next.FinalNext = nextRevise(cfg, p.Index), true
	}
	out.Progress = next
	out.Kind = Block
	out.Reason = render("messages/advance.md", advanceData{
		Passed: Label(cfg, p),
		Label:  Label(cfg, next),
		Prompt: Prompt(cfg, next, ""),
	})
	return out
}

// Label names a position for messages and status, e.g. "critique [5/8]".
// Iterate, past the sequence, shows as "iterate [8/8+]".
func Label(cfg Config, p Progress) string {
	n := len(cfg.Phases)
	i := max(p.Index, 0)
	if i >= n {
		return fmt.Sprintf("%s [%d/%d+]", Iterate, n, n)
	}
	return fmt.Sprintf("%s [%d/%d]", cfg.Phases[i], i+1, n)
}

func problemLines(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

type retryData struct {
	Label, Phase  string
	Attempt, Left int
	Problems      []string
	Prompt        string
}

type advanceData struct {
	Passed, Label, Prompt string
}

// render executes an embedded template. The templates are part of the
// binary and covered by tests, so a failure here is a build defect; it is
// still reported as text rather than a panic, because a hook must answer.
func render(name string, data any) string {
	return strings.TrimSpace(templates.Show(name, data)) + "\n"
}
