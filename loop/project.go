package loop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/plansmith/plansmith/gitcheck"
	"github.com/plansmith/plansmith/state"
)

// Project is where a command run by hand or by the agent (plan, status,
// cancel, memory, ...) stands. Claude Code gives such a command no
// $CLAUDE_PROJECT_DIR: the Bash tool and a slash command's `!` line run in
// the session's current folder, which a `cd` moves, and on Claude Code
// 2.1.330 keeps moved into later prompts. The hooks, though, always know
// the project and search it (see hookProject). So the command learns the
// project from Claude Code's record of its session: the transcript
// <config>/projects/<key of the project>/<session id>.jsonl, which exists
// from the session's first prompt on (TestPlanKeptInTheProjectAfterACd).
type Project struct {
	// Dir is the project: the folder Claude Code runs in when Known, else
	// the working directory.
	Dir string
	// Known is true when Dir is the folder Claude Code runs in:
	// $CLAUDE_PROJECT_DIR, or the folder at or above the working directory
	// that the session's transcript is kept for.
	Known bool
	// Session is $CLAUDE_CODE_SESSION_ID: the command runs inside a Claude
	// Code session (its Bash tool, or a `!` line).
	Session string
	// Wd is the working directory.
	Wd string
	// Looked is where the session's transcript was looked for, when the
	// search failed: for the message that says so.
	Looked string
}

// CommandProject finds the project of a command run by hand or by the
// agent: inside a Claude Code session, the folder at or above the working
// directory whose transcript folder holds the session's transcript; else
// $CLAUDE_PROJECT_DIR when set; else the working directory (not Known).
func (e Env) CommandProject() (Project, error) {
	wd, err := e.Getwd()
	if err != nil {
		// The working folder is gone (deleted under the process):
		// $CLAUDE_PROJECT_DIR, when set, still names the project (review
		// X, F1).
		if d := e.Getenv("CLAUDE_PROJECT_DIR"); d != "" && filepath.IsAbs(d) {
			return Project{Dir: d, Wd: d, Known: true, Session: e.Getenv("CLAUDE_CODE_SESSION_ID")}, nil
		}
		return Project{}, fmt.Errorf("finding the project directory: %w", err)
	}
	p := Project{Dir: wd, Wd: wd, Session: e.Getenv("CLAUDE_CODE_SESSION_ID")}
	// Inside a session the transcript says where Claude Code runs, and so
	// where its hooks look. It wins over $CLAUDE_PROJECT_DIR, which Claude
	// Code sets for hooks, not for the Bash tool: one set there came from
	// the user's own environment and may name another folder, where a loop
	// would go unenforced (the review of the plumbing, F6).
	if p.Session != "" {
		projects := claudeProjects(e.Getenv)
		p.Looked = projects
		if projects != "" && safeSessionID(p.Session) {
			if d, ok := sessionProject(projects, p.Session, wd); ok {
				p.Dir, p.Known = d, true
				return p, nil
			}
		}
	}
	if d := e.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
		p.Dir, p.Known = d, true
	}
	return p, nil
}

// LoopPaths locates the loop a command run by hand or by the agent acts on
// (status, cancel): the loop the hooks would find from the working
// directory. With the project known that is hookProject's answer; without,
// the nearest folder at or above the working directory that holds a
// loop's state, else the working directory.
func (e Env) LoopPaths() (state.Paths, error) {
	p, err := e.CommandProject()
	if err != nil {
		return state.Paths{}, err
	}
	if p.Known {
		return state.Paths{Project: hookProject(p.Wd, p.Dir, p.Session)}, nil
	}
	for dir := filepath.Clean(p.Wd); ; dir = filepath.Dir(dir) {
		if hasState(dir) {
			return state.Paths{Project: dir}, nil
		}
		if filepath.Dir(dir) == dir {
			return state.Paths{Project: p.Wd}, nil
		}
	}
}

