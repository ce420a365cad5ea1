// Package converge is the pure logic of convergence mode (plansmith plan
// --converge): it parses the challenges a critique raises, keeps them in a
// ledger across critique iterations, enforces the guards that keep the loop
// converging, decides when the plan is done, scores the final critique, and
// sizes the critique team from the task's complexity. It does no I/O: the
// phase machine passes texts in and stores the returned values.
package converge

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/plansmith/plansmith/internal/lazyre"
	"github.com/plansmith/plansmith/internal/mdtext"
)

// Severity is how badly a challenge hurts the plan if it is real.
type Severity string

// Severities, most severe first.
const (
	Blocking    Severity = "BLOCKING"    // the plan fails as written
	Significant Severity = "SIGNIFICANT" // the plan works but with real damage
	Minor       Severity = "MINOR"       // worth fixing, safe to handle later
)

// rank orders severities so that a downgrade can be detected; unknown is 0.
func (s Severity) rank() int {
	switch s {
	case Blocking:
		return 3
	case Significant:
		return 2
	case Minor:
		return 1
	}
	return 0
}

// Status is where a challenge stands in its lifecycle.
type Status string

// Statuses. OPEN and UNRESOLVED are active: they still count against the plan.
const (
	Open       Status = "OPEN"       // raised, not yet settled
	Resolved   Status = "RESOLVED"   // evidence or a plan change settled it
	Unresolved Status = "UNRESOLVED" // confirmed real, not settled
	Deferred   Status = "DEFERRED"   // MINOR only: handled during implementation
	Withdrawn  Status = "WITHDRAWN"  // its premise turned out false
)

// Active reports whether a challenge with this status still counts against
// the plan (OPEN or UNRESOLVED).
func (s Status) Active() bool { return s == Open || s == Unresolved }

var (
	severities = []Severity{Blocking, Significant, Minor}
	statuses   = []Status{Open, Resolved, Unresolved, Deferred, Withdrawn}
)

// Challenge is one `### C<n>: <claim>` block as written in a critique.
// Fields the block did not give are left empty.
type Challenge struct {
	ID              string // normalized, e.g. "C3" (for "### C03: …")
	Claim           string
	Severity        Severity
	Status          Status
	Concern         string
	FailureScenario string
	Mitigation      string
	// Evidence is what settles a challenge marked RESOLVED or WITHDRAWN: a
	// file and line read, a command's output, the plan's change. Apply
	// requires it there and the ledger does not keep it.
	Evidence string
	Line     int // 1-based line of the heading in the critique
}

// Problem is one precise reason a critique cannot be accepted.
type Problem struct {
	ID   string // the challenge concerned; empty for the critique as a whole
	Line int    // 1-based line; 0 when not tied to one line
	Text string
}

func (p Problem) String() string {
	switch {
	case p.ID != "" && p.Line > 0:
		return fmt.Sprintf("%s (line %d): %s", p.ID, p.Line, p.Text)
	case p.ID != "":
		return p.ID + ": " + p.Text
	case p.Line > 0:
		return fmt.Sprintf("line %d: %s", p.Line, p.Text)
	}
	return p.Text
}

// Parsed is what ParseChallenges found in a critique.
type Parsed struct {
	Challenges []Challenge // in order of appearance, ids unique
	// NoChallenges is true when the critique says explicitly that it raises
	// or updates nothing (a `### NO CHALLENGES` heading), so that an empty
	// critique is a statement and not a forgotten format.
	NoChallenges bool
	Problems     []Problem // malformed blocks; the critique should be rejected

	// invalid holds "id/field" for fields given with a bad value, so that
	// they are not reported a second time as missing.
	invalid map[string]bool
}

var (
	// A challenge heading: any heading level, "C" and a number, then the
	// claim after an optional separator. Case of the C is forgiven, and so
	// are the shapes models give it (review CP5): bold ("### **C1: claim**",
	// "### **C1**: claim"), brackets ("### [C1] claim"), a hyphen ("C-1")
	// and a "Challenge" before it.
	headingRe = lazyre.New(`^#{1,6}\s*[*_\[]*\s*(?i:challenge\s+)?[Cc][-\x{2010}\x{2011}]?(\d+)\b[*_\]]*\s*[:.)\-–—]?\s*(.*)$`)
	// A field line: a bullet or a list number and an optionally bold name,
	// or a bold name alone ("**Severity:** BLOCKING", review CP5); a colon
	// inside or outside the bold, then the value.
	fieldRe = lazyre.New(`^(?:(?:[-*+]|\d{1,3}[.)])\s+\**|\*\*)\s*([A-Za-z][A-Za-z /-]*?)\s*(?::\s*\**|\**\s*:)\s*`)
)

