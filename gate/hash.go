package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Normalisation behind both hashes, chosen so that a hash equals what the
// seed's shell hook computes with `echo "$(sed ...)" | shasum -a 256` on an
// LF file, while being immune to editor noise at the end of a file:
//
//  1. "\r\n" line endings count as "\n" (a trailing "\r" is dropped per line);
//  2. the kept lines are joined with "\n";
//  3. all trailing newlines are removed (command substitution does this);
//  4. exactly one "\n" is appended (echo does this), so empty content
//     hashes as "\n";
//  5. SHA-256, lowercase hex.
//
// Lines are classified by scan: markers and metadata comments count only as
// whole lines outside fenced code blocks.

// PlanContent returns plan without the gaps block (markers included), without
// any stray end marker and without single-line <!-- rodin:... --> comments:
// the text the critic reads and the plan hash covers.
func PlanContent(plan string) string {
	var kept []string
	for _, l := range scan(plan) {
		switch l.Kind {
		case kindText, kindCode:
			kept = append(kept, l.Text)
		}
	}
	return strings.Join(kept, "\n")
}

// GapsContent returns the lines between the gaps markers, markers and
// single-line rodin comments excluded.
// A block left open runs to the end of plan; two blocks are concatenated.
// Without a block it returns "".
func GapsContent(plan string) string {
	var kept []string
	for _, l := range scan(plan) {
		if l.Kind == kindGapsBody {
			kept = append(kept, l.Text)
		}
	}
	return strings.Join(kept, "\n")
}

// PlanHash is the hex SHA-256 of PlanContent(plan), normalised as above.
func PlanHash(plan string) string { return hashText(PlanContent(plan)) }

// GapsHash is the hex SHA-256 of GapsContent(plan), normalised as above. A
// plan without a gaps block and a plan with an empty one hash alike; the
// block's presence is checked separately, by ParseGaps.
func GapsHash(plan string) string { return hashText(GapsContent(plan)) }

func hashText(s string) string {
	s = strings.TrimRight(s, "\n") + "\n"
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
