package gate

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitReply(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  Reply
	}{
		{"both parts", "<critic-output>\n### NO ISSUES FOUND\n</critic-output>\n<validator-output>\n### VERDICT: PASS\n**Reason**: ok\n</validator-output>",
			Reply{Critic: "### NO ISSUES FOUND", HasCritic: true, Validator: "### VERDICT: PASS\n**Reason**: ok", HasValidator: true}},
		{"validator first, text around", "Here they are.\n<validator-output>v</validator-output> and <critic-output>c</critic-output> done",
			Reply{Critic: "c", HasCritic: true, Validator: "v", HasValidator: true, Rest: "Here they are.\n and  done"}},
		{"tags mentioned before use: last pair wins", "I will wrap them in <critic-output> and <validator-output> tags.\n<critic-output>c</critic-output><validator-output>v</validator-output>",
			Reply{Critic: "c", HasCritic: true, Validator: "v", HasValidator: true, Rest: "I will wrap them in <critic-output> and <validator-output> tags."}},
		{"missing validator", "<critic-output>c</critic-output>", Reply{Critic: "c", HasCritic: true}},
		{"unclosed critic", "<critic-output>c", Reply{Rest: "<critic-output>c"}},
		{"nothing", "", Reply{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SplitReply(tt.reply))
		})
	}
}

// framed is a report as Claude Code 2.1.330 hands it back to the agent in the
// Agent tool's result (seen in the real client): a header line, the report
// indented by two spaces, then the agent id and usage trailer.
func framed(report string) string { return framedWith(handBackHeaders[0], report) }

// framedWith is framed under another of the client's header lines.
func framedWith(header, report string) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, l := range strings.Split(report, "\n") {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("agentId: ac7239ddd26284392 (use SendMessage with to: 'ac7239ddd26284392', summary: '<5-10 word recap>' to continue this agent)\n")
	b.WriteString("<usage>subagent_tokens: 20\ntool_uses: 0\nduration_ms: 481</usage>")
	return b.String()
}

func TestUnframe(t *testing.T) {
	report := "### FINDING-1: No rollback\n- **Severity**: high\n- **Description**: Migration has no way back."
	got := Unframe(framed(report))
	assert.Equal(t, "\n"+report+"\n\n\n\n", got, "frame lines become empty lines, the indentation goes")
	assert.Equal(t, report, strings.TrimSpace(got))

	// Copied into a list or quoted with more indentation: the shared part goes.
	assert.Equal(t, "### VERDICT: PASS\n  **Reason**: ok", Unframe("    ### VERDICT: PASS\n      **Reason**: ok"))
	// Unframed text is unchanged.
	assert.Equal(t, report, Unframe(report))
	// The header may carry the report's first line.
	assert.Equal(t, "### NO ISSUES FOUND", Unframe("[Subagent hand-back] … The report follows: ### NO ISSUES FOUND"))
	// A finding that merely mentions an agent id is not a trailer.
	assert.Equal(t, "the agentId: field is missing", Unframe("the agentId: field is missing"))
}

func TestParsersTolerateTheHandBackFrame(t *testing.T) {
	critic := "### FINDING-1: No rollback\n- **Severity**: high\n- **Description**: Migration has no way back.\n\n### FINDING-2: Naming\n- **Severity**: low\n- **Description**: Odd name."
	plain, err := ParseFindings(critic)
	require.NoError(t, err)
	got, err := ParseFindings(framed(critic))
	require.NoError(t, err)
	require.Len(t, got.Items, 2)
	for i := range got.Items {
		assert.Equal(t, plain.Items[i].Description, got.Items[i].Description, "the trailer does not run into a description")
		assert.Equal(t, plain.Items[i].Line+1, got.Items[i].Line, "lines count in the text as sent")
	}

	v, err := ParseVerdict(framed("### VERDICT: FAIL\n**Reason**: FINDING-1 is not covered."))
	require.NoError(t, err)
	assert.False(t, v.Pass)
	assert.Equal(t, "FINDING-1 is not covered.", v.Reason, "the usage trailer is not part of the reason")
	assert.Equal(t, []int{1}, v.Refs)

	// The same through the gate's reply, as an agent on 2.1.330 copies it.
	r := SplitReply("<critic-output>\n" + framed(critic) + "\n</critic-output>\n<validator-output>\n" + framed("### VERDICT: PASS\n**Reason**: ok") + "\n</validator-output>")
	_, err = ParseFindings(r.Critic)
	require.NoError(t, err)
	v, err = ParseVerdict(r.Validator)
	require.NoError(t, err)
	assert.True(t, v.Pass)
	assert.Equal(t, "ok", v.Reason)
}

// cutByEveryOpening is cut as it was first written: from each opening tag,
// last first, a search for a closing tag after it. Quadratic in the number
// of tags; the reference cut must agree with.
func cutByEveryOpening(s, tag string) (string, bool, string) {
	open, close := "<"+tag+">", "</"+tag+">"
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], open)
		if i < 0 {
			break
		}
		if j := strings.Index(s[i+len(open):], close); j >= 0 {
			inner := s[i+len(open) : i+len(open)+j]
			return strings.TrimSpace(inner), true, s[:i] + s[i+len(open)+j+len(close):]
		}
		end = i
	}
	return "", false, s
}

func TestCutPicksThePairTheSearchFromEveryOpeningPicked(t *testing.T) {
	pieces := []string{"<critic-output>", "</critic-output>", "<critic-output", "critic-output>", "<", ">", "/", "x", " ", "\n",
		"<validator-output>", "</validator-output>"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for n := r.IntN(10); n >= 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		for _, tag := range []string{CriticTag, ValidatorTag} {
			inner, ok, rest := cut(s, tag)
			wantInner, wantOK, wantRest := cutByEveryOpening(s, tag)
			require.Equal(t, wantOK, ok, "%q", s)
			require.Equal(t, wantInner, inner, "%q", s)
			require.Equal(t, wantRest, rest, "%q", s)
		}
	}
}

// BenchmarkSplitReplyManyTags is a reply of 80,000 opening tags and no
// closing one (1.2 MB; review P): linear now, 45 s before.
func BenchmarkSplitReplyManyTags(b *testing.B) {
	reply := strings.Repeat("<critic-output>", 80000)
	for b.Loop() {
		SplitReply(reply)
	}
}
