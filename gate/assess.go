package gate

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/internal/lazyre"
	"github.com/plansmith/plansmith/templates"
)

// Names of the files Begin asks the caller to write, relative to Config.Dir.
const (
	CriticFile    = "critic-prompt.md"    // critic instructions + the plan without its gaps
	ValidatorFile = "validator-prompt.md" // validator instructions + the gaps
	PlanFile      = "plan.md"             // the plan under assessment, leakage gaps merged
)

// Config is how the caller runs the gate.
type Config struct {
	// Dir is the directory the caller writes Step.Files into (normally
	// <project>/.claude/plansmith/gate); instructions name files under it.
	Dir string
	// MaxAttempts is how many failed assessments end the gate as failed:
	// with 2, the first failure sends the agent back to revise and the
	// second one fails the gate. Values below 1 mean 1.
	MaxAttempts int
	// Models for the two sub-agents; empty means "opus" and "haiku".
	CriticModel    string
	ValidatorModel string
	// Observed: the client reports sub-agent runs to the hooks, so the
	// agent is told to run the sub-agents and end its turn (AssessObserved)
	// instead of copying their outputs into a reply (Assess).
	Observed bool
}

func (c Config) maxAttempts() int { return max(c.MaxAttempts, 1) }

func (c Config) criticModel() string {
	if c.CriticModel == "" {
		return "opus"
	}
	return c.CriticModel
}

func (c Config) validatorModel() string {
	if c.ValidatorModel == "" {
		return "haiku"
	}
	return c.ValidatorModel
}

func (c Config) path(name string) string {
	if c.Dir == "" {
		return name
	}
	return filepath.Join(c.Dir, name)
}

// Status is where a gate session stands.
type Status string

const (
	StatusNone     Status = ""         // no assessment begun
	StatusAwaiting Status = "awaiting" // critic/validator outputs requested
	StatusRevising Status = "revising" // an assessment failed; waiting for a revised plan
	StatusPassed   Status = "passed"
	StatusFailed   Status = "failed" // attempts exhausted or outputs unreadable: plan unverified
)

// Session is the gate's state between hook calls. The caller persists it (in
// the loop's YAML frontmatter) and hands it back unchanged.
type Session struct {
	Status          Status    `yaml:"status,omitempty" json:"status,omitempty"`
	PlanHash        string    `yaml:"plan_hash,omitempty" json:"plan_hash,omitempty"`
	GapsHash        string    `yaml:"gaps_hash,omitempty" json:"gaps_hash,omitempty"`
	Attempts        int       `yaml:"attempts,omitempty" json:"attempts,omitempty"` // failed assessments so far
	CriticReruns    int       `yaml:"critic_reruns,omitempty" json:"critic_reruns,omitempty"`
	ValidatorReruns int       `yaml:"validator_reruns,omitempty" json:"validator_reruns,omitempty"`
	LeakageGaps     []string  `yaml:"leakage_gaps,omitempty" json:"leakage_gaps,omitempty"` // "GAP-4: title" added this assessment
	Findings        Counts    `yaml:"findings,omitempty" json:"findings,omitempty"`         // of the last readable critic output
	Uncovered       []Finding `yaml:"uncovered,omitempty" json:"uncovered,omitempty"`       // of the last failed assessment
	// Failed is the digest (see digest) of the plan and gaps the last
	// assessment failed on for its Uncovered findings: the same plan sent
	// again is sent back (Begin), not assessed afresh.
	Failed string `yaml:"failed,omitempty" json:"failed,omitempty"`
	// Observed: the assessment judges runs the hooks observed (Config.Observed at Begin).
	Observed bool `yaml:"observed,omitempty" json:"observed,omitempty"`
}

// Action says what the caller does with a Step.
type Action string

