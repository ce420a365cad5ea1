package phases

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Prompts name only tools the client has: current Claude Code has no Grep,
// Glob or LS tool (searching goes through read-only shell commands).
func TestPromptsNameToolsTheClientHas(t *testing.T) {
	cfg := Config{Phases: Known, RequiredSections: DefaultSections, CompletionPromise: "PLAN_OK", MaxRetries: 3, Request: "add a cache", Gate: true}
	gone := regexp.MustCompile(`\b(Grep|Glob|LS|MultiEdit)\b`)
	for i := range len(cfg.Phases) + 1 {
		p := Prompt(cfg, Progress{Index: i}, "")
		assert.Empty(t, gone.FindAllString(p, -1), "the %s prompt names a tool Claude Code no longer has", PhaseAt(cfg, i))
	}
	assert.Contains(t, Prompt(cfg, Progress{Index: 1}, ""), "grep -rn", "explore recommends read-only shell search")
}