// fieldHead bounds how much of a line matchField hands to the regexp: a
// field's bullet, name and colon sit at its start, so the regexp never has
// to walk a long value (that made a 1 MiB critique take tens of ms).
const fieldHead = 96

// matchField splits a field line into its name and value, in the shape
// fieldRe describes, or returns nil.
func matchField(line string) []string {
	if line == "" || (line[0] != '-' && line[0] != '*' && line[0] != '+' && (line[0] < '0' || line[0] > '9')) {
		return nil
	}
	head := line
	if len(head) > fieldHead {
		head = head[:fieldHead]
	}
	m := fieldRe.FindStringSubmatchIndex(head)
	if m == nil {
		return nil
	}
	name := head[m[2]:m[3]]
	if bulleted := (line[0] == '-' || line[0] == '*' || line[0] == '+') && len(line) > 1 && (line[1] == ' ' || line[1] == '\t'); !bulleted {
		// A numbered line or a bold name alone is a field only by a name
		// this package reads: "1. User A: saves" in a numbered failure
		// scenario goes on being its text.
		switch normName(name) {
		case fSeverity, fStatus, fConcern, fScenario, fMitigate, fEvidence:
		default:
			return nil
		}
	}
	return []string{line, name, line[m[1]:]}
}

// field names as normalized by normName.
const (
	fSeverity = "severity"
	fStatus   = "status"
	fConcern  = "concern"
	fScenario = "failure scenario"
	fMitigate = "mitigation"
	fEvidence = "evidence"
)

// ParseChallenges reads every challenge block of a critique. A block starts
// at a `### C<n>: <claim>` heading and runs to the next heading; its fields
// are bullet lines `- **Name**: value` (a value may continue on the
// following non-blank lines). Names and values are matched without regard to
// case; unknown fields are ignored so that critiques may add their own.
// Fenced code blocks are skipped: they quote, they do not raise (one under
// the Evidence line is part of the evidence). Bad values,
// duplicate fields and duplicate ids become Problems; which fields are
// required depends on whether the id is already in the ledger, so missing
// fields are checked by Apply, not here.
func ParseChallenges(critique string) Parsed {
	var (
		out     = Parsed{invalid: map[string]bool{}}
		cur     *Challenge
		seen    = map[string]int{}       // field name -> line, within the current block
		ids     = map[string]int{}       // id -> heading line
		last    *string                  // the field a continuation line extends
		code    *string                  // the field a code block under it adds to, blank lines aside
		more    = map[*string][]string{} // lines that continue a field, joined once when its block ends
		fence   mdtext.Fence
		pending []Challenge
	)
	// A field's further lines are joined once, when its block ends: one
	// join a line made a 1 MiB critique take seconds (review FF7).
	flush := func() {
		if cur != nil {
			for f, lines := range more {
				*f = strings.TrimSpace(*f + " " + strings.Join(lines, " "))
			}
			pending = append(pending, *cur)
		}
		cur, last = nil, nil
		clear(seen)
		clear(more)
	}
	for i, raw := range strings.Split(critique, "\n") {
		n := i + 1
		wasCode := fence.Open()
		if fence.Step(raw) {
			if !wasCode {
				last = nil // a code block ends the field it follows
			} else if fence.Open() && code != nil {
				// A command's output under the Evidence line is evidence.
				if t := strings.TrimSpace(raw); t != "" {
					more[code] = append(more[code], t)
				}
			}
			continue
		}
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line != "" {
			code = nil // any line of text, a heading too, ends what a code block adds to
		}
		if strings.HasPrefix(line, "#") {
			flush()
			if isNoChallenges(line) {
				out.NoChallenges = true
				continue
			}
			m := headingRe.FindStringSubmatch(line)
			if m == nil {
				continue // some other heading: it ends the block, nothing more
			}
			id, ok := normID(m[1])
			if !ok {
				out.Problems = append(out.Problems, Problem{ID: "C" + m[1], Line: n,
					Text: "challenge number is too large; number challenges C1, C2, …"})
				continue
			}
			claim := strings.TrimSpace(strings.Trim(strings.TrimSpace(m[2]), "*_`"))
			if prev, dup := ids[id]; dup {
				out.Problems = append(out.Problems, Problem{ID: id, Line: n,
					Text: fmt.Sprintf("%s already has a block at line %d; give each challenge one block", id, prev)})
				continue
			}
			ids[id] = n
			if claim == "" {
				out.Problems = append(out.Problems, Problem{ID: id, Line: n,
					Text: "the heading has no claim; write `### " + id + ": <the claim in one sentence>`"})
			}
			cur = &Challenge{ID: id, Claim: claim, Line: n}
			continue
		}
		if cur == nil {
			continue
		}
		if line == "" {
			last = nil
			continue
		}
		m := matchField(line)
		if m == nil {
			if last != nil {
				more[last] = append(more[last], line)
			}
			code = evidenceOf(cur, last)
			continue
		}
		name, value := normName(m[1]), cleanValue(m[2])
		last = nil
		target := cur.fieldFor(name)
		if target == nil {
			continue // a field of the critique's own: allowed, not kept
		}
		if prev, dup := seen[name]; dup {
			out.Problems = append(out.Problems, Problem{ID: cur.ID, Line: n,
				Text: fmt.Sprintf("%s is given twice (first at line %d); keep one", fieldLabel(name), prev)})
			continue
		}
		seen[name] = n
		switch name {
		case fSeverity:
			s, ok := parseSeverity(value)
			if !ok {
				out.invalid[cur.ID+"/"+name] = true
				out.Problems = append(out.Problems, Problem{ID: cur.ID, Line: n,
					Text: fmt.Sprintf("severity %q is not one of BLOCKING, SIGNIFICANT, MINOR", value)})
				continue
			}
			cur.Severity = s
		case fStatus:
			s, ok := parseStatus(value)
			if !ok {
				out.invalid[cur.ID+"/"+name] = true
				out.Problems = append(out.Problems, Problem{ID: cur.ID, Line: n,
					Text: fmt.Sprintf("status %q is not one of OPEN, RESOLVED, UNRESOLVED, DEFERRED, WITHDRAWN", value)})
				continue
			}
			cur.Status = s
		default:
			*target = value
			last, code = target, evidenceOf(cur, target)
		}
	}
	flush()
	out.Challenges = pending
	return out
}