const (
	// ActionFix: the plan cannot be assessed yet (gaps block missing or
	// malformed). Block with Reason; no assessment is used up.
	ActionFix Action = "fix"
	// ActionRun: write Files under Config.Dir, keep Plan as the plan under
	// assessment, and block with Reason (run critic, then validator).
	ActionRun Action = "run"
	// ActionRerun: one output was unreadable; block with Reason asking
	// for a re-run.
	ActionRerun Action = "rerun"
	// ActionRevise: the assessment failed and attempts remain; block with
	// Reason, which names the uncovered findings.
	ActionRevise Action = "revise"
	// ActionPass: the gate passed; save the plan with Record.
	ActionPass Action = "passed"
	// ActionFail: the gate failed for good; save the plan marked
	// unverified with Record (its uncovered findings).
	ActionFail Action = "failed"
	// ActionWait: a sub-agent run of this assessment is still in flight, so
	// the agent is waiting for it, not answering: let the stop happen and
	// change nothing (AssessObserved).
	ActionWait Action = "wait"
)

// Step is the gate's decision for one hook call.
type Step struct {
	Action  Action
	Reason  string            // the text for the agent (or, on pass/fail, for the user)
	Files   map[string]string // ActionRun: Config.Dir-relative name → content
	Plan    string            // ActionRun: the plan under assessment (leakage merged); pass it to Assess
	Added   []Gap             // ActionRun: gaps the leakage scan added
	Session Session           // the state to persist
	Record  *Record           // ActionPass and ActionFail
}

// Record is the gate's verdict for the saved plan's frontmatter.
type Record struct {
	Status      string    `yaml:"status" json:"status"`     // "passed" or "failed"
	Verified    bool      `yaml:"verified" json:"verified"` // false marks the plan unverified
	PlanHash    string    `yaml:"plan_hash" json:"plan_hash"`
	GapsHash    string    `yaml:"gaps_hash" json:"gaps_hash"`
	Findings    Counts    `yaml:"findings" json:"findings"`
	Gaps        int       `yaml:"gaps" json:"gaps"`
	Covered     []string  `yaml:"covered,omitempty" json:"covered,omitempty"` // labels of high/medium findings judged covered
	Uncovered   []Finding `yaml:"uncovered,omitempty" json:"uncovered,omitempty"`
	Attempts    int       `yaml:"attempts" json:"attempts"` // assessments made, the last one included
	LeakageGaps []string  `yaml:"leakage_gaps,omitempty" json:"leakage_gaps,omitempty"`
	Note        string    `yaml:"note,omitempty" json:"note,omitempty"` // why the hook overrode the validator or failed closed
	// Evidence is EvidenceObserved or EvidenceRelayed: whether the verdict
	// rests on runs the hooks saw or on outputs the agent copied; Runs are
	// the observed critic and validator runs it rests on.
	Evidence string      `yaml:"evidence,omitempty" json:"evidence,omitempty"`
	Runs     []RunRecord `yaml:"runs,omitempty" json:"runs,omitempty"`
}

// Stale reports whether plan is not the plan s was begun on: its plan or
// gaps hash differs from the recorded one, or nothing was recorded.
func Stale(plan string, s Session) bool {
	return s.PlanHash == "" || PlanHash(plan) != s.PlanHash || GapsHash(plan) != s.GapsHash
}

