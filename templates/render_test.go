package templates_test

import (
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/converge"
	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/loop"
	"github.com/plansmith/plansmith/phases"
	"github.com/plansmith/plansmith/principles"
	"github.com/plansmith/plansmith/state"
	"github.com/plansmith/plansmith/templates"
)

// Realistic values the data below shares.
var (
	label    = "critique [5/8]"
	request  = "Add rate limiting to the public API, per API key, with 429 and Retry-After"
	sections = []string{"Goal", "Steps", "Verification"}
	findings = []gate.Finding{
		{ID: 1, Title: "No rollback", Severity: gate.High, Description: "The migration cannot be undone."},
		{ID: 2, Title: "Big exports", Severity: gate.Medium, Description: "Memory use is unbounded."},
	}
	gaps = []gate.Gap{{ID: 2, Title: `Unresolved wording in the plan: "tbd"`, Severity: gate.Medium,
		Description: `The plan says "tbd" outside its gaps block.`, Line: 14}}
	challenges = []converge.Entry{
		{ID: "C1", Claim: "The cache is never invalidated", Severity: converge.Blocking, Status: converge.Open},
		{ID: "C2", Claim: "Redis is a new dependency", Severity: converge.Significant, Status: converge.Unresolved, Mitigation: "fall back to memory"},
	}
	gateData = map[string]any{"CriticPath": "/p/.claude/plansmith/gate/critic-prompt.md", "ValidatorPath": "/p/.claude/plansmith/gate/validator-prompt.md",
		"CriticModel": "opus", "ValidatorModel": "haiku", "CriticTag": gate.CriticTag, "ValidatorTag": gate.ValidatorTag,
		"Attempt": 2, "Attempts": 1, "MaxAttempts": 2, "Start": gate.GapsStart, "End": gate.GapsEnd}
)

