package gate

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/plansmith/plansmith/internal/mdtext"
	"github.com/plansmith/plansmith/templates"
)

// Claude Code's own plan mode keeps the gate's state inside the plan file
// (~/.claude/plans/<slug>.md) as single-line HTML comments at its end:
//
//	<!-- rodin:session=<session id> -->
//	<!-- rodin:plan:hash=<hex> -->
//	<!-- rodin:gaps:hash=<hex> -->
//	<!-- rodin:validation={"status":"pass|fail|pending","reason":"...","ts":"..."} -->
//
// The agent (through /plansmith:gate) writes only a verdict signal,
// <!-- rodin:verdict:signal={"status":"pass|fail","reason":"..."} -->, which
// the PostToolUse hook (Maintain) turns into the validation line. The
// PreToolUse hook on ExitPlanMode (CheckExit) enforces it.

const (
	metaSession    = "rodin:session="
	metaPlanHash   = "rodin:plan:hash="
	metaGapsHash   = "rodin:gaps:hash="
	metaValidation = "rodin:validation="
	metaSignal     = "rodin:verdict:signal="
)

// Validation statuses.
const (
	ValidationPass    = "pass"
	ValidationFail    = "fail"
	ValidationPending = "pending"
)

// Validation is the JSON of a validation line or a verdict signal.
type Validation struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
	TS     string `json:"ts,omitempty"`
}

// Meta is the metadata embedded in a plan file. Fields are empty when their
// comment is absent.
type Meta struct {
	Sessions   []string    // every session marker, in order (normally one)
	PlanHash   string      // recorded plan hash
	GapsHash   string      // recorded gaps hash
	Validation *Validation // nil when absent
	Signal     *Validation // nil when absent
}

// ParseMeta reads the rodin comments of a plan file. It fails, naming the
// line, when a validation or signal comment does not hold a JSON object, or
// when the same hash comment appears twice with different values; the
// enforcing hook treats that as corrupt metadata and blocks.
func ParseMeta(content string) (Meta, error) {
	var m Meta
	var probs []Problem
	for _, l := range scan(content) {
		if l.Kind != kindMeta {
			continue
		}
		key, val := splitMeta(strings.TrimSpace(l.Text))
		switch key {
		case metaSession:
			if val != "" {
				m.Sessions = append(m.Sessions, val)
			}
		case metaPlanHash, metaGapsHash:
			dst := &m.PlanHash
			if key == metaGapsHash {
				dst = &m.GapsHash
			}
			if *dst != "" && *dst != val {
				probs = append(probs, Problem{l.N, "a second " + strings.TrimSuffix(key, "=") + " comment disagrees with the first",
					"delete both hash comments and edit the plan once so the hook rewrites them"})
				continue
			}
			*dst = val
		case metaValidation, metaSignal:
			var v Validation
			if err := json.Unmarshal([]byte(val), &v); err != nil {
				probs = append(probs, Problem{l.N, fmt.Sprintf("%s comment is not valid JSON (%v)", strings.TrimSuffix(key, "="), err),
					"delete the line and re-run the assessment"})
				continue
			}
			if key == metaValidation {
				m.Validation = &v
			} else {
				m.Signal = &v
			}
		}
	}
	return m, joinProblems("rodin metadata", probs)
}

// splitMeta splits "<!-- rodin:key=value -->" into "rodin:key=" and value.
//
// A session marker holds one session id: a "rodin:session=" comment with
// words in it is plan text, which the critic reads and the plan hash
// covers. Metadata is left out of both, and the hook keeps a session
// marker where it stands, so a sentence there ("before step 1, run …")
// passed the gate unread (review DC4).
func splitMeta(t string) (string, string) {
	body := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "<!--"), "-->"))
	for _, k := range []string{metaSession, metaPlanHash, metaGapsHash, metaValidation, metaSignal} {
		if v, ok := strings.CutPrefix(body, k); ok {
			v = strings.TrimSpace(v)
			if k == metaSession && strings.ContainsFunc(v, unicode.IsSpace) {
				return "", ""
			}
			return k, v
		}
	}
	return "", ""
}

// OwnedBy reports whether content carries the session marker of sessionID,
// which is how the hooks find a session's plan file.
func OwnedBy(content, sessionID string) bool {
	if sessionID == "" {
		return false
	}
	m, _ := ParseMeta(content)
	for _, s := range m.Sessions {
		if s == sessionID {
			return true
		}
	}
	return false
}

