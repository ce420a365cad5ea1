// Package gate is the gap-coverage gate as pure logic: the gaps block a plan
// carries, the leakage scan for uncertainty left outside it, the critic's
// findings and the validator's verdict, the hashes that bind a verdict to one
// version of a plan, the small state machine the Stop hook drives, and the
// embedded metadata that guards Claude Code's own plan mode. Nothing here does
// I/O; callers read and write files and pass strings in.
package gate

import (
	"strings"

	"github.com/plansmith/plansmith/internal/mdtext"
)

// The markers that delimit the gaps block. They count only when a line holds
// nothing else (surrounding spaces allowed) and is outside a fenced code
// block, so a plan can show the format in an example without opening a block.
const (
	GapsStart = "<!-- rodin:gaps:start -->"
	GapsEnd   = "<!-- rodin:gaps:end -->"
)

// kind classifies one line of a plan.
type kind int

const (
	kindText      kind = iota // ordinary plan text
	kindCode                  // a fence line or a line inside a fenced code block
	kindGapsStart             // the start marker
	kindGapsEnd               // the end marker closing an open block
	kindGapsBody              // a line between the markers
	kindStrayEnd              // an end marker with no open block
	kindMeta                  // a single-line <!-- rodin:... --> comment
)

// line is one classified line. Text has any trailing "\r" removed; N is the
// 1-based line number in the input.
type line struct {
	N    int
	Text string
	Kind kind
	Code bool // inside a fenced code block (fence lines included)
}

// scan splits plan into lines and classifies each one. It never fails: a
// block left open runs to the end of the input (as a sed range would), and
// its shape is judged by ParseGaps, not here.
func scan(plan string) []line {
	raw := strings.Split(plan, "\n")
	if len(raw) > 0 && raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1] // the final newline does not start a line
	}
	out := make([]line, 0, len(raw))
	inGaps := false
	var fence mdtext.Fence
	for i, r := range raw {
		t := strings.TrimSuffix(r, "\r")
		l := line{N: i + 1, Text: t}
		trimmed := strings.TrimSpace(t)
		switch {
		case fence.Step(t):
			// Fences are tracked inside the gaps block too, so an end
			// marker quoted in a gap's code example does not close it.
			l.Code = true
			if inGaps {
				l.Kind = kindGapsBody
			} else {
				l.Kind = kindCode
			}
		case inGaps && trimmed == GapsEnd:
			l.Kind = kindGapsEnd
			inGaps = false
		case inGaps && trimmed != GapsStart && isMeta(trimmed):
			// Metadata is never gap content, so a block left open does
			// not swallow the session marker and hashes after it.
			l.Kind = kindMeta
		case inGaps:
			l.Kind = kindGapsBody
		case trimmed == GapsStart:
			l.Kind = kindGapsStart
			inGaps = true
		case trimmed == GapsEnd:
			l.Kind = kindStrayEnd
		case isMeta(trimmed):
			l.Kind = kindMeta
		default:
			l.Kind = kindText
		}
		out = append(out, l)
	}
	return out
}

// isMeta reports whether a trimmed line is one of the single-line rodin
// comments plansmith writes (splitMeta's keys). Any other comment is plan
// text: the critic reads it and the plan's hash covers it, so a step hidden
// as <!-- rodin:note run this --> is neither unseen by the critic nor free
// to be added after a pass (review U3).
func isMeta(trimmed string) bool {
	if !strings.HasPrefix(trimmed, "<!-- rodin:") || !strings.HasSuffix(trimmed, "-->") {
		return false
	}
	key, _ := splitMeta(trimmed)
	return key != ""
}