// evidenceOf is field when it is c's Evidence, the one field a code block
// under it adds to (a command's output, review FF3), and nil otherwise.
func evidenceOf(c *Challenge, field *string) *string {
	if field == &c.Evidence {
		return field
	}
	return nil
}

// fieldFor returns where a field's text is kept, or nil for a field this
// package does not track. Severity and status have their own parsing but
// still need a non-nil answer so that duplicates are noticed.
func (c *Challenge) fieldFor(name string) *string {
	var scratch string
	switch name {
	case fSeverity, fStatus:
		return &scratch
	case fConcern:
		return &c.Concern
	case fScenario:
		return &c.FailureScenario
	case fMitigate:
		return &c.Mitigation
	case fEvidence:
		return &c.Evidence
	}
	return nil
}

// missing lists the problems of a block whose id is new (isNew) or already
// in the ledger. A new challenge must be complete; an update needs only its
// status, since the ledger already holds the rest.
func (c Challenge) missing(isNew bool, invalid map[string]bool) []Problem {
	var ps []Problem
	need := func(ok bool, label, hint string) {
		if !ok && !invalid[c.ID+"/"+normName(label)] {
			ps = append(ps, Problem{ID: c.ID, Line: c.Line, Text: "missing `- **" + label + "**:` line" + hint})
		}
	}
	if isNew {
		need(c.Severity != "", "Severity", " (BLOCKING, SIGNIFICANT or MINOR)")
	}
	need(c.Status != "", "Status", " (OPEN, RESOLVED, UNRESOLVED, DEFERRED or WITHDRAWN)")
	if isNew {
		need(c.Concern != "", "Concern", "")
		need(c.FailureScenario != "", "Failure scenario", " (what concretely goes wrong if the concern is real)")
	}
	return ps
}

