package state

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/gate"
)

// Loop is the state file's frontmatter: the options the loop started with
// and its progress. Large texts (phase outputs) live in the body, so that
// parsing the frontmatter stays cheap however long a session runs.
type Loop struct {
	Active    bool      `yaml:"active"`
	SessionID string    `yaml:"session_id"`
	StartedAt time.Time `yaml:"started_at"`
	Request   string    `yaml:"request"`
	// Project is the folder the loop was started in. A state file found in
	// another folder (committed to a repository and cloned) is not run.
	Project string `yaml:"project,omitempty"`
	// ID is a random name plansmith plan gives the loop and records under
	// the user's home (internal/provenance): a session takes on only a loop
	// started on this machine, not one a repository carries for the path
	// it is cloned to (review V3).
	ID string `yaml:"loop_id,omitempty"`

	// Continued lists sessions that carry the loop's conversation on under
	// another id (a fork, a /clear): they are held to the loop as SessionID
	// is (HeldBy).
	Continued []string `yaml:"continued,omitempty"`

	// Options.
	Phases            []string `yaml:"phases"`
	RefineIterations  int      `yaml:"refine_iterations"`
	MaxPhases         int      `yaml:"max_phases"`
	MaxRetries        int      `yaml:"max_retries"`
	CritiqueMode      string   `yaml:"critique_mode"` // CritiquePrinciples, CritiqueOpen or CritiqueConverge
	UseMemory         bool     `yaml:"use_memory"`
	BlockTools        bool     `yaml:"block_tools"`
	RequiredSections  []string `yaml:"required_sections"`
	CompletionPromise string   `yaml:"completion_promise"`
	Gate              bool     `yaml:"gate"`
	GateRetries       int      `yaml:"gate_retries"`
	Agent             string   `yaml:"agent,omitempty"` // the agent the loop runs in: "" (Claude Code) or AgentCodex
	// Files written before critique_mode said "converge" also carry
	// `converge: true`; it is ignored, as critique_mode says the same.

	// Progress.
	Phase             string         `yaml:"phase"`       // name of the current phase, for people reading the file
	PhaseIndex        int            `yaml:"phase_index"` // index into Phases; len(Phases) is iterate
	Retries           int            `yaml:"retries"`     // failed validations in the current phase
	RetriesTotal      int            `yaml:"retries_total"`
	Transitions       int            `yaml:"transitions"`
	ConsecutiveBlocks int            `yaml:"consecutive_blocks"` // the longest run of Stop blocks below (or, in files from before it, the holder's)
	Blocks            map[string]int `yaml:"blocks,omitempty"`   // each session's run of Stop blocks since its last tool call or prompt: the client counts them apart
	Paused            bool           `yaml:"paused"`
	PausedReason      string         `yaml:"paused_reason,omitempty"` // what the paused block would have said
	LastProblems      []string       `yaml:"last_problems,omitempty"`
	FinalNext         bool           `yaml:"final_next,omitempty"` // the current or next revise is the final one (set by convergence mode)
	// CancelAsked is set when the user's last prompt was the cancel command:
	// until their next prompt the agent may run plansmith cancel.
	CancelAsked bool `yaml:"cancel_asked,omitempty"`
	// AsideOf names the sessions whose user's last prompt was one of
	// plansmith's own commands that only read (status, memory, help):
	// such a session's turn is no phase answer, and its Stop lets the turn
	// end unjudged. Another session's Stop or prompt leaves it; that
	// session's new turn ends it.
	AsideOf []string `yaml:"aside_of,omitempty"`
	// Scheduled holds, per session, the hashes (loop.promptHash) of the
	// prompts its scheduled tasks will submit (the Stop's session_crons:
	// CronCreate, ScheduleWakeup, /loop), as its last Stop listed them:
	// such a prompt, when it comes, is the client's, not the user's.
	Scheduled map[string][]string `yaml:"scheduled,omitempty"`
	// LastStop marks the last answer a Stop judged: a second Stop of the
	// same turn (plansmith's hooks registered twice, as a plugin and in
	// settings, run side by side) must not judge it again (review BT1).
	LastStop *StopMark `yaml:"last_stop,omitempty"`

	// Convergence mode's record (--converge); nil outside it.
	Convergence *Convergence `yaml:"convergence,omitempty"`

	// Records kept for the saved plan and memory.
	PrincipleFails []PrincipleFail `yaml:"principle_fails,omitempty"`
	CritiqueRounds int             `yaml:"critique_rounds"`

	// The gap-coverage gate in the final revise.
	GateSession gate.Session `yaml:"gate_session,omitempty"`
	GateRecord  *gate.Record `yaml:"gate_record,omitempty"`
	GateMissed  []string     `yaml:"gate_missed,omitempty"` // uncovered findings of every failed assessment, for memory
	GateRuns    gate.Runs    `yaml:"gate_runs,omitempty"`   // critic and validator runs the hooks observed

	// Set when the loop ends.
	ExitReason string    `yaml:"exit_reason,omitempty"`
	EndedAt    time.Time `yaml:"ended_at,omitempty"`
}