// Begin starts an assessment of plan. It requires a well-formed gaps block
// (otherwise ActionFix with the format, or the line-precise problems), no
// plan-mode metadata comments, and, while revising after a failed
// assessment, a plan other than the one that failed (ActionFix naming the
// findings); it merges leaked uncertainty into the gaps (MergeLeakage),
// binds the session to the merged plan's hashes, and returns ActionRun with
// the files to write and the instructions. Failed attempts carry over from
// s; re-run counters reset.
func Begin(plan string, s Session, cfg Config) Step {
	if lines := metadataLines(plan); len(lines) > 0 {
		return Step{Action: ActionFix, Session: s, Reason: render("gate/metadata-in-plan.md", map[string]any{"Lines": lines})}
	}
	g, err := ParseGaps(plan)
	if err == nil && !g.Present {
		return Step{Action: ActionFix, Session: s, Reason: render("gate/gaps-missing.md", map[string]any{
			"Start": GapsStart, "End": GapsEnd,
		})}
	}
	if err != nil {
		return Step{Action: ActionFix, Session: s, Reason: render("gate/gaps-malformed.md", map[string]any{
			"Problems": problemsOf(err), "Start": GapsStart, "End": GapsEnd,
		})}
	}
	merged, added, err := MergeLeakage(plan)
	if err != nil {
		// ParseGaps accepted the block, so this is not the agent's doing;
		// assess the plan as written rather than block forever.
		merged, added = plan, nil
	}

	if s.Status == StatusRevising && s.Failed != "" && len(s.Uncovered) > 0 && digest(merged) == s.Failed {
		// A second critic on the plan a first one failed is a second
		// draw, not a revision: the findings stand (review DC7: the same
		// plan sent back after a FAIL passed on a softer critic).
		return Step{Action: ActionFix, Session: s, Reason: render("gate/unchanged.md", map[string]any{
			"Uncovered": s.Uncovered, "Start": GapsStart, "End": GapsEnd,
		})}
	}
	next := Session{
		Status:   StatusAwaiting,
		PlanHash: PlanHash(merged),
		GapsHash: GapsHash(merged),
		Attempts: s.Attempts,
		Observed: cfg.Observed,
	}
	for _, a := range added {
		next.LeakageGaps = append(next.LeakageGaps, a.Label()+": "+a.Title)
	}
	prompts := PromptsOf(merged)
	files := map[string]string{
		CriticFile:    prompts.Critic,
		ValidatorFile: prompts.Validator,
		PlanFile:      merged,
	}
	return Step{
		Action:  ActionRun,
		Files:   files,
		Plan:    merged,
		Added:   added,
		Session: next,
		Reason:  render("gate/begin.md", cfg.data(next, map[string]any{"Added": added})),
	}
}

// digest identifies a plan and its gaps with white space set aside, so
// that the same plan re-wrapped or re-indented is still the same plan.
func digest(plan string) string {
	return hashText(normalise(PlanContent(plan)) + "\n" + normalise(GapsContent(plan)))
}

// metadataLines returns plan's lines that are rodin metadata comments
// (<!-- rodin:session=… -->, hashes, a validation or a verdict signal).
// They are plan mode's; in a loop's plan nothing reads them, yet they are
// left out of the plan hash and of what the critic reads, and kept in the
// plan saved: a step written into one was saved as verified without any
// critic having read it, and a validation line could say "pass" on a plan
// that failed (review DC4).
func metadataLines(plan string) []line {
	var out []line
	for _, l := range scan(plan) {
		if l.Kind == kindMeta {
			out = append(out, l)
		}
	}
	return out
}

// PromptsOf gives the assessment's prompts for plan: the critic's (its
// instructions and CriticInput: the plan without its gaps and metadata)
// and the validator's instructions (its rubric and the plan's gaps; the
// critic's output follows them).
func PromptsOf(plan string) Prompts {
	input, gaps := CriticInput(plan), strings.TrimSpace(GapsContent(plan))
	return Prompts{
		Critic:    render("gate/critic.md", map[string]any{"Plan": input, "Fence": fenceFor("PLAN", input)}),
		Validator: render("gate/validator.md", map[string]any{"Gaps": gaps, "Fence": fenceFor("GAPS", input+"\n"+gaps)}),
	}
}

// fenceFor names the pair of lines, BEGIN name and END name, that enclose
// text the agent wrote inside a sub-agent's prompt: the plan in the
// critic's, the gaps in the validator's. The prompt tells the sub-agent the
// text is material, not instructions; a line of the text that imitated the
// END line would end the material early, and what followed would read as
// the prompt's own words. The name carries the hash of a text that holds
// the fenced one, which the text cannot contain (it would have to hold its
// own hash), so it cannot be imitated. The gaps' fence hashes the plan the
// critic reads too: the critic's output follows the gaps in the
// validator's prompt, and a fence named by the gaps alone was a name the
// agent could write into the plan, with the gaps kept, for the critic to
// quote (review FF1).
func fenceFor(what, text string) string {
	return what + "-" + hashText(text)[:16]
}