// Maintain is the PostToolUse transformation of a plan file after an edit in
// plan mode. It appends a session marker for sessionID when the file has
// none (an existing marker is kept where it is, even another session's),
// replaces the hash comments with freshly computed ones, and replaces the
// validation: a verdict signal becomes the validation, stamped with now (UTC,
// RFC 3339); without a signal, any edit resets it to pending. A signal that
// is not JSON, or whose status is not pass or fail, resets to pending with a
// reason saying so. The metadata goes at the end of the file, after one blank
// line (none when the file already ends with its session marker); the rest
// of the file is kept except for the removed metadata lines, trailing blank
// lines, and a code fence left open at the end, which is closed so it cannot
// hide the metadata. The output is stable: maintaining it again with the same
// time changes nothing. Only an empty sessionID is an error.
func Maintain(content, sessionID string, now time.Time) (string, error) {
	if strings.TrimSpace(sessionID) == "" {
		return content, fmt.Errorf("maintain plan metadata: empty session id")
	}
	nl := "\n"
	if strings.Contains(content, "\r\n") {
		nl = "\r\n"
	}
	ts := now.UTC().Format(time.RFC3339)
	var signal *Validation
	signalProblem := ""
	hasSession := false
	var kept []string
	var keptMeta []bool // whether each kept line is a rodin comment
	for _, l := range scan(content) {
		if l.Kind == kindMeta {
			key, val := splitMeta(strings.TrimSpace(l.Text))
			switch key {
			case metaSession:
				hasSession = true
			case metaPlanHash, metaGapsHash, metaValidation:
				continue
			case metaSignal:
				var v Validation
				switch err := json.Unmarshal([]byte(val), &v); {
				case err != nil:
					signal, signalProblem = nil, "the verdict signal was not valid JSON"
				case v.Status != ValidationPass && v.Status != ValidationFail:
					signal, signalProblem = nil, fmt.Sprintf("the verdict signal had status %q (want pass or fail)", v.Status)
				default:
					signal, signalProblem = &v, ""
				}
				continue
			}
		}
		kept = append(kept, l.Text)
		keptMeta = append(keptMeta, l.Kind == kindMeta)
	}
	for len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
		kept = kept[:len(kept)-1]
	}
	// A code block left open would swallow the metadata appended below;
	// closing it at the end changes nothing a reader sees.
	var fence mdtext.Fence
	for _, k := range kept {
		fence.Step(k)
	}
	if fence.Open() {
		kept = append(kept, fence.Closer())
		keptMeta = append(keptMeta, false)
	}
	// The metadata stays one group: no blank line after a session marker
	// that already ends the file.
	sep := "\n\n"
	if len(kept) > 0 && keptMeta[len(kept)-1] {
		sep = "\n"
	}
	body := strings.Join(kept, "\n")

	v := Validation{Status: ValidationPending, Reason: "the plan changed; run the assessment again", TS: ts}
	switch {
	case signal != nil:
		v = Validation{Status: signal.Status, Reason: signal.Reason, TS: ts}
	case signalProblem != "":
		v.Reason = signalProblem + "; run the assessment again"
	}
	vj, err := json.Marshal(v)
	if err != nil {
		return content, fmt.Errorf("maintain plan metadata: %w", err)
	}
	head := ""
	if body != "" {
		head = strings.ReplaceAll(body+sep, "\n", nl)
	}
	// Hash the text as it will be written: the metadata lines are not
	// part of either hash, so the head alone gives the file's hashes.
	var tail []string
	if !hasSession {
		tail = append(tail, "<!-- "+metaSession+sessionID+" -->")
	}
	tail = append(tail,
		"<!-- "+metaPlanHash+PlanHash(head)+" -->",
		"<!-- "+metaGapsHash+GapsHash(head)+" -->",
		"<!-- "+metaValidation+string(vj)+" -->",
	)
	return head + strings.Join(tail, nl) + nl, nil
}

// ExitCase names why ExitPlanMode is allowed or refused.
type ExitCase string

const (
	ExitAllowed        ExitCase = "allowed"
	ExitNoAssessment   ExitCase = "no-assessment"    // no session marker for this session (or metadata deleted)
	ExitNoValidation   ExitCase = "no-validation"    // hashes present, validation missing
	ExitPending        ExitCase = "pending"          // validation pending
	ExitFailed         ExitCase = "failed"           // validation fail, with its reason
	ExitPlanChanged    ExitCase = "plan-changed"     // plan hash does not match
	ExitGapsChanged    ExitCase = "gaps-changed"     // gaps hash does not match
	ExitGapsMissing    ExitCase = "gaps-missing"     // no gaps block
	ExitGapsMalformed  ExitCase = "gaps-malformed"   // broken gaps markers or items
	ExitCorrupt        ExitCase = "corrupt"          // unreadable metadata, missing hashes, unknown status
	ExitNoSessionInput ExitCase = "no-session-input" // the hook input had no session id
)