// StopMark is an answer a Stop judged: the session's, its hash, and when
// the judgment was written.
type StopMark struct {
	Session string    `yaml:"session"`
	Hash    string    `yaml:"hash"`
	At      time.Time `yaml:"at"`
}

// Repeats reports whether a Stop of session with answer msg that began at
// began, and reads m at now, is the one m marks, run again: the same
// session and answer, begun before the judgment was written. A Stop that
// follows the judgment (the agent gave the same answer again) began after
// it, and is judged. A duplicate reads the judgment after it was written,
// so a now before m.At is a clock set back since then (or a mark from a
// clock ahead): the times say nothing, and the Stop is judged rather than
// a new answer let through unjudged.
func (m *StopMark) Repeats(session, msg string, began, now time.Time) bool {
	return m != nil && session != "" && !began.IsZero() && m.Session == session &&
		m.Hash == answerHash(msg) && began.Before(m.At) && !now.Before(m.At)
}

// MarkStop records that session's answer msg is judged, as of now.
func (l *Loop) MarkStop(session, msg string, now time.Time) {
	if session == "" {
		return
	}
	l.LastStop = &StopMark{Session: session, Hash: answerHash(msg), At: now.UTC()}
}

func answerHash(msg string) string {
	sum := sha256.Sum256([]byte(msg))
	return hex.EncodeToString(sum[:])
}

// Convergence is what convergence mode keeps between Stop-hook calls: the
// challenge ledger (its iteration, rounds and every challenge with its
// status history), the complexity assessment that picked the critique
// team, the last critique's scores, and the last decision.
type Convergence struct {
	Verdict    converge.Verdict     `yaml:"verdict,omitempty"` // empty while the loop continues
	Next       converge.Next        `yaml:"next,omitempty"`    // what the last decision said comes next
	Reason     string               `yaml:"reason,omitempty"`  // why, in one sentence
	Complexity *converge.Complexity `yaml:"complexity,omitempty"`
	Scores     *converge.Scores     `yaml:"scores,omitempty"`
	Ledger     converge.Ledger      `yaml:"ledger"`
}

// PrincipleFail is one principle a critique judged FAIL, kept for memory.
type PrincipleFail struct {
	Round     int    `yaml:"round"`
	Principle string `yaml:"principle"`
	Note      string `yaml:"note,omitempty"`
}

// Critique modes (Loop.CritiqueMode).
const (
	CritiquePrinciples = "principles" // the 12 principles, PASS/FAIL
	CritiqueOpen       = "open"       // free-form
	CritiqueConverge   = "converge"   // convergence mode: a challenge ledger
)

// Exit reasons.
const (
	ExitCompleted        = "completed"
	ExitCancelled        = "cancelled"
	ExitMaxPhases        = "max_phases_reached"
	ExitRetriesExhausted = "retries_exhausted"
	ExitGateFailed       = "gate_failed"
	ExitRethink          = "rethink"
	ExitCorrupt          = "corrupt"
)

// AgentCodex marks a loop started for Codex CLI (`plansmith plan --agent
// codex`): its gate cannot run there (docs/codex.md), which the saved plan
// records.
const AgentCodex = "codex"

// HeldBy reports whether session is the loop's own (SessionID) or one that
// continues it (Continued).
func (l Loop) HeldBy(session string) bool {
	return session != "" && (l.SessionID == session || slices.Contains(l.Continued, session))
}
