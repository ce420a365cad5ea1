package gate

import (
	"strings"

	"github.com/plansmith/plansmith/internal/lazyre"
)

// The tags that wrap each sub-agent's output in the agent's reply.
const (
	CriticTag    = "critic-output"
	ValidatorTag = "validator-output"
)

// Reply is the agent's answer to the gate, split into its parts.
type Reply struct {
	Critic       string // inside <critic-output>…</critic-output>, trimmed
	HasCritic    bool
	Validator    string // inside <validator-output>…</validator-output>, trimmed
	HasValidator bool
	// Rest is the reply with both tagged parts removed, trimmed: empty when
	// the agent followed the instructions, a revised plan if it sent one.
	Rest string
}

// SplitReply finds both tagged parts of reply. When a tag occurs more than
// once (an agent may mention the tags before using them) the last complete
// pair wins. A missing part leaves its Has flag false.
func SplitReply(reply string) Reply {
	var r Reply
	rest := reply
	r.Critic, r.HasCritic, rest = cut(rest, CriticTag)
	r.Validator, r.HasValidator, rest = cut(rest, ValidatorTag)
	r.Rest = strings.TrimSpace(rest)
	return r
}

// cut extracts the last <tag>…</tag> pair of s and returns its trimmed inner
// text and s without the pair: the last opening tag with a closing tag
// after it, that is the last one before the last closing tag, paired with
// the first closing tag after it. Each is one scan, however many tags the
// reply holds (a search from every opening tag took a 1 MB reply of them
// past the Stop hook's deadline, review P).
func cut(s, tag string) (string, bool, string) {
	open, close := "<"+tag+">", "</"+tag+">"
	last := strings.LastIndex(s, close)
	if last < 0 {
		return "", false, s
	}
	i := strings.LastIndex(s[:last], open)
	if i < 0 {
		return "", false, s
	}
	j := strings.Index(s[i+len(open):], close)
	inner := s[i+len(open) : i+len(open)+j]
	after := s[i+len(open)+j+len(close):]
	return strings.TrimSpace(inner), true, s[:i] + after
}

// handBack starts the header line Claude Code (2.1.330) puts above a
// sub-agent's report when it hands the report back to the agent; the
// report's lines follow, indented.
const handBack = "[Subagent hand-back]"

// agentTrailerRe is the line the client appends to a sub-agent's report:
// "agentId: <id> (use SendMessage … to continue this agent)".
var agentTrailerRe = lazyre.New(`^agentId:\s+[0-9A-Za-z_-]+\s*(\(.*)?$`)

// Unframe removes what the client wraps around a sub-agent's report when it
// hands the report back to the agent, so an output the agent copied from a
// tool result reads like the sub-agent's own text: the hand-back header line
// ("[Subagent hand-back] … The report follows:"), the trailer the client
// appends ("agentId: … (use SendMessage …)" and a <usage>…</usage> block),
// and the indentation the remaining lines share. Removed lines become empty
// lines, so line numbers in messages still point into the text the agent
// sent. Text without a frame comes back unchanged.
func Unframe(text string) string {
	lines := strings.Split(text, "\n")
	inUsage := false
	for i, l := range lines {
		t := strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		switch {
		case inUsage:
			lines[i] = ""
			inUsage = !strings.Contains(t, "</usage>")
		case strings.HasPrefix(t, handBack):
			_, after, ok := strings.Cut(t, "The report follows:")
			lines[i] = ""
			if ok {
				lines[i] = strings.TrimSpace(after)
			}
		case strings.HasPrefix(t, "<usage>"):
			lines[i] = ""
			inUsage = !strings.Contains(t, "</usage>")
		case agentTrailerRe.MatchString(t):
			lines[i] = ""
		}
	}
	return dedent(lines)
}

// dedent removes the leading spaces and tabs every non-blank line shares.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	if common > 0 {
		for i, l := range lines {
			if len(l) >= common {
				lines[i] = l[common:]
			} else {
				lines[i] = strings.TrimLeft(l, " \t")
			}
		}
	}
	return strings.Join(lines, "\n")
}
