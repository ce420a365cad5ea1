package templates

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNamesFollowTheInstall(t *testing.T) {
	t.Cleanup(func() { SetNames(func() Names { return Names{Kind: KindPlugin, CLI: "plansmith"} }) })

	calls := 0
	SetNames(func() Names { calls++; return Names{Kind: KindSettings, CLI: `"/opt/p s/plansmith"`} })
	assert.Zero(t, calls, "finding the names waits until a text needs them")
	assert.Equal(t, "/plansmith-cancel", Slash("cancel"))
	assert.Equal(t, `"/opt/p s/plansmith" cancel`, CLI("cancel"))
	got := Show("cli/plan-shown.md", map[string]any{"Path": "p.md", "Date": "d", "Verdict": "v", "Evidence": "", "Request": "r", "LoopActive": true, "KeptHere": true, "Edited": false})
	assert.Contains(t, got, "(/plansmith-cancel)")
	assert.Equal(t, 1, calls, "found once per process")

	SetNames(func() Names { return Names{Kind: KindPlugin, CLI: "plansmith"} })
	assert.Equal(t, "/plansmith:gate", Slash("gate"))
	assert.Equal(t, "plansmith status --json", CLI("status --json"))

	// Codex has no slash commands: its skill starts a loop, and the
	// command line does the rest.
	SetNames(func() Names { return Names{Kind: KindCodex, CLI: "plansmith"} })
	assert.Equal(t, "$plansmith-plan", Slash("plan"))
	assert.Equal(t, "`plansmith cancel`", Slash("cancel"))
	assert.NotContains(t, Show("messages/reminder.md", map[string]any{"Label": "explore [2/8]"}), "/plansmith")
}

// TestCodexFinishNamesNoImplementCommand: Codex has no implement command
// (/plansmith:implement is Claude Code's, and the binary has none), so the
// message that ends a Codex loop names none (review DA1: it sent the user
// to `plansmith implement`, an unknown command).
func TestCodexFinishNamesNoImplementCommand(t *testing.T) {
	t.Cleanup(func() { SetNames(func() Names { return Names{Kind: KindPlugin, CLI: "plansmith"} }) })
	data := func(kept, keepErr string) map[string]any {
		return map[string]any{"Reason": "completed", "Output": ".claude/plansmith-output.local.md", "Archive": "", "Phases": 8, "Retries": 0,
			"Problems": nil, "Uncovered": nil, "Verified": false, "Relayed": false, "GateNote": "", "Converge": "",
			"Kept": kept, "KeepError": keepErr, "Trouble": nil, "Previous": "", "PreviousPlan": false}
	}
	cases := map[string]map[string]any{
		"kept":        data("docs/plans/2026-11-27-rate-limits.md", ""),
		"not kept":    data("", "docs/plans is a file"),
		"no keep dir": data("", ""),
	}
	for name, d := range cases {
		SetNames(func() Names { return Names{Kind: KindCodex, CLI: `"/opt/plansmith"`} })
		got := Show("messages/finished.md", d)
		assert.NotContains(t, got, "implement`", "%s: no implement command in Codex", name)
		assert.NotContains(t, got, "/plansmith:", "%s", name)
		assert.Contains(t, strings.ToLower(got), "ask codex to implement it", "%s: says how to implement it in Codex", name)

		SetNames(func() Names { return Names{Kind: KindPlugin, CLI: "plansmith"} })
		assert.Contains(t, Show("messages/finished.md", d), "/plansmith:implement", "%s: Claude Code keeps its command", name)
	}
}

// TestCodexStuckStateNamesNoClaudeTools: a state file plansmith cannot read
// refuses every shell command, and Codex reads files only through its
// shell: the message says so, not that Claude Code's Read, Grep and Glob
// tools still work (review DA5).
func TestCodexStuckStateNamesNoClaudeTools(t *testing.T) {
	t.Cleanup(func() { SetNames(func() Names { return Names{Kind: KindPlugin, CLI: "plansmith"} }) })
	for _, unseen := range []bool{false, true} {
		d := map[string]any{"State": ".claude/plansmith.local.md", "Why": "permission denied", "Unseen": unseen}
		SetNames(func() Names { return Names{Kind: KindCodex, CLI: "plansmith"} })
		got := Show("messages/state-stuck.md", d)
		assert.NotContains(t, got, "Read, Grep and Glob", "unseen %v", unseen)
		assert.Contains(t, got, "nothing reads meanwhile", "unseen %v", unseen)
		SetNames(func() Names { return Names{Kind: KindPlugin, CLI: "plansmith"} })
		assert.Contains(t, Show("messages/state-stuck.md", d), "Read, Grep and Glob tools still work", "unseen %v", unseen)
	}
}
