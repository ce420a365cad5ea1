package loop

import (
	"math"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/state"
)

// DefaultBlockCap is how many consecutive Stop-hook blocks Claude Code obeys
// before it overrides the next one and ends the turn.
const DefaultBlockCap = 8

// BlockCap reads a CLAUDE_CODE_STOP_HOOK_BLOCK_CAP value no higher than
// Claude Code (2.1.330) does; the Stop pauses before it (StopEvent.BlockCap)
// and doctor reports it. A plain integer, trimmed, is the cap; 0 or less
// means none. Any other value the client reads by rules of its own (a
// number literal when it is a whole number, else its leading digits, else
// its default), so plansmith takes the lowest of what it could mean: its
// leading digits, its value as a number, and the default, leaving out
// readings of no cap (0 or less), which are never the safe ones; a fraction
// below 1 is 1. Reading it higher than the client would let the client end
// the turn before the loop pauses, leaving it active and unpaused (reviews
// AD3, AF5); lower only pauses a block or so early.
func BlockCap(value string) int {
	n, _ := BlockCapReading(value)
	return n
}

// BlockCapReading is BlockCap, and whether the value says the cap plainly
// (unset, or a plain integer): else the cap is plansmith's reading.
func BlockCapReading(value string) (cap int, plain bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return DefaultBlockCap, true
	}
	if n, err := strconv.Atoi(v); err == nil {
		return max(n, 0), true
	}
	lowest := float64(DefaultBlockCap)
	consider := func(f float64) {
		if f > 0 && !math.IsNaN(f) {
			lowest = min(lowest, max(f, 1))
		}
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		consider(f)
	}
	if !strings.HasPrefix(v, "-") {
		digits := strings.TrimPrefix(v, "+")
		digits = digits[:len(digits)-len(strings.TrimLeft(digits, "0123456789"))]
		if i, err := strconv.Atoi(digits); err == nil {
			consider(float64(i))
		}
	}
	return int(lowest), false
}

// endsBlockRun reports whether the agent's call of tool ends its run of
// Stop blocks as Claude Code counts them. Any tool call does, but for the
// session-goal tools: a continuation that calls only those keeps the
// client's count going (2.1.330), so the loop must too, or it pauses after
// the client has already cut the turn short, leaving the loop active and
// unpaused (review CO4). A message that calls one of them beside another
// tool ends the run at that other tool's call.
func endsBlockRun(tool string) bool {
	switch tool {
	case "SetGoal", "ProposeGoal", "PauseGoal", "GetGoal":
		return false
	}
	return true
}

// blocksOf is session's run of consecutive Stop blocks. The client counts
// each session's apart (reviews BI9, BP2: one count for all let a fork's
// step reset the planner's, or two sessions' runs wipe each other's, and
// the client cut a turn at its cap before plansmith paused).
func blocksOf(l *state.Loop, session string) int {
	if l.Blocks == nil && (l.SessionID == "" || l.SessionID == session) {
		return l.ConsecutiveBlocks // a file from before the runs were kept apart
	}
	return l.Blocks[session]
}

// setBlocks sets session's run to n, and ConsecutiveBlocks to the longest.
func setBlocks(l *state.Loop, session string, n int) {
	if l.Blocks == nil {
		l.Blocks = map[string]int{}
		if l.ConsecutiveBlocks > 0 && l.SessionID != "" {
			l.Blocks[l.SessionID] = l.ConsecutiveBlocks
		}
	}
	if n == 0 {
		delete(l.Blocks, session)
	} else {
		l.Blocks[session] = n
	}
	l.ConsecutiveBlocks = 0
	for _, m := range l.Blocks {
		l.ConsecutiveBlocks = max(l.ConsecutiveBlocks, m)
	}
	if len(l.Blocks) == 0 {
		l.Blocks = nil
	}
}

// endBlocks ends session's run of Stop blocks, as the client does at the
// session's own tool step or new turn; another session's run goes on. It
// reports whether anything changed.
func endBlocks(l *state.Loop, session string) bool {
	if blocksOf(l, session) == 0 {
		return false
	}
	setBlocks(l, session, 0)
	return true
}
