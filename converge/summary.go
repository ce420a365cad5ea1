package converge

import (
	"strings"

	"github.com/plansmith/plansmith/templates"
)

// Summary is the convergence result for the saved plan's frontmatter.
type Summary struct {
	Verdict      Verdict        `yaml:"verdict,omitempty"`       // empty while the loop runs
	QualityScore float64        `yaml:"quality_score,omitempty"` // Weighted(scores); 0 = not scored
	Scores       *Scores        `yaml:"scores,omitempty"`
	Iterations   int            `yaml:"iterations"`
	Last         int            `yaml:"max_iterations"` // the loop's last iteration (Ledger.Last)
	Challenges   int            `yaml:"challenges"`
	Active       int            `yaml:"active"`
	BySeverity   SeverityCounts `yaml:"by_severity"`
	ByStatus     StatusCounts   `yaml:"by_status"`
	Degraded     bool           `yaml:"degraded,omitempty"` // some iteration was flagged
	Complexity   int            `yaml:"complexity,omitempty"`
	Team         Team           `yaml:"team,omitempty"`
}

// SeverityCounts counts all challenges by severity.
type SeverityCounts struct {
	Blocking    int `yaml:"blocking"`
	Significant int `yaml:"significant"`
	Minor       int `yaml:"minor"`
}

// StatusCounts counts all challenges by current status.
type StatusCounts struct {
	Open       int `yaml:"open"`
	Resolved   int `yaml:"resolved"`
	Unresolved int `yaml:"unresolved"`
	Deferred   int `yaml:"deferred"`
	Withdrawn  int `yaml:"withdrawn"`
}

// Summarize condenses the ledger, the last decision and the final scores
// (nil when the final critique gave none) for the output frontmatter.
// Complexity and Team are left for the caller, who holds the Assess result.
func Summarize(l Ledger, d Decision, scores *Scores) Summary {
	s := Summary{Verdict: d.Verdict, Iterations: l.Iteration, Last: l.Last(), Challenges: len(l.Challenges), Active: len(l.Active())}
	if scores != nil {
		sc := *scores
		s.Scores, s.QualityScore = &sc, Weighted(sc)
	}
	for _, r := range l.Rounds {
		s.Degraded = s.Degraded || r.Degraded
	}
	for _, e := range l.Challenges {
		switch e.Severity {
		case Blocking:
			s.BySeverity.Blocking++
		case Significant:
			s.BySeverity.Significant++
		case Minor:
			s.BySeverity.Minor++
		}
		switch e.Status {
		case Open:
			s.ByStatus.Open++
		case Resolved:
			s.ByStatus.Resolved++
		case Unresolved:
			s.ByStatus.Unresolved++
		case Deferred:
			s.ByStatus.Deferred++
		case Withdrawn:
			s.ByStatus.Withdrawn++
		}
	}
	return s
}

// Text is a one-line account for `plansmith status`.
func (s Summary) Text() string {
	last := s.Last
	if last <= 0 {
		last = MaxIterations
	}
	return strings.TrimSpace(templates.Show("converge/status.md", struct {
		Summary
		MaxIterations int
	}{s, last}))
}