// with returns base with extra keys added (base is not changed).
func with(base map[string]any, extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func phaseData(phase string) map[string]any {
	return map[string]any{"Phase": phase, "Label": label, "Sections": sections, "Korean": "목표", "SectionNames": []string{"Goal (or Objective, 목표)", "Steps", "Verification"}, "Promise": "PLAN_OK",
		"Memory": "- P3 (Scope) FAIL: the plan never said what it leaves out", "Gate": true, "Gaps": "Write the known gaps between the markers.",
		"Round": 2, "Perspective": "maintainability", "Open": false, "Principles": "P1 Problem first — ...", "Final": true, "Iterate": false, "AfterCritique": true, "HasPlan": true,
		"Later": []string{phases.Critique, phases.Revise}, "Converge": "", "UnderstandItems": 3, "UnderstandKeywords": 2,
		"ExploreRefs": 3, "Options": 2, "CritiqueItems": 3, "CritiqueEvidence": 2}
}

func renderData(t *testing.T) map[string]any {
	sl := state.Loop{Active: true, SessionID: "s1", Request: request, Phases: []string{"understand", "explore", "draft", "critique", "revise"},
		RefineIterations: 1, MaxRetries: 3, CritiqueMode: state.CritiquePrinciples, UseMemory: true, BlockTools: true,
		RequiredSections: sections, CompletionPromise: "PLAN_OK", Gate: true, GateRetries: 2, Phase: "understand"}
	complexity := 8
	view := loop.View{Active: true, SessionID: "s1", Request: request, Phase: "critique", Position: 4, Total: 5,
		Progress: "understand ✓ → explore ✓ → draft ✓ → [critique] → revise", Retries: 1, MaxRetries: 3, RetriesTotal: 2,
		Gate: "on — runs after the final revise (2 assessments allowed)", CritiqueMode: state.CritiqueConverge, StartedAt: "2026-01-02T03:04:05Z",
		LastProblems: []string{"numbered items: found 1, need 3"},
		Converge: &loop.ConvergeView{Iteration: 1, MaxIterations: 3, Complexity: &complexity, Team: "scaled", Perspectives: []string{"resolver", "domain expert"},
			Summary: "converge: iteration 1/3", Next: "continue", Reason: "a BLOCKING challenge is open",
			Ledger: []loop.ChallengeView{{ID: "C1", Severity: "BLOCKING", Status: "OPEN", Claim: "The cache is never invalidated"}}},
		PlanModeGate: loop.PlanModeGateView{State: "on", Source: "default"}}
	exit := map[string]any{"Command": "/plansmith:gate", "Detail": "reading /home/u/.claude/plans: permission denied",
		"Reason": "FINDING-1 has no matching gap", "Problems": []string{"line 12: GAP-1 has no Severity line"}, "Start": gate.GapsStart, "End": gate.GapsEnd}
	data := map[string]any{
		"cli/cancelled.md":     loop.Cancelled{Found: true, Active: true, Label: label, Request: request, Archive: ".claude/plansmith/archive/20260102-030405-cancelled.md"},
		"cli/cancel-failed.md": map[string]any{"Label": label, "ReadOnly": true, "State": ".claude/plansmith.local.md", "Why": "read-only file system"},
		"cli/not-started.md":   map[string]any{"Path": ".claude/plansmith.local.md", "Why": "no space left on device"},
		"cli/gate-status.md": map[string]any{"Gate": true, "Status": "revising", "Attempts": 1, "Max": 2, "Uncovered": 2, "HasCritic": true, "HasValidator": false, "Codex": false,
			"CodexStatus": "", "CodexReason": ""},
		"cli/memory-not-kept-here.md": map[string]any{"Path": ".claude/plansmith-memory.local.md", "Edited": true},
		"cli/memory-cleared.md":       map[string]any{"Path": ".claude/plansmith-memory.local.md"},
		"cli/memory-empty.md":         nil,
		"cli/plan-shown.md": map[string]any{"Path": ".claude/plans/2026-01-02-rate-limiting.md", "Date": "2026-01-02", "Verdict": "verified",
			"Evidence": "observed", "Request": request, "LoopActive": true, "KeptHere": false, "Edited": false},
		"cli/plans.md": map[string]any{"Off": false, "Source": "", "Output": ".claude/plansmith-output.local.md", "OutputSaved": true, "Dir": ".claude/plans",
			"Rows": []map[string]any{{"Date": "2026-01-02", "Verdict": "verified", "Standing": "verified?", "Path": ".claude/plans/2026-01-02-rate-limiting.md", "Request": request}}, "Elsewhere": true, "Edited": true, "Relayed": true},
		"cli/started.md": loop.Started{Loop: sl, Label: "understand [1/5]", Prompt: "=== understand [1/5] ===", State: ".claude/plansmith.local.md",
			Shape: phases.ShapeOf(sl.Phases, 0)},
		"cli/state-body.md": map[string]any{"Loop": sl, "Principles": principles.All, "Request": sl.Request},
		"cli/status.md": struct {
			loop.View
			SettingsFile string
		}{view, ".claude/plansmith.yaml"},
		"codex/skill-plan.md": map[string]any{"Binary": `"/usr/local/bin/plansmith"`},
		"converge/critique.md": map[string]any{"Round": 2, "MaxIterations": 3, "Last": false, "Perspectives": []string{"resolver", "domain expert"},
			"Ledger": converge.RenderLedger(converge.Ledger{Iteration: 1, Challenges: challenges}), "NextID": "C3", "MaxNew": converge.MaxNew,
			"MaxActive": converge.MaxActive, "Degradation": "", "Scoring": converge.ScoringPrompt()},
		"converge/degradation.md": map[string]any{"Iteration": 2, "Created": 3, "Resolved": 1, "Active": []string{"C1", "C3"}},
		"converge/revise.md": map[string]any{"Final": true, "Verdict": "REVISE", "Reason": "SIGNIFICANT C2 unresolved with a mitigation",
			"Iteration": 2, "MaxIterations": 3, "Active": challenges},
		"converge/scoring.md": map[string]any{"Dimensions": converge.Dimensions},
		"converge/status.md": struct {
			converge.Summary
			MaxIterations int
		}{converge.Summary{Verdict: converge.Proceed, QualityScore: 7.4, Iterations: 2, Challenges: 3, Active: 0,
			BySeverity: converge.SeverityCounts{Blocking: 1, Significant: 1, Minor: 1}, ByStatus: converge.StatusCounts{Resolved: 3}}, 3},
		"gate/begin.md":          with(gateData, map[string]any{"Added": gaps, "Observed": true}),
		"gate/check-findings.md": map[string]any{"Findings": gate.Findings{Items: findings}, "Counts": gate.Findings{Items: findings}.Counts()},
		"gate/check-plan.md":     gate.Gaps{Present: true, Start: 12, End: 17, Items: gaps},
		"gate/check-verdict.md": map[string]any{"Pass": false, "Reason": "uncovered: FINDING-1 (No rollback); the plan documents no gaps",
			"Note": "validator PASS overridden: high or medium findings and an empty gaps block"},
		"gate/critic.md":         map[string]any{"Plan": "# Plan\n\n## Goal\nShip CSV export.", "Fence": "PLAN-0123456789abcdef"},
		"gate/critic-input.md":   map[string]any{"Plan": "## Goal\nShip CSV export.", "Loose": "6. Drop the old table."},
		"gate/failed.md":         with(gateData, map[string]any{"Uncovered": findings, "Unreadable": ""}),
		"gate/gaps-malformed.md": map[string]any{"Problems": []string{`line 11: GAP-1 has severity "huge"`}, "Start": gate.GapsStart, "End": gate.GapsEnd},
		"gate/gaps-missing.md":   map[string]any{"Start": gate.GapsStart, "End": gate.GapsEnd},
		"gate/metadata-in-plan.md": map[string]any{"Lines": []struct {
			N    int
			Text string
		}{{12, "<!-- rodin:session=x -->"}, {40, "<!-- rodin:plan:hash=y -->"}}},
		"gate/leakage.md": map[string]any{"Phrases": []map[string]string{{"Phrase": "tbd", "Lines": "7, 12"}}, "N": 1,
			"Threshold": gate.LeakageThreshold, "Hint": true},
		"gate/leakage-merge.md": map[string]any{"Added": gaps, "Show": true, "Path": "plan.md", "End": gate.GapsEnd},
		"gate/passed.md":        map[string]any{"Record": &gate.Record{Findings: gate.Counts{High: 1, Medium: 1, Low: 2}, Gaps: 2}},
		"gate/rerun.md":         with(gateData, map[string]any{"Critic": true, "Problem": "no FINDING blocks", "Observed": true}),
		"gate/revise.md":        with(gateData, map[string]any{"Uncovered": findings, "Unreadable": ""}),
		"gate/unchanged.md":     map[string]any{"Uncovered": findings, "Start": gate.GapsStart, "End": gate.GapsEnd},
		"gate/unobserved.md":    with(gateData, map[string]any{"Critic": true, "Role": "critic", "Why": "claimed"}),
		"gate/unrecorded.md":    map[string]any{"What": "output", "Role": "critic", "AgentID": "a14d79f1d4d6fc023", "Why": "another plansmith process has held the project's lock /p/.claude/plansmith/lock for 15s", "Held": true},
		"gate/plan-unrecorded.md": map[string]any{"What": "output", "Role": "critic", "AgentID": "a14d79f1d4d6fc023", "Why": "no space left on device",
			"Path": "/home/u/.claude/plans/brave-otter.md", "Command": "/plansmith:gate"},
		"gate/while-running.md": nil,
		"gate/pending.md":       with(gateData, map[string]any{"Label": label, "HasCritic": true, "HasValidator": false, "Stale": true, "CriticRunning": "", "ValidatorRunning": ""}),
		"gate/elsewhere.md": with(gateData, map[string]any{"Critic": true, "Role": "critic",
			"LaunchedBy": "af248245-0b7c-4f54-9d3e-5a1f0c2d9e11", "LaunchedAt": "2026-01-02T03:04:05Z", "GiveUp": "2026-01-02T04:04:05Z"}),
		"gate/validator.md":   map[string]any{"Gaps": gaps[0].Markdown("\n"), "Fence": "GAPS-0123456789abcdef"},
		"messages/advance.md": map[string]any{"Passed": "draft [3/5]", "Label": label, "Prompt": "Critique the plan."},
		"messages/finished.md": map[string]any{"Reason": state.ExitCompleted, "Output": ".claude/plansmith-output.local.md",
			"Archive": ".claude/plansmith/archive/20260102-030405-completed.md", "Phases": 5, "Retries": 2,
			"Problems": []string{"numbered items: found 1, need 3"}, "Uncovered": []string{"FINDING-1 (high) No rollback"}, "Verified": true, "Relayed": true, "GateNote": "",
			"Converge": "converge: iteration 2/3, verdict PROCEED", "Kept": ".claude/plans/2026-01-02-rate-limiting.md", "KeepError": "",
			"Trouble": []string{"the lessons were not added to memory: disk full"}, "Previous": ".claude/plansmith/archive/20260102-030404-output.md", "PreviousPlan": true},
		"messages/no-answer.md":            map[string]any{"Label": label, "Why": "the transcript /t.jsonl cannot be opened (no such file or directory)"},
		"messages/answer-behind.md":        map[string]any{"Label": label, "Phase": "draft", "Problems": []string{"required section headings: found 3, need 7 (missing: Goal, Scope)"}, "Wait": "2s"},
		"messages/answer-behind-user.md":   map[string]any{"Label": label, "Wait": "2s"},
		"messages/paused.md":               map[string]any{"Label": label, "Cap": 1, "Set": "0.5", "Held": "✗ explore [2/8]: this answer did not pass the phase's checks (attempt 1; 2 more tries before the loop stops)."},
		"messages/plan-not-saved.md":       map[string]any{"Output": ".claude/plansmith-output.local.md", "Why": "disk full", "Label": label, "Recovery": ".claude/plansmith/recovered-plan.md", "Paused": true},
		"messages/prompt.md":               map[string]any{"Label": label, "Note": "", "Instructions": "Critique the plan.", "Request": request},
		"messages/reminder.md":             map[string]any{"Label": label},
		"messages/aside.md":                map[string]any{"Label": label},
		"messages/answer-while-running.md": map[string]any{"Label": label},
		"messages/prompt-unread.md":        map[string]any{"Why": "another plansmith process has held the project's lock /p/.claude/plansmith/lock for 15s", "Cancel": false},
		"messages/held-elsewhere.md":       map[string]any{"Label": label, "Holder": "af248245-0b7c-4f54-9d3e-5a1f0c2d9e11", "Agent": ""},
		"messages/state-stuck.md":          map[string]any{"State": ".claude/plansmith.local.md", "Why": "refusing to follow .claude/plansmith.local.md: it is a symbolic link", "Unseen": false},
		"messages/resume.md":               map[string]any{"Label": label, "Reason": "understand [1/8]: this answer did not pass"},
		"messages/retry.md": map[string]any{"Label": label, "Phase": "critique", "Attempt": 1, "Left": 2,
			"Problems": []string{"numbered items: found 1, need 3"}, "Prompt": "Critique the plan."},
		"messages/save-failed.md":           map[string]any{"Label": label, "Why": "disk full"},
		"messages/state-unread.md":          map[string]any{"Why": "another plansmith process has held the project's lock /p/.claude/plansmith/lock for 15s", "Held": true},
		"messages/clear-not-held.md":        map[string]any{"Label": label},
		"messages/state-moved-aside.md":     map[string]any{"Why": "line 3: phase_index 12 is past the last phase", "Archive": ".claude/plansmith/archive/20260102-030405-corrupt.md"},
		"messages/not-started-here.md":      map[string]any{"State": ".claude/plansmith.local.md"},
		"messages/loop-moved.md":            map[string]any{"State": ".claude/plansmith.local.md", "From": "/home/u/old-name"},
		"messages/loop-moved-refusal.md":    map[string]any{"From": "/home/u/old-name"},
		"messages/cancelled-foreign.md":     map[string]any{"What": "the loop plansmith did not start on this machine", "Archive": ".claude/plansmith/archive/20260102-030405-cancelled.md", "NotArchived": ""},
		"messages/planted-loop-refusal.md":  nil,
		"messages/gate-files-retry.md":      nil,
		"messages/gate-files-unwritable.md": map[string]any{"Why": "rename .claude/plansmith/gate/plan.md: file exists", "Label": label},
		"messages/cancelled-here.md":        map[string]any{"Why": "no space left on device", "Archive": ".claude/plansmith/archive/20260102-030405-cancelled.md", "NotArchived": "", "Request": request},
		"messages/cancel-not-recorded.md":   map[string]any{"Why": "read-only file system", "Err": "read-only file system", "Stuck": true, "Label": label, "ReadOnly": true},
		"messages/session-start.md": map[string]any{"Label": label, "Source": "compact", "Paused": true,
			"Instructions": "Critique the plan."},
		"policy/deny.md": map[string]any{"What": "Write", "Detail": "src/api.go", "Rule": "write-tool",
			"Why": "the session is read-only while planning", "Alternative": "describe the change in the plan"},
		"principles/critique.md": struct{ Principles []principles.Principle }{principles.All},
	}
	for _, p := range []string{"alternatives", "critique", "draft", "explore", "gaps", "revise", "understand"} {
		data["phases/"+p+".md"] = phaseData(p)
	}
	entries, err := fs.ReadDir(os.DirFS("."), "gate/exit")
	require.NoError(t, err)
	for _, e := range entries {
		data["gate/exit/"+e.Name()] = exit
	}
	data["gate/exit-switch.md"] = map[string]any{"ProjectHome": false}
	data["messages/not-joined.md"] = nil
	data["gate/exit-looked.md"] = map[string]any{"Dir": "/home/u/.claude/plans"}
	return data
}

// TestEveryTemplateRenders renders every embedded template with realistic
// data: a template that names a field its callers do not pass, or calls a
// method that does not exist, fails here instead of in a hook. A new
// template needs an entry in renderData.
func TestEveryTemplateRenders(t *testing.T) {
	data := renderData(t)
	seen := 0
	err := fs.WalkDir(os.DirFS("."), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") || path == "README.md" {
			return err
		}
		seen++
		t.Run(path, func(t *testing.T) {
			v, ok := data[path]
			require.True(t, ok, "no data for %s: add a realistic entry to renderData", path)
			out, err := templates.Render(path, v)
			require.NoError(t, err)
			assert.NotEmpty(t, strings.TrimSpace(out))
			assert.NotContains(t, out, "<no value>")
			assert.NotContains(t, out, "%!", "a printf verb went wrong")
		})
		return nil
	})
	require.NoError(t, err)
	assert.Len(t, data, seen, "renderData has an entry for a template that no longer exists")
}

// TestCodexTextsNameEachCommandOnce renders every template as a Codex hook
// shows it: Codex has no slash commands, so a text names none
// (/plansmith:…), and "X (or Y in a terminal)", where both are the same
// command line there, says it once (review FA: "`plansmith cancel` (or
// `plansmith cancel` in a terminal)" in the refusal and the Stop message
// about a loop plansmith did not start).
func TestCodexTextsNameEachCommandOnce(t *testing.T) {
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindCodex, CLI: "plansmith"} })
	for path, v := range renderData(t) {
		if strings.HasPrefix(path, "gate/") {
			continue // Claude Code's plan mode and its gate: never shown in Codex
		}
		out, err := templates.Render(path, v)
		require.NoError(t, err, path)
		assert.NotContains(t, out, "/plansmith:", path)
		for rest := out; ; {
			i := strings.Index(rest, "` (or `")
			if i < 0 {
				break
			}
			before := rest[strings.LastIndex(rest[:i], "`")+1 : i]
			after := rest[i+len("` (or `"):]
			after = after[:strings.Index(after, "`")]
			assert.NotEqual(t, before, after, "%s names %q twice: %s", path, before, out)
			rest = rest[i+1:]
		}
	}
}