// tooLong reports a claim or mitigation longer than the ledger keeps.
func (c Challenge) tooLong() (Problem, bool) {
	for _, f := range []struct {
		label, value string
		max          int
	}{{"claim", c.Claim, MaxClaimBytes}, {"mitigation", c.Mitigation, MaxMitigationBytes}} {
		if len(f.value) > f.max {
			return Problem{ID: c.ID, Line: c.Line, Text: fmt.Sprintf(
				"its %s is %d bytes long; the ledger keeps at most %d: say it in a sentence or two, and leave the detail to the plan",
				f.label, len(f.value), f.max)}, true
		}
	}
	return Problem{}, false
}

func isNoChallenges(line string) bool {
	t := strings.ToUpper(strings.Join(strings.Fields(strings.Trim(strings.TrimLeft(line, "#"), " *_`.:")), " "))
	return t == "NO CHALLENGES" || t == "NO NEW CHALLENGES"
}

// normID turns the digits after C into a canonical id ("007" -> "C7").
func normID(digits string) (string, bool) {
	if len(digits) > 6 {
		return "", false
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return "", false
	}
	return "C" + strconv.Itoa(n), true
}

// idNum is the number of a canonical id, 0 when it is not one.
func idNum(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "C"))
	if err != nil || !strings.HasPrefix(id, "C") {
		return 0
	}
	return n
}

func normName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "-", " ")), " "))
}

func fieldLabel(name string) string {
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

func cleanValue(s string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*_`"))
}

// keyword is the leading word of a value, upper-cased, so that
// "Resolved — see step 3" reads as RESOLVED; a marker before it ("🔴
// BLOCKING", "⚠️ SIGNIFICANT") is passed over (review CP5).
func keyword(value string) string {
	value = strings.TrimLeftFunc(value, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_') && r != '\n'
	})
	end := strings.IndexFunc(value, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_')
	})
	if end < 0 {
		end = len(value)
	}
	return strings.ToUpper(value[:end])
}

func parseSeverity(v string) (Severity, bool) {
	k := keyword(v)
	for _, s := range severities {
		if string(s) == k {
			return s, true
		}
	}
	return "", false
}

func parseStatus(v string) (Status, bool) {
	k := keyword(v)
	for _, s := range statuses {
		if string(s) == k {
			return s, true
		}
	}
	return "", false
}

// settledWithout reports a block that marks its challenge RESOLVED or
// WITHDRAWN, from any other status (was), without an Evidence line that
// says something: evidence is what settles a challenge (a status alone
// would let a critique close every challenge by saying so), and the prompt
// asks for it.
func (c Challenge) settledWithout(was Status) (Problem, bool) {
	if c.Status != Resolved && c.Status != Withdrawn || c.Status == was || givesEvidence(c.Evidence) {
		return Problem{}, false
	}
	what := "what settles it: a file and line you read, a command's output, or the change to the plan"
	if c.Status == Withdrawn {
		what = "what showed its premise false: a file and line you read, a command's output, a document"
	}
	if said := oneLine(c.Evidence); said != "" {
		// The critique has an Evidence line: asked to add one, it cannot
		// tell what is wrong with it (review FI5).
		if len(said) > 60 {
			said = strings.ToValidUTF8(said[:60], "") + "…"
		}
		return Problem{ID: c.ID, Line: c.Line, Text: fmt.Sprintf(
			"marked %s without evidence: its Evidence line (%q) names none; write there %s), or leave its status as it was", c.Status, said, strings.Replace(what, ": ", " (", 1))}, true
	}
	return Problem{ID: c.ID, Line: c.Line, Text: fmt.Sprintf(
		"marked %s without evidence: add a `- **Evidence**: <%s>` line, or leave its status as it was", c.Status, what)}, true
}

// noEvidence are what an Evidence line says when it says there is none,
// or only repeats the status it should support ("Resolved.", "Verified").
var noEvidence = map[string]bool{"none": true, "no evidence": true, "nothing": true, "no": true,
	"unknown": true, "not checked": true, "not verified": true, "unverified": true,
	"yes": true, "ok": true, "done": true, "fixed": true, "resolved": true, "withdrawn": true,
	"verified": true, "confirmed": true, "checked": true, "evidence": true, "see above": true, "see below": true}

// givesEvidence reports whether an Evidence value says something
// (mdtext.SaysSomething) other than that there is no evidence ("None.",
// "(no evidence)"), which says the challenge is not settled, or the status
// again ("Resolved."), which says nothing that settles it (review FF4).
func givesEvidence(v string) bool {
	if !mdtext.SaysSomething(v) {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return !noEvidence[strings.Join(words, " ")]
}