// CriticInput is the plan as the critic reads it: PlanContent (without the
// gaps block and rodin metadata), then, under a heading of its own, any
// text the gaps block holds outside its gaps (LooseText), which is part
// of the plan as saved and must not pass unread (review DC1).
func CriticInput(plan string) string {
	return strings.TrimSpace(render("gate/critic-input.md", map[string]any{
		"Plan": strings.TrimSpace(PlanContent(plan)), "Loose": strings.TrimSpace(LooseText(plan)),
	}))
}

// Instructions repeats what the agent must do for the assessment s awaits
// (Begin's message, without re-running it): for a session resumed or
// compacted while the gate waits for its sub-agents.
func Instructions(s Session, cfg Config) string {
	var added []Gap
	return render("gate/begin.md", cfg.data(s, map[string]any{"Added": added}))
}

// Assess judges the agent's reply to a Begin or re-run step. plan is the
// plan under assessment (Step.Plan of Begin); when it is Stale, or s is not
// awaiting a reply, Assess starts afresh with Begin. An unreadable or missing
// part is re-run once (the critic's re-run includes the validator's, whose
// input it changes); a second failure of the same sub-agent fails closed,
// counting as a failed assessment. Over a readable reply the hook checks the
// validator's word:
//   - no FAIL is overruled into a pass: one the findings as read do not
//     explain (only low ones, NO ISSUES FOUND, or a finding they lack)
//     runs the critic again, then fails closed (see judge: a finding the
//     reading lost); NO ISSUES FOUND with a PASS and an empty block passes;
//   - PASS with high or medium findings and no gaps at all is a FAIL;
//   - on FAIL, the uncovered findings are the high/medium ones the reason
//     names, or all high/medium ones when it names none of them.
//
// A failed assessment goes back to revise until Config.MaxAttempts failed
// assessments have been made, then the gate fails (ActionFail).
func Assess(plan, reply string, s Session, cfg Config) Step {
	if s.Status != StatusAwaiting || Stale(plan, s) {
		return Begin(plan, s, cfg)
	}
	g, err := ParseGaps(plan)
	if err != nil || !g.Present {
		return Begin(plan, s, cfg)
	}
	r := SplitReply(reply)
	cfg.Observed = false
	step := judge(plan, g, part{r.HasCritic, r.Critic}, part{r.HasValidator, r.Validator}, s, cfg)
	if step.Record != nil {
		step.Record.Evidence = EvidenceRelayed
	}
	return step
}

// part is one sub-agent's output as the judge receives it.
type part struct {
	has  bool
	text string
}

// judge decides an assessment on the two outputs (see Assess);
// cfg.Observed only changes what a re-run message asks of the agent.
// seriousSeverityRe finds a high or medium severity given in any shape a
// model writes one ("- **Severity**: high", "**Severity:** **Medium**",
// "Severity — HIGH", "Impact: High", "(High)", "[HIGH]", "Critical"). It
// is asked only where the findings read are all low and the gaps block is
// empty, or the output says it found nothing (reviews BD2, BE2, BE3); a
// legend or a quoted alert rule then costs a re-run (review BE1).
var seriousSeverityRe = lazyre.New(`(?i)(?:severity|sev|impact|priority|risk)(?:\s+level)?[\s*_:—–\-]*(?:\W\s*){0,3}(?:high|highest|medium|moderate|med|critical|major|blocker|p[01])\b` +
	`|[\[(|]\s*(?:high|medium|moderate|critical|major)(?:[\s-]+(?:risk|severity))?\s*[\])|]` +
	`|\b(?:high|medium|moderate|critical)[\s-]+(?:severity|risk|priority|impact)\b|🔴|🟠`)