// claudeProjects is the folder Claude Code keeps its projects' transcripts
// in: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects; "" when neither
// can be told, or when $CLAUDE_CODE_PROJECT_DIR_NAME renames a project's
// transcript folder (its name no longer says the project).
func claudeProjects(getenv func(string) string) string {
	if getenv("CLAUDE_CODE_PROJECT_DIR_NAME") != "" {
		return ""
	}
	if d := strings.TrimSpace(getenv("CLAUDE_CONFIG_DIR")); d != "" {
		return filepath.Join(d, "projects")
	}
	for _, k := range []string{"HOME", "USERPROFILE"} {
		if h := getenv(k); h != "" {
			return filepath.Join(h, ".claude", "projects")
		}
	}
	return ""
}

// safeSessionID reports whether id can name a file: Claude Code's session
// ids are UUIDs; anything with a separator or a dot is refused.
func safeSessionID(id string) bool {
	if id == "" || len(id) > 200 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// sessionProject is the folder at or above wd (as spelled, then with
// symbolic links resolved) whose transcript folder under projects holds
// session's transcript. The keys of two different ancestors differ (a key
// is as long as its path; past 200 characters, only a hash collision could
// make two agree), so at most one matches.
func sessionProject(projects, session, wd string) (string, bool) {
	dirs := []string{filepath.Clean(wd)}
	if real, err := filepath.EvalSymlinks(wd); err == nil && real != dirs[0] {
		dirs = append(dirs, real)
	}
	for _, start := range dirs {
		if !filepath.IsAbs(start) {
			continue
		}
		for dir := start; ; dir = filepath.Dir(dir) {
			fi, err := os.Stat(filepath.Join(projects, ProjectKey(dir), session+".jsonl"))
			if err == nil && fi.Mode().IsRegular() {
				return dir, true
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", false
}

// projectKeyMax is how many characters of a project's key Claude Code keeps
// before it shortens the key with a hash.
const projectKeyMax = 200

// ProjectKey is the name of the folder Claude Code keeps a project's
// transcripts in under ~/.claude/projects: the path with every UTF-16 code
// unit that is not an ASCII letter or digit replaced by '-', and past 200
// of them, the first 200, '-' and the base-36 absolute value of the path's
// 32-bit string hash (h = 31*h + unit). Read from both supported CLIs
// (2.1.197 and 2.1.330 compute it alike).
func ProjectKey(dir string) string {
	units := utf16.Encode([]rune(dir))
	key := make([]byte, len(units))
	for i, u := range units {
		if u < 0x80 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			key[i] = byte(u)
		} else {
			key[i] = '-'
		}
	}
	if len(key) <= projectKeyMax {
		return string(key)
	}
	var h int32
	for _, u := range units {
		h = h*31 + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(key[:projectKeyMax]) + "-" + strconv.FormatInt(abs, 36)
}

// checkoutRoot is the nearest folder at or above dir holding a .git that
// git takes for a checkout's (see checkout: an empty .git folder, say one
// left in /tmp, makes no root): where Codex takes a project's root to be.
// "" when there is none or dir is not absolute.
func checkoutRoot(dir string) string {
	if !filepath.IsAbs(dir) {
		return ""
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if gitcheck.IsCheckout(filepath.Join(d, ".git")) {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// CodexProject is where plansmith plan --agent codex keeps a loop started
// in wd: the checkout's root, which Codex's hooks search up to from the
// folder Codex runs in (hookProject), wherever in it the model ran plan;
// wd when it is in no checkout.
func CodexProject(wd string) string {
	if root := checkoutRoot(wd); root != "" {
		return root
	}
	return wd
}

// CodexHome is $CODEX_HOME, else ~/.codex; "" when neither is known.
func CodexHome(getenv func(string) string) string {
	if d := getenv("CODEX_HOME"); d != "" {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// CodexThreadFolder is the folder the Codex thread the command runs in
// runs in now: Codex gives the commands its model runs $CODEX_THREAD_ID
// (0.169.0 does), and the thread's record,
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread>.jsonl, names the
// folder of each turn (rolloutFolder).
// That is where Codex's hooks look for a loop from (hookProject), so a loop
// started from a folder below it, in a checkout of its own (a nested
// repository, a submodule) or in none, must be kept at CodexProject of this
// folder instead, or no hook would find it (review AS1). thread is "" when
// the command does not run in Codex (a terminal); found is false when the
// thread's record cannot be read (a session run with --ephemeral keeps
// none).
func (e Env) CodexThreadFolder() (dir, thread string, found bool) {
	thread = e.Getenv("CODEX_THREAD_ID")
	home := CodexHome(e.Getenv)
	if thread == "" || !safeSessionID(thread) || home == "" {
		return "", thread, false
	}
	records, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+thread+".jsonl"))
	for _, r := range records {
		if d := rolloutFolder(r, thread); d != "" {
			return d, thread, true
		}
	}
	return "", thread, false
}

// rolloutFolder reads the folder a Codex thread runs in now from its
// record: the cwd of the last turn_context line, which Codex writes as each
// turn begins, before the model runs anything (a thread resumed in another
// folder runs there from then on; review AV2), else the session_meta's.
// The first line must be the session_meta of thread. "" when the record
// names no absolute folder, or another thread.
func rolloutFolder(path, thread string) string {
	f, r, meta, ok := openRollout(path, thread)
	if !ok {
		return ""
	}
	defer f.Close()
	cwd := meta.Payload.Cwd
	// Every turn_context of the record, the last winning; lines are read
	// whole, however long (a tool's output can be megabytes).
	for {
		line, err := r.ReadBytes('\n')
		if bytes.Contains(line, []byte(`"turn_context"`)) {
			if l, ok := rolloutLine(line); ok && l.Type == "turn_context" && l.Payload.Cwd != "" {
				cwd = l.Payload.Cwd
			}
		}
		if err != nil {
			break
		}
	}
	if !filepath.IsAbs(cwd) {
		return ""
	}
	return filepath.Clean(cwd)
}

// rolloutRecord is the part of a Codex rollout line rolloutFolder and
// CodexForkedFrom read.
type rolloutRecord struct {
	Type    string `json:"type"`
	Payload struct {
		ID         string    `json:"id"`
		Cwd        string    `json:"cwd"`
		ForkedFrom string    `json:"forked_from_id"`
		Timestamp  time.Time `json:"timestamp"`
	} `json:"payload"`
}

// rolloutMetaLimit bounds the first line of a rollout openRollout
// reads: the session_meta, base instructions included, is tens of KiB.
const rolloutMetaLimit = 4 << 20

// CodexForkedFrom names the thread a Codex thread was forked from (codex
// fork), and when the fork was made: its record's first line, the
// session_meta of thread, says so as forked_from_id and timestamp (Codex
// 0.169.0, seen in e2e). "" when it was not forked, or the record cannot
// be read or names another thread. Only a regular file is opened: a FIFO
// there must not hold the hook (review BO7).
func CodexForkedFrom(rollout, thread string) (string, time.Time) {
	if rollout == "" || !filepath.IsAbs(rollout) {
		return "", time.Time{}
	}
	f, _, meta, ok := openRollout(rollout, thread)
	if !ok {
		return "", time.Time{}
	}
	f.Close()
	return meta.Payload.ForkedFrom, meta.Payload.Timestamp
}

// openRollout opens thread's record at path, a regular file only (a FIFO
// there must not hold a hook: review BO7), and reads its first line, which
// must be thread's session_meta. r reads on from there; the caller closes
// f when ok.
func openRollout(path, thread string) (f *os.File, r *bufio.Reader, meta rolloutRecord, ok bool) {
	if thread == "" {
		return nil, nil, meta, false
	}
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return nil, nil, meta, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, meta, false
	}
	// The first line holds the base instructions too: tens of KiB, read
	// no further than rolloutMetaLimit; later lines are read whole.
	r = bufio.NewReaderSize(f, 64<<10)
	line, err := readLineLimit(r, rolloutMetaLimit)
	if err != nil && len(line) == 0 {
		f.Close()
		return nil, nil, meta, false
	}
	meta, ok = rolloutLine(line)
	if !ok || meta.Type != "session_meta" || meta.Payload.ID != thread {
		f.Close()
		return nil, nil, meta, false
	}
	return f, r, meta, true
}

// readLineLimit reads one line of at most limit bytes.
func readLineLimit(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for len(line) <= limit {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
	return line, errors.New("the line is longer than a record's first line can be")
}

func rolloutLine(line []byte) (rolloutRecord, bool) {
	var l rolloutRecord
	return l, json.Unmarshal(line, &l) == nil
}
