package converge

import (
	"fmt"
	"strings"

	"github.com/plansmith/plansmith/templates"
)

// RenderLedger renders the ledger compactly for a prompt: one line per
// challenge with severity, status, claim, mitigation and status history, so
// the next critique can reuse the ids and update the statuses.
func RenderLedger(l Ledger) string {
	if len(l.Challenges) == 0 {
		return "No challenges yet. New challenges start at C1."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "After iteration %d of %d: %d challenge(s), %d active (at most %d). New challenges start at %s.\n",
		l.Iteration, l.Last(), len(l.Challenges), len(l.Active()), MaxActive, l.NextID())
	for _, e := range l.Challenges {
		fmt.Fprintf(&b, "\n- %s [%s, %s] %s", e.ID, e.Severity, e.Status, oneLine(e.Claim))
		if e.Mitigation != "" {
			fmt.Fprintf(&b, " — mitigation: %s", oneLine(e.Mitigation))
		}
		if len(e.History) > 0 {
			marks := make([]string, len(e.History))
			for i, m := range e.History {
				marks[i] = fmt.Sprintf("%d %s", m.Iteration, m.Status)
			}
			fmt.Fprintf(&b, " (history: %s)", strings.Join(marks, ", "))
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// CritiquePrompt renders the convergence part of the next critique's
// instructions: the round's perspectives for the team, the challenge format
// and guards, the ledger, the degradation instruction when the last
// iteration was flagged, and the scoring request (every round asks for
// scores, since only Decide knows afterwards which round was the final one).
// The phase machine wraps it with its own progress line and the request.
func CritiquePrompt(l Ledger, team Team) string {
	round := l.Iteration + 1
	data := map[string]any{
		"Round":         round,
		"MaxIterations": l.Last(),
		"Last":          round >= l.Last(),
		"Perspectives":  RoundPerspectives(team, round),
		"Ledger":        RenderLedger(l),
		"NextID":        l.NextID(),
		"MaxNew":        MaxNew,
		"MaxActive":     MaxActive,
		"Degradation":   "",
	}
	if l.Degraded && len(l.Rounds) > 0 {
		r := l.Rounds[len(l.Rounds)-1]
		data["Degradation"] = degradationText(r.Iteration, r.New+r.Reopened, r.Resolved, l.Active())
	}
	data["Scoring"] = ScoringPrompt()
	return templates.Show("converge/critique.md", data)
}

// ScoringPrompt renders the request for the six dimension scores in the
// format ParseScores reads.
func ScoringPrompt() string {
	return templates.Show("converge/scoring.md", map[string]any{"Dimensions": Dimensions})
}

// RevisePrompt renders the convergence part of the revise instructions
// after decision d: final or not, and every active challenge the revise
// must say it addressed (see Unaddressed).
func RevisePrompt(l Ledger, d Decision) string {
	var active []Entry
	for _, e := range l.Challenges {
		if e.Status.Active() {
			active = append(active, e)
		}
	}
	return templates.Show("converge/revise.md", map[string]any{
		"Final":         d.Next == FinalRevise,
		"Verdict":       string(d.Verdict),
		"Reason":        d.Reason,
		"Iteration":     l.Iteration,
		"MaxIterations": l.Last(),
		"Active":        active,
	})
}

// Unaddressed returns the ids of active challenges that a revise does not
// mention (as a whole word, e.g. "C3"), in id order. The phase machine can
// refuse a revise that leaves any out.
func Unaddressed(l Ledger, revise string) []string {
	var out []string
	for _, id := range l.Active() {
		if !hasID(revise, id) {
			out = append(out, id)
		}
	}
	return out
}

// hasID finds id in text with no letter or digit glued to either side, so
// that C1 is not found in C12; "C-1" and "C‑1" (U+2011) name C1 too, as
// the headings that raise them may (review CP5).
func hasID(text, id string) bool {
	if findID(text, id) {
		return true
	}
	num := strings.TrimPrefix(id, "C")
	return findID(text, "C-"+num) || findID(text, "C\u2011"+num)
}

func findID(text, id string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], id)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(id)
		if (start == 0 || !wordByte(text[start-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		from = start + 1
	}
}

// degradationText renders the narrow-scope instruction. The template is
// embedded, so failure means a broken build; a plain sentence stands in
// rather than losing the instruction.
func degradationText(iteration, created, resolved int, active []string) string {
	return strings.TrimSpace(templates.Show("converge/degradation.md", map[string]any{
		"Iteration": iteration, "Created": created, "Resolved": resolved, "Active": active,
	}))
}
