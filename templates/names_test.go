package templates

import (
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
