package converge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAssess(t *testing.T) {
	files := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "- pkg/file%d.go\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name       string
		understand string
		explore    string
		want       Complexity
	}{
		{name: "nothing", want: Complexity{Team: Base}},
		{name: "steps count one each",
			understand: "1. read\n2) parse\n",
			want:       Complexity{Score: 2, Steps: 2, Team: Base}},
		{name: "steps inside code blocks do not count; bold numbers do",
			understand: "```\n1. a\n2. b\n```\n**1.** read\n",
			want:       Complexity{Score: 1, Steps: 1, Team: Base}},
		{name: "steps cap at three",
			understand: "1. a\n2. b\n3. c\n4. d\n5. e\n",
			want:       Complexity{Score: 3, Steps: 5, Team: Base}},
		{name: "domains one each, word boundaries",
			understand: "Change the React component and the REST endpoint. Build a guide (not a gui).",
			want:       Complexity{Score: 2, Domains: []string{"frontend", "backend"}, Team: Base}},
		{name: "domains cap at three",
			explore: "ui, api, sql schema, docker, oauth",
			want:    Complexity{Score: 3, Domains: []string{"frontend", "backend", "data", "infrastructure", "security"}, Team: Base}},
		{name: "integrations two each",
			understand: "Charge cards with Stripe.",
			want:       Complexity{Score: 2, Integrations: []string{"payments"}, Team: Base}},
		{name: "integrations cap at four",
			understand: "Stripe, Twilio and Salesforce.",
			want:       Complexity{Score: 4, Integrations: []string{"payments", "messaging service", "saas api"}, Team: Base}},
		{name: "compliance two",
			understand: "Personal data falls under GDPR.",
			want:       Complexity{Score: 2, Compliance: true, Team: Base}},
		{name: "korean compliance and unknowns",
			understand: "개인정보 처리 규제가 있다.\n요구사항이 미정이다.",
			want:       Complexity{Score: 3, Compliance: true, Unknowns: 1, Team: Base}},
		{name: "unknown signals count lines, not headings",
			understand: "## Open questions\n- Which version is deployed?\n- The retry policy is unclear and unknown\n",
			want:       Complexity{Score: 2, Unknowns: 2, Team: Base}},
		{name: "ten files add one",
			explore: files(10),
			want:    Complexity{Score: 1, Files: 10, Team: Base}},
		{name: "nine files add nothing; duplicates count once",
			explore: files(9) + "pkg/file0.go:12\n`pkg/file1.go`\n",
			want:    Complexity{Score: 0, Files: 9, Team: Base}},
		{name: "files count as the explore check counts them",
			explore: "main.scala, lib.dart, init.lua, Gemfile, flake.nix, build.kts, module.ex, notes.rst, cmd/app/, /etc/hosts\n",
			want:    Complexity{Score: 1, Files: 10, Team: Base}},
		{name: "score seven picks the scaled team",
			understand: "1. a\n2. b\n3. c\nUse Stripe and Twilio.",
			want:       Complexity{Score: 7, Steps: 3, Integrations: []string{"payments", "messaging service"}, Team: Scaled}},
		{name: "score six stays base",
			understand: "1. a\n2. b\nUse Stripe and Twilio.",
			want:       Complexity{Score: 6, Steps: 2, Integrations: []string{"payments", "messaging service"}, Team: Base}},
		{name: "four unknowns pick the scaled team at a low score",
			understand: "- is it cached?\n- who owns it?\n- TBD\n- unclear\n",
			want:       Complexity{Score: 3, Unknowns: 4, Team: Scaled}},
		{name: "the maximum is sixteen",
			understand: "1. a\n2. b\n3. c\nui api sql Stripe Twilio HIPAA\nunclear\nunknown\nTBD\n",
			explore:    files(12),
			want: Complexity{Score: 16, Steps: 3, Domains: []string{"frontend", "backend", "data"},
				Integrations: []string{"payments", "messaging service"}, Compliance: true, Unknowns: 3, Files: 12, Team: Scaled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Assess(tt.understand, tt.explore))
		})
	}
}

func TestHasPhrase(t *testing.T) {
	tests := []struct {
		name, text, phrase string
		want               bool
	}{
		{"whole word", "fix the api now", "api", true},
		{"inside a word", "rapid", "api", false},
		{"at a later occurrence", "rapid api", "api", true},
		{"punctuation is a boundary", "(api)", "api", true},
		{"phrase", "a third-party api call", "third-party api", true},
		{"korean glued to a particle", "외부 api를 호출", "외부 api", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, hasPhrase(tt.text, tt.phrase))
		})
	}
}

func TestPerspectives(t *testing.T) {
	tests := []struct {
		name  string
		team  Team
		round int
		want  []string
	}{
		{"base round 1", Base, 1, []string{Challenger}},
		{"base round 2", Base, 2, []string{Resolver}},
		{"base round 3", Base, 3, []string{Synthesizer}},
		{"base wraps", Base, 4, []string{Challenger}},
		{"a bad round is round 1", Base, 0, []string{Challenger}},
		{"scaled round 1 finds problems", Scaled, 1, []string{Challenger, DevilAdvocate}},
		{"scaled round 2 settles them", Scaled, 2, []string{Resolver, DomainExpert}},
		{"scaled round 3 judges", Scaled, 3, []string{Synthesizer}},
		{"an unknown team is base", Team("x"), 2, []string{Resolver}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RoundPerspectives(tt.team, tt.round))
		})
	}
	assert.Equal(t, []string{Challenger, Resolver, Synthesizer}, Perspectives(Base))
	assert.ElementsMatch(t, append(Perspectives(Base), DomainExpert, DevilAdvocate), Perspectives(Scaled))
}
