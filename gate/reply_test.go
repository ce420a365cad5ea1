package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
