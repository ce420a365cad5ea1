package converge

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Guards of the convergence loop.
const (
	MaxIterations = 3 // critique iterations; there is never a fourth
	MaxNew        = 5 // new challenges one critique may raise
	MaxActive     = 8 // OPEN + UNRESOLVED challenges at any time
	// The ledger keeps each challenge's claim and mitigation in the state
	// file's frontmatter, which the reader takes up to 1 MiB: a critique
	// whose claims ran to megabytes passed, and the loop then ended as
	// corrupt (review CI2). These bounds keep every ledger far under it.
	MaxClaimBytes      = 1000
	MaxMitigationBytes = 4000
)

// Ledger is the record of every challenge across critique iterations. The
// lead stores it in the state file's YAML frontmatter; its zero value is the
// ledger before the first critique.
type Ledger struct {
	Iteration int `yaml:"iteration"` // critiques accepted so far
	// Limit is the loop's last iteration when the user asked for fewer
	// than MaxIterations (plan --converge --refine-iterations N); 0 means
	// MaxIterations. Decide judges the Limit-th iteration as the last.
	Limit      int     `yaml:"limit,omitempty"`
	Degraded   bool    `yaml:"degraded,omitempty"` // the last iteration created more than it resolved
	Rounds     []Round `yaml:"rounds,omitempty"`   // one per accepted critique
	Challenges []Entry `yaml:"challenges,omitempty"`
}

// Entry is one challenge as the ledger knows it. Claim and the first
// severity are fixed when the challenge is raised; later critiques change
// its status, may raise its severity, and may add a mitigation.
type Entry struct {
	ID         string   `yaml:"id"`
	Claim      string   `yaml:"claim"`
	Severity   Severity `yaml:"severity"`
	Status     Status   `yaml:"status"`
	Mitigation string   `yaml:"mitigation,omitempty"`
	History    []Mark   `yaml:"history"` // every iteration whose critique wrote this challenge
}

// Mark is the status a challenge was given in one iteration.
type Mark struct {
	Iteration int    `yaml:"iteration"`
	Status    Status `yaml:"status"`
}

// Round is what one accepted critique did to the ledger.
type Round struct {
	Iteration int  `yaml:"iteration"`
	New       int  `yaml:"new"`
	Resolved  int  `yaml:"resolved"`
	Reopened  int  `yaml:"reopened,omitempty"`
	Degraded  bool `yaml:"degraded,omitempty"`
}

// Report says what Apply did with one critique.
type Report struct {
	Accepted bool
	// Problems are precise reasons for rejection, each naming the
	// challenge and line where there is one. Non-empty means rejected: the
	// ledger is unchanged and the agent should rewrite the critique.
	Problems  []string
	Iteration int // the iteration this critique counted as (when accepted)
	New       int // challenges raised
	Updated   int // existing challenges the critique wrote a block for
	Resolved  int // active challenges closed (RESOLVED, WITHDRAWN or DEFERRED)
	Reopened  int // closed challenges made active again
	Active    int // OPEN + UNRESOLVED after this critique
	// Degradation is set when an iteration after the first created (new +
	// reopened) more than it resolved; Instruction then holds the text the
	// next critique prompt must carry to narrow its scope.
	Degradation bool
	Instruction string
}

// Last is the loop's last critique iteration: Limit when it is set and
// below MaxIterations, else MaxIterations (there is never a fourth).
func (l Ledger) Last() int {
	if l.Limit > 0 && l.Limit < MaxIterations {
		return l.Limit
	}
	return MaxIterations
}

