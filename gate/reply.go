package gate

import (
	"fmt"
	"strings"
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
// text and s without the pair.
func cut(s, tag string) (string, bool, string) {
	open, close := "<"+tag+">", "</"+tag+">"
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], open)
		if i < 0 {
			break
		}
		if j := strings.Index(s[i+len(open):], close); j >= 0 {
			inner := s[i+len(open) : i+len(open)+j]
			after := s[i+len(open)+j+len(close):]
			return strings.TrimSpace(inner), true, s[:i] + after
		}
		end = i
	}
	return "", false, s
}

// wrap is the inverse of cut, for messages and tests.
func wrap(tag, body string) string {
	return fmt.Sprintf("<%s>\n%s\n</%s>", tag, body, tag)
}