// rerun asks for the critic's (or the validator's) run once more, for
// problem; a second time the assessment fails closed.
func rerun(plan string, s Session, cfg Config, critic bool, problem error) Step {
	reruns, who := &s.ValidatorReruns, "validator"
	if critic {
		reruns, who = &s.CriticReruns, "critic"
	}
	if *reruns > 0 {
		return failClosed(plan, s, cfg, who, problem)
	}
	*reruns++
	return Step{Action: ActionRerun, Session: s,
		Reason: render("gate/rerun.md", cfg.data(s, map[string]any{"Critic": critic, "Problem": problem.Error()}))}
}

func judge(plan string, g Gaps, crit, val part, s Session, cfg Config) Step {
	findings, critErr := parsePart(crit.has, crit.text, CriticTag, ParseFindings)
	if critErr != nil {
		return rerun(plan, s, cfg, true, critErr)
	}
	verdict, valErr := parsePart(val.has, val.text, ValidatorTag, ParseVerdict)
	if valErr != nil {
		return rerun(plan, s, cfg, false, valErr)
	}

	// A verdict the findings as read do not explain means a finding was
	// lost in the reading (written in another shape), and overruling it
	// would pass a plan with a serious finding uncovered (reviews BB3, BC1,
	// BD1, BD2): a FAIL that names a finding they lack, a FAIL over only
	// low ones, or a PASS over an empty gaps block while the output gives a
	// high or medium severity as a field outside every finding read. The
	// critic runs again; a second time the assessment fails closed.
	var lost error
	switch {
	case !verdict.Pass:
		for _, id := range verdict.Refs {
			if _, ok := findings.ByID(id); !ok {
				lost = fmt.Errorf("the validator names FINDING-%d, which the critic's output does not hold in the form plansmith reads", id)
				break
			}
		}
		if lost == nil && len(findings.Serious()) == 0 {
			// NO ISSUES FOUND included: a FAIL is never overruled into a
			// pass (review BF3).
			lost = errors.New("the validator failed the plan, but the critic's output holds no high or medium finding in the form plansmith reads")
		}
	case len(g.Items) == 0 && len(findings.Serious()) == 0 && seriousSeverityRe.MatchString(crit.text):
		lost = errors.New("the critic's output gives a high or medium severity outside every finding plansmith reads, and the plan documents no gaps")
	}
	if lost == nil && findings.NoIssues && seriousSeverityRe.MatchString(crit.text) {
		// NO ISSUES FOUND, then a finding after all (review BE3).
		lost = errors.New("the critic's output says it found no issues and gives a high or medium severity")
	}
	if lost != nil {
		return rerun(plan, s, cfg, true, lost)
	}
	counts := findings.Counts()
	s.Findings = counts
	serious := findings.Serious()
	var uncovered []Finding
	note := ""
	switch {
	case len(serious) == 0:
		if !verdict.Pass {
			note = "validator FAIL overridden: the critic reported no high or medium findings"
		}
	case verdict.Pass && len(g.Items) == 0:
		uncovered = serious
		note = fmt.Sprintf("validator PASS overridden: %d high/medium findings and the plan documents no gaps", len(serious))
	case verdict.Pass:
	default:
		for _, id := range verdict.Refs {
			if f, ok := findings.ByID(id); ok && (f.Severity == High || f.Severity == Medium) {
				uncovered = append(uncovered, f)
			}
		}
		if len(uncovered) == 0 {
			uncovered = serious
			note = "validator FAIL named no high/medium finding; all of them count as uncovered"
		}
	}

	rec := &Record{
		PlanHash:    s.PlanHash,
		GapsHash:    s.GapsHash,
		Findings:    counts,
		Gaps:        len(g.Items),
		Uncovered:   uncovered,
		LeakageGaps: s.LeakageGaps,
		Note:        note,
	}
	for _, f := range serious {
		if !containsFinding(uncovered, f.ID) {
			rec.Covered = append(rec.Covered, f.Label())
		}
	}
	if len(uncovered) == 0 {
		s.Status = StatusPassed
		s.Uncovered = nil
		rec.Status, rec.Verified, rec.Attempts = string(StatusPassed), true, s.Attempts+1
		return Step{Action: ActionPass, Session: s, Record: rec,
			Reason: render("gate/passed.md", map[string]any{"Record": rec})}
	}
	s.Attempts++
	s.Uncovered = uncovered
	s.Failed = digest(plan)
	rec.Attempts = s.Attempts
	if s.Attempts >= cfg.maxAttempts() {
		s.Status = StatusFailed
		rec.Status = string(StatusFailed)
		return Step{Action: ActionFail, Session: s, Record: rec,
			Reason: render("gate/failed.md", cfg.data(s, map[string]any{"Uncovered": uncovered, "Unreadable": ""}))}
	}
	s.Status = StatusRevising
	return Step{Action: ActionRevise, Session: s,
		Reason: render("gate/revise.md", cfg.data(s, map[string]any{"Uncovered": uncovered, "Unreadable": ""}))}
}