// Get returns the entry with the given id.
func (l Ledger) Get(id string) (Entry, bool) {
	for _, e := range l.Challenges {
		if e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// Active returns the ids of the OPEN and UNRESOLVED challenges in id order.
func (l Ledger) Active() []string {
	var ids []string
	for _, e := range l.Challenges {
		if e.Status.Active() {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// NextID is the id a newly raised challenge should take: one past the
// highest id ever used, since ids are global and never reused.
func (l Ledger) NextID() string {
	n := 0
	for _, e := range l.Challenges {
		n = max(n, idNum(e.ID))
	}
	return fmt.Sprintf("C%d", n+1)
}

// Apply takes one critique iteration into the ledger. A block whose id the
// ledger holds updates that challenge; any other id raises a new one. When
// the critique breaks a rule — a malformed block, more than MaxNew new
// challenges, more than MaxActive active afterwards, DEFERRED on anything
// but MINOR, a severity lowered, a challenge marked RESOLVED or WITHDRAWN
// with no evidence, a critique after the last iteration — the
// report lists every problem, Accepted is false and the ledger comes back
// unchanged. Challenges the critique does not mention keep their status.
func Apply(l Ledger, critique string) (Ledger, Report) {
	if l.Iteration >= l.Last() {
		return l, Report{Problems: []string{fmt.Sprintf(
			"the convergence loop has already run its %d critique iterations; no further critique is accepted", l.Last())}}
	}
	parsed := ParseChallenges(critique)
	problems := parsed.Problems
	if len(parsed.Challenges) == 0 && !parsed.NoChallenges && len(problems) == 0 {
		problems = append(problems, Problem{Text: "no challenge blocks found: write each challenge as `### C<n>: <claim>` with Severity, Status, Concern and Failure scenario lines, or a `### NO CHALLENGES` heading if there is truly nothing to raise or update"})
	}

	next := l.clone()
	iteration := l.Iteration + 1
	var newIDs []string
	rep := Report{Iteration: iteration}
	for _, c := range parsed.Challenges {
		i := slices.IndexFunc(next.Challenges, func(e Entry) bool { return e.ID == c.ID })
		if p, long := c.tooLong(); long {
			problems = append(problems, p)
			continue
		}
		if i < 0 {
			ps := c.missing(true, parsed.invalid)
			if c.Status == Resolved || c.Status == Withdrawn {
				ps = append(ps, Problem{ID: c.ID, Line: c.Line, Text: fmt.Sprintf(
					"not in the ledger, so it cannot start as %s: raise it as OPEN or UNRESOLVED, drop it, or use the id of the existing challenge you meant%s",
					c.Status, idRange(l))})
			}
			if c.Status == Deferred && c.Severity != Minor && c.Severity != "" {
				ps = append(ps, deferProblem(c, c.Severity))
			}
			problems = append(problems, ps...)
			if len(ps) > 0 {
				continue
			}
			next.Challenges = append(next.Challenges, Entry{
				ID: c.ID, Claim: c.Claim, Severity: c.Severity, Status: c.Status,
				Mitigation: c.Mitigation, History: []Mark{{iteration, c.Status}},
			})
			newIDs = append(newIDs, c.ID)
			rep.New++
			continue
		}
		e := &next.Challenges[i]
		ps := c.missing(false, parsed.invalid)
		sev := e.Severity
		if c.Severity != "" {
			if c.Severity.rank() < e.Severity.rank() {
				ps = append(ps, Problem{ID: c.ID, Line: c.Line, Text: fmt.Sprintf(
					"severity cannot go down from %s to %s: if evidence shows the concern is smaller, mark it RESOLVED or WITHDRAWN and raise what remains as a new challenge",
					e.Severity, c.Severity)})
			} else {
				sev = c.Severity
			}
		}
		if c.Status == Deferred && sev != Minor {
			ps = append(ps, deferProblem(c, sev))
		}
		if p, bare := c.settledWithout(e.Status); bare {
			ps = append(ps, p)
		}
		problems = append(problems, ps...)
		if len(ps) > 0 {
			continue
		}
		switch {
		case e.Status.Active() && !c.Status.Active():
			rep.Resolved++
		case !e.Status.Active() && c.Status.Active():
			rep.Reopened++
		}
		e.Severity, e.Status = sev, c.Status
		if c.Mitigation != "" {
			e.Mitigation = c.Mitigation
		}
		e.History = append(e.History, Mark{iteration, c.Status})
		rep.Updated++
	}
	slices.SortFunc(next.Challenges, func(a, b Entry) int { return idNum(a.ID) - idNum(b.ID) })

	if rep.New > MaxNew {
		problems = append(problems, Problem{Text: fmt.Sprintf(
			"this critique raises %d new challenges (%s); at most %d may be raised per iteration: merge related ones or drop the least severe (%s)",
			rep.New, strings.Join(newIDs, ", "), MaxNew, strings.Join(leastSevere(next, newIDs, rep.New-MaxNew), ", "))})
	}
	active := next.Active()
	if len(active) > MaxActive {
		problems = append(problems, Problem{Text: fmt.Sprintf(
			"%d challenges would be active (OPEN or UNRESOLVED): %s; at most %d may be: resolve, withdraw or merge at least %d, starting with the least severe (%s)",
			len(active), strings.Join(active, ", "), MaxActive, len(active)-MaxActive,
			strings.Join(leastSevere(next, active, len(active)-MaxActive), ", "))})
	}
	if len(problems) > 0 {
		// In reading order; the critique-wide problems (line 0) last.
		slices.SortStableFunc(problems, func(a, b Problem) int {
			return sortLine(a.Line) - sortLine(b.Line)
		})
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.String()
		}
		return l, Report{Problems: msgs}
	}

	rep.Accepted = true
	rep.Active = len(active)
	rep.Degradation = iteration > 1 && rep.New+rep.Reopened > rep.Resolved
	if rep.Degradation {
		rep.Instruction = degradationText(iteration, rep.New+rep.Reopened, rep.Resolved, active)
	}
	next.Iteration = iteration
	next.Degraded = rep.Degradation
	next.Rounds = append(next.Rounds, Round{Iteration: iteration, New: rep.New,
		Resolved: rep.Resolved, Reopened: rep.Reopened, Degraded: rep.Degradation})
	return next, rep
}

func deferProblem(c Challenge, sev Severity) Problem {
	return Problem{ID: c.ID, Line: c.Line, Text: fmt.Sprintf(
		"only MINOR challenges may be DEFERRED; a %s one must be RESOLVED, stay OPEN/UNRESOLVED (with a mitigation), or be WITHDRAWN", sev)}
}

// idRange names the ids a critique could have meant, for messages.
func idRange(l Ledger) string {
	switch len(l.Challenges) {
	case 0:
		return " (the ledger is empty)"
	case 1:
		return " (" + l.Challenges[0].ID + ")"
	}
	return fmt.Sprintf(" (%s–%s)", l.Challenges[0].ID, l.Challenges[len(l.Challenges)-1].ID)
}

// leastSevere picks n of ids to suggest dropping: lowest severity first,
// newest first among equals, labelled with their severity.
func leastSevere(l Ledger, ids []string, n int) []string {
	type cand struct {
		id  string
		sev Severity
	}
	var cs []cand
	for _, id := range ids {
		e, _ := l.Get(id)
		cs = append(cs, cand{id, e.Severity})
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		if d := a.sev.rank() - b.sev.rank(); d != 0 {
			return d
		}
		return idNum(b.id) - idNum(a.id)
	})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, fmt.Sprintf("%s %s", c.id, c.sev))
	}
	return out
}

// clone copies the ledger deeply so that Apply never mutates its argument.
func (l Ledger) clone() Ledger {
	c := l
	c.Rounds = slices.Clone(l.Rounds)
	c.Challenges = make([]Entry, len(l.Challenges))
	for i, e := range l.Challenges {
		e.History = slices.Clone(e.History)
		c.Challenges[i] = e
	}
	return c
}

func sortLine(n int) int {
	if n == 0 {
		return math.MaxInt32
	}
	return n
}
