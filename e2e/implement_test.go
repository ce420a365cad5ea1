package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ms "github.com/plansmith/plansmith/e2e/modelserver"
	"github.com/plansmith/plansmith/internal/provenance"
)

// keptPlan is a plan as plansmith keeps it in docs/plans/.
const keptPlan = `---
generated_at: 2026-11-20T09:00:00Z
exit_reason: "completed"
verified: true
request: "Add rate limiting to the public API"
---
## Goal
Limit each API key to 100 requests a minute.

## Steps
1. Add the limiter. Check: go test ./internal/ratelimit
2. Wire the middleware. Check: go test ./cmd/api
`

// runFencedCommand is the model's reply to an expanded slash command: it
// runs, with the Bash tool, the first fenced code block that calls
// plansmith, exactly as written (a heredoc included), as an agent
// following the command's text would.
func runFencedCommand() ms.Reply {
	return ms.Func(func(r ms.Request) ms.Reply {
		text := r.LastUserText
		for {
			start := strings.Index(text, "```\n")
			if start < 0 {
				return ms.Text("no fenced plansmith command in the expanded slash command")
			}
			body := text[start+4:]
			end := strings.Index(body, "```")
			if end < 0 {
				return ms.Text("an unterminated fence in the expanded slash command")
			}
			block := body[:end]
			if strings.Contains(block, "/bin/plansmith\"") {
				return bash(block)
			}
			text = body[end+3:]
		}
	})
}

// TestImplementHandsAKeptPlanToTheAgent runs /plansmith:implement in the real
// CLI: the user's words reach `plans show` unchanged through the quoted
// heredoc (no shell injection), the chosen plan's text reaches the model,
// and an unknown name is a clear error, not a command run.
func TestImplementHandsAKeptPlanToTheAgent(t *testing.T) {
	t.Parallel()
	EachCLI(t, func(t *testing.T, cli string) {
		e := plansmithEnv(t, cli,
			runFencedCommand(), ms.Text("implementing"),
			runFencedCommand(), ms.Text("no such plan"),
		)
		e.WriteProjectFile("docs/plans/2026-11-20-add-rate-limiting-to-the-public-api.md", keptPlan)
		// Kept by plansmith on this machine, as a finished loop records it:
		// the plan is shown for what it says it is.
		require.NoError(t, provenance.Open(e.Home, e.Project).Record(filepath.Join(e.Project, "docs/plans/2026-11-20-add-rate-limiting-to-the-public-api.md"), time.Now()))

		// Two prompts in one session: a kept plan by a word of its name,
		// then the user's words holding shell text.
		hostile := `x'; touch INJECTED; echo '$(touch INJECTED2)`
		turns := e.RunTurnsThen([]string{"/plansmith:implement rate-limiting", "/plansmith:implement " + hostile}, func(_ int, res *Result) {
			assert.Equal(t, "implementing", res.Result)
			reqs := e.Model.Requests()
			require.Len(t, reqs, 2)
			assert.Contains(t, reqs[0].LastUserText, "<command-name>/plansmith:implement</command-name>")
			assert.Contains(t, reqs[0].LastUserText, "task list")
			require.Len(t, reqs[1].ToolResults, 1)
			shown := reqs[1].ToolResults[0]
			assert.False(t, shown.IsError, shown.Content)
			assert.Contains(t, shown.Content, "plansmith: plan docs/plans/2026-11-20-add-rate-limiting-to-the-public-api.md (2026-11-20, verified)")
			assert.Contains(t, shown.Content, "2. Wire the middleware.")
		})
		res2 := turns[1]
		assert.Equal(t, "no such plan", res2.Result)
		reqs := e.Model.Requests()
		require.Len(t, reqs, 4)
		require.Len(t, reqs[3].ToolResults, 1)
		assert.Contains(t, reqs[3].ToolResults[0].Content, "no kept plan is named")
		for _, f := range []string{"INJECTED", "INJECTED2"} {
			_, err := os.Stat(filepath.Join(e.Project, f))
			assert.True(t, os.IsNotExist(err), "the user's words must not run as shell: %s exists", f)
		}
		assert.Zero(t, e.Model.Remaining())
	})
}