// failClosed ends an assessment whose sub-agent output stayed unreadable
// after its re-run: it is a failed assessment, never a pass.
func failClosed(plan string, s Session, cfg Config, who string, cause error) Step {
	s.Attempts++
	s.Uncovered = nil
	g, _ := ParseGaps(plan)
	rec := &Record{
		Status:      string(StatusFailed),
		PlanHash:    s.PlanHash,
		GapsHash:    s.GapsHash,
		Findings:    s.Findings,
		Gaps:        len(g.Items),
		Attempts:    s.Attempts,
		LeakageGaps: s.LeakageGaps,
		Note:        fmt.Sprintf("%s output unreadable twice: %v", who, cause),
	}
	data := map[string]any{"Uncovered": []Finding(nil), "Unreadable": who, "Problem": cause.Error()}
	if s.Attempts >= cfg.maxAttempts() {
		s.Status = StatusFailed
		return Step{Action: ActionFail, Session: s, Record: rec, Reason: render("gate/failed.md", cfg.data(s, data))}
	}
	s.Status = StatusRevising
	return Step{Action: ActionRevise, Session: s, Reason: render("gate/revise.md", cfg.data(s, data))}
}

func parsePart[T any](has bool, text, tag string, parse func(string) (T, error)) (T, error) {
	if !has {
		var zero T
		return zero, fmt.Errorf("%w: the reply has no <%s>…</%s> part", ErrUnparseable, tag, tag)
	}
	return parse(text)
}

func containsFinding(fs []Finding, id int) bool {
	for _, f := range fs {
		if f.ID == id {
			return true
		}
	}
	return false
}

// data is the template data every gate message shares, plus extra.
func (c Config) data(s Session, extra map[string]any) map[string]any {
	d := map[string]any{
		"CriticPath":     c.path(CriticFile),
		"ValidatorPath":  c.path(ValidatorFile),
		"CriticModel":    c.criticModel(),
		"ValidatorModel": c.validatorModel(),
		"CriticTag":      CriticTag,
		"ValidatorTag":   ValidatorTag,
		"Attempt":        s.Attempts + 1,
		"Attempts":       s.Attempts,
		"MaxAttempts":    c.maxAttempts(),
		"Start":          GapsStart,
		"End":            GapsEnd,
		"Observed":       c.Observed,
	}
	for k, v := range extra {
		d[k] = v
	}
	return d
}

// problemsOf lists a parse error's problems as lines for a message.
func problemsOf(err error) []string {
	var fe *FormatError
	if errors.As(err, &fe) {
		out := make([]string, len(fe.Problems))
		for i, p := range fe.Problems {
			out[i] = p.String()
		}
		return out
	}
	return []string{err.Error()}
}

// render executes an embedded gate template. The templates are compiled in
// and every one is rendered by the package tests, so an error here is a
// build defect; it still yields a readable message instead of a panic.
func render(name string, data any) string {
	return strings.TrimSpace(templates.Show(name, data))
}