// Exit is the ExitPlanMode decision.
type Exit struct {
	Allow   bool
	Case    ExitCase
	Message string // for the agent when refused; empty when allowed
}

// CheckExit decides whether the session may leave plan mode with this plan
// file. It fails closed: only a pass validation bound to the current plan and
// gaps hashes, in a file marked with sessionID and carrying a well-formed
// gaps block, is allowed. Checks run in this order, and the first one that
// fails gives the message: session id, session marker, metadata readable,
// gaps block present and well formed, hashes recorded, plan hash, gaps hash,
// validation present, status.
func CheckExit(content, sessionID string) Exit {
	if strings.TrimSpace(sessionID) == "" {
		return refuse(ExitNoSessionInput, nil)
	}
	if !OwnedBy(content, sessionID) {
		return refuse(ExitNoAssessment, nil)
	}
	m, err := ParseMeta(content)
	if err != nil {
		return refuse(ExitCorrupt, map[string]any{"Detail": strings.Join(problemsOf(err), "; ")})
	}
	g, err := ParseGaps(content)
	if err != nil {
		return refuse(ExitGapsMalformed, map[string]any{"Problems": problemsOf(err)})
	}
	if !g.Present {
		return refuse(ExitGapsMissing, nil)
	}
	if m.PlanHash == "" || m.GapsHash == "" {
		return refuse(ExitCorrupt, map[string]any{"Detail": "the plan or gaps hash comment is missing"})
	}
	if m.PlanHash != PlanHash(content) {
		return refuse(ExitPlanChanged, nil)
	}
	if m.GapsHash != GapsHash(content) {
		return refuse(ExitGapsChanged, nil)
	}
	if m.Validation == nil {
		return refuse(ExitNoValidation, nil)
	}
	switch m.Validation.Status {
	case ValidationPass:
		return Exit{Allow: true, Case: ExitAllowed}
	case ValidationPending:
		return refuse(ExitPending, nil)
	case ValidationFail:
		return refuse(ExitFailed, map[string]any{"Reason": m.Validation.Reason})
	}
	return refuse(ExitCorrupt, map[string]any{"Detail": fmt.Sprintf("unknown validation status %q", m.Validation.Status)})
}

func refuse(c ExitCase, extra map[string]any) Exit {
	d := map[string]any{"Command": templates.Slash("gate"), "Start": GapsStart, "End": GapsEnd}
	for k, v := range extra {
		d[k] = v
	}
	return Exit{Case: c, Message: render("gate/exit/"+string(c)+".md", d)}
}

// HasGoals reports whether plan has a Goals section, which the plan-mode
// assessment requires before it runs the critic: a markdown heading, at any
// level, that opens with "Goal", "Goals" or "목표" once numbering, emoji and
// emphasis are set aside ("## Goals / Non-Goals", "## 1. 🎯 Goals", "## Goals
// and success criteria" count; "## Non-Goals", "## 비목표" and "## Out-of-scope
// goals" do not; review CP13: the seed's own "## Goals / Non-Goals" was
// refused).
func HasGoals(plan string) bool {
	for _, l := range scan(plan) {
		if l.Kind != kindText {
			continue
		}
		if _, h, ok := mdtext.Heading(l.Text); ok && opensWithGoals(h) {
			return true
		}
	}
	return false
}

// opensWithGoals reports whether a heading's text opens with the goals.
func opensWithGoals(heading string) bool {
	h := strings.TrimLeftFunc(heading, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	h = strings.TrimLeftFunc(mdtext.StripNumber(h), func(r rune) bool { return !unicode.IsLetter(r) })
	h = strings.ToLower(h)
	if rest, ok := strings.CutPrefix(h, "목표"); ok {
		return rest == "" || !strings.HasPrefix(rest, "치") // "목표치" is a target value
	}
	rest, ok := strings.CutPrefix(h, "goal")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "s")
	return rest == "" || !isWordByteASCII(rest[0]) && rest[0] != '-' // "Goalkeeper", "Goal-setting"
}
