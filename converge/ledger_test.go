package converge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestApply(t *testing.T) {
	// three is a ledger after one iteration: C1 BLOCKING, C2 SIGNIFICANT, C3 MINOR, all OPEN.
	three := []string{critique(
		block("C1", "b", Blocking, Open, ""),
		block("C2", "s", Significant, Open, ""),
		block("C3", "m", Minor, Open, ""),
	)}
	many := func(from, n int, sev Severity) string {
		var bs []string
		for i := from; i < from+n; i++ {
			bs = append(bs, block(fmt.Sprintf("C%d", i), "claim", sev, Open, ""))
		}
		return critique(bs...)
	}
	tests := []struct {
		name     string
		before   []string // accepted critiques that build the ledger
		in       string
		problems []string // substrings, in order; empty = accepted
		check    func(t *testing.T, l Ledger, r Report)
	}{
		{
			name: "first iteration raises new challenges",
			in:   three[0],
			check: func(t *testing.T, l Ledger, r Report) {
				assert.Equal(t, 1, l.Iteration)
				assert.Equal(t, 3, r.New)
				assert.Equal(t, 3, r.Active)
				assert.False(t, r.Degradation, "the first iteration is never degradation")
				assert.Equal(t, []Mark{{1, Open}}, l.Challenges[0].History)
			},
		},
		{
			name:   "existing id updates status, mitigation and history; claim stays",
			before: three,
			in:     critique("### C2: reworded\n- **Status**: UNRESOLVED\n- **Mitigation**: retry with backoff\n", update("C1", Resolved)),
			check: func(t *testing.T, l Ledger, r Report) {
				c2, _ := l.Get("C2")
				assert.Equal(t, Entry{ID: "C2", Claim: "s", Severity: Significant, Status: Unresolved,
					Mitigation: "retry with backoff", History: []Mark{{1, Open}, {2, Unresolved}}}, c2)
				assert.Equal(t, 2, r.Updated)
				assert.Equal(t, 1, r.Resolved)
				c3, _ := l.Get("C3")
				assert.Equal(t, Open, c3.Status, "unmentioned challenges keep their status")
			},
		},
		{
			name:   "severity may go up",
			before: three,
			in:     critique("### C3: m\n- **Severity**: BLOCKING\n- **Status**: UNRESOLVED\n"),
			check: func(t *testing.T, l Ledger, r Report) {
				c3, _ := l.Get("C3")
				assert.Equal(t, Blocking, c3.Severity)
			},
		},
		{
			name:     "severity may not go down",
			before:   three,
			in:       critique("### C1: b\n- **Severity**: MINOR\n- **Status**: OPEN\n"),
			problems: []string{"C1 (line 3): severity cannot go down from BLOCKING to MINOR"},
		},
		{
			name:   "deferred minor is accepted and counts as resolved",
			before: three,
			in:     critique(update("C3", Deferred)),
			check: func(t *testing.T, l Ledger, r Report) {
				assert.Equal(t, 1, r.Resolved)
			},
		},
		{
			name:     "deferred blocking is refused",
			before:   three,
			in:       critique(update("C1", Deferred)),
			problems: []string{"C1 (line 3): only MINOR challenges may be DEFERRED; a BLOCKING one"},
		},
		{
			name:     "deferred significant is refused, new or existing",
			before:   three,
			in:       critique(update("C2", Deferred), block("C4", "n", Significant, Deferred, "")),
			problems: []string{"C2 (line 3): only MINOR challenges may be DEFERRED; a SIGNIFICANT one", "C4 (line 6): only MINOR challenges may be DEFERRED"},
		},
		{
			name:     "new challenge missing fields names each",
			in:       critique("### C1: claim\n- **Status**: OPEN\n"),
			problems: []string{"C1 (line 3): missing `- **Severity**:`", "C1 (line 3): missing `- **Concern**:`", "C1 (line 3): missing `- **Failure scenario**:`"},
		},
		{
			name:     "update without status",
			before:   three,
			in:       critique("### C1: b\n- **Mitigation**: x\n"),
			problems: []string{"C1 (line 3): missing `- **Status**:`"},
		},
		{
			name:     "unknown id cannot start resolved",
			before:   three,
			in:       critique(block("C9", "typo", Minor, Resolved, "")),
			problems: []string{"C9 (line 3): not in the ledger, so it cannot start as RESOLVED: raise it as OPEN or UNRESOLVED, drop it, or use the id of the existing challenge you meant (C1–C3)"},
		},
		{
			// A status alone would let a critique close every challenge by
			// saying so: RESOLVED and WITHDRAWN need an Evidence line that
			// says something.
			name:   "settled without evidence",
			before: three,
			in: critique("### C1: b\n- **Status**: RESOLVED\n", "### C2: s\n- **Status**: WITHDRAWN\n- **Evidence**: TBD\n",
				"### C3: m\n- **Status**: RESOLVED\n- **Evidence**:\n"),
			problems: []string{"C1 (line 3): marked RESOLVED without evidence: add a `- **Evidence**: <what settles it",
				`C2 (line 6): marked WITHDRAWN without evidence: its Evidence line ("TBD") names none; write there what showed its premise false (a file and line you read, a command's output, a document), or leave its status as it was`,
				"C3 (line 10): marked RESOLVED without evidence"},
		},
		{
			// A bold name alone and a numbered line are fields for every
			// name the parser reads: Evidence is one now (review FF2).
			name:   "evidence in the shapes the other fields take",
			before: three,
			in: critique("### C1: b\n**Status**: RESOLVED\n**Evidence**: limiter.go:40 sets the TTL\n",
				"### C2: s\n1. **Status**: WITHDRAWN\n2. **Evidence**: the API doc says retries are idempotent\n"),
			check: func(t *testing.T, l Ledger, r Report) { assert.Equal(t, 2, r.Resolved) },
		},
		{
			// The prompt asks for a command's output; in a code block under
			// the Evidence line, blank line or not, it is the evidence
			// (review FF3). Code under another field is not.
			name:   "evidence given as a command's output in a code block",
			before: three,
			in: critique("### C1: b\n- **Status**: RESOLVED\n- **Evidence**:\n  ```\n  $ grep -n TTL limiter.go\n  40: ttl := 30 * time.Second\n  ```\n",
				"### C2: s\n- **Status**: WITHDRAWN\n- **Evidence**:\n\n```\n$ curl -sI api/v1/export\nHTTP/1.1 200 OK\n```\n"),
			check: func(t *testing.T, l Ledger, r Report) { assert.Equal(t, 2, r.Resolved) },
		},
		{
			name:     "a code block under another field is no evidence",
			before:   three,
			in:       critique("### C1: b\n- **Status**: RESOLVED\n- **Evidence**:\n- **Note**: see\n```\n40: ttl := 30\n```\n"),
			problems: []string{"C1 (line 3): marked RESOLVED without evidence"},
		},
		{
			// An Evidence line that says there is none says something, and
			// what it says is that the challenge is not settled (review FF4).
			name:   "evidence that says there is none",
			before: three,
			in: critique("### C1: b\n- **Status**: RESOLVED\n- **Evidence**: None.\n", "### C2: s\n- **Status**: WITHDRAWN\n- **Evidence**: (no evidence)\n",
				"### C3: m\n- **Status**: RESOLVED\n- **Evidence**: nothing\n"),
			problems: []string{"C1 (line 3): marked RESOLVED without evidence", "C2 (line 7): marked WITHDRAWN without evidence", "C3 (line 11): marked RESOLVED without evidence"},
		},
		{
			name:   "evidence that only repeats the status",
			before: three,
			in: critique("### C1: b\n- **Status**: RESOLVED\n- **Evidence**: Resolved.\n", "### C2: s\n- **Status**: WITHDRAWN\n- **Evidence**: *verified*\n",
				"### C3: m\n- **Status**: RESOLVED\n- **Evidence**: see above\n"),
			problems: []string{`C1 (line 3): marked RESOLVED without evidence: its Evidence line ("Resolved.") names none; write there what settles it`,
				`C2 (line 7): marked WITHDRAWN without evidence: its Evidence line ("verified") names none; write there what showed its premise false (a file`,
				`C3 (line 11): marked RESOLVED without evidence: its Evidence line ("see above") names none`},
		},
		{
			name:   "evidence is asked for only when the status changes to settled",
			before: []string{three[0], critique(update("C1", Resolved), update("C2", Withdrawn))},
			in:     critique("### C1: b\n- **Status**: RESOLVED\n", "### C2: s\n- **Status**: WITHDRAWN\n", "### C3: m\n- **Status**: DEFERRED\n"),
			check: func(t *testing.T, l Ledger, r Report) {
				e, _ := l.Get("C3")
				assert.Equal(t, Deferred, e.Status, "DEFERRED needs no evidence")
				assert.Equal(t, 1, r.Resolved)
			},
		},
		{
			name:     "parse problems reject the critique",
			in:       critique("### C1: x\n- **Severity**: HUGE\n- **Status**: OPEN\n- **Concern**: c\n- **Failure scenario**: f\n"),
			problems: []string{`C1 (line 4): severity "HUGE"`},
		},
		{
			name:     "no blocks and no marker",
			in:       "The plan looks fine to me.",
			problems: []string{"no challenge blocks found"},
		},
		{
			name: "explicit no challenges on an empty ledger",
			in:   "All good.\n### NO CHALLENGES\n",
			check: func(t *testing.T, l Ledger, r Report) {
				assert.Equal(t, 1, l.Iteration)
				assert.Empty(t, l.Challenges)
			},
		},
		{
			name: "five new challenges are allowed",
			in:   many(1, 5, Minor),
			check: func(t *testing.T, l Ledger, r Report) {
				assert.Equal(t, 5, r.New)
			},
		},
		{
			name:     "six new challenges are refused, naming what to drop",
			in:       critique(block("C1", "b", Blocking, Open, ""), strings.TrimPrefix(many(2, 5, Minor), "Review of the plan.\n\n")),
			problems: []string{"raises 6 new challenges (C1, C2, C3, C4, C5, C6); at most 5 may be raised per iteration: merge related ones or drop the least severe (C6 MINOR)"},
		},
		{
			name:   "eight active are allowed",
			before: []string{many(1, 5, Minor)},
			in:     many(6, 3, Minor),
			check: func(t *testing.T, l Ledger, r Report) {
				assert.Equal(t, 8, r.Active)
			},
		},
		{
			name:     "nine active are refused, naming what to merge",
			before:   []string{many(1, 5, Significant)},
			in:       critique(block("C6", "x", Minor, Open, ""), block("C7", "y", Minor, Open, ""), block("C8", "z", Blocking, Open, ""), block("C9", "w", Significant, Open, "")),
			problems: []string{"9 challenges would be active (OPEN or UNRESOLVED): C1, C2, C3, C4, C5, C6, C7, C8, C9; at most 8 may be: resolve, withdraw or merge at least 1, starting with the least severe (C7 MINOR)"},
		},
		{
			name:   "resolving makes room under the active cap",
			before: []string{many(1, 5, Minor), many(6, 3, Minor)},
			in:     critique(update("C1", Resolved), update("C2", Withdrawn), block("C9", "n", Minor, Open, "")),
			check: func(t *testing.T, l Ledger, r Report) {
				assert.Equal(t, 7, r.Active)
				assert.False(t, r.Degradation)
			},
		},
		{
			name:   "creating more than resolving after the first iteration is degradation",
			before: three,
			in:     critique(update("C1", Resolved), block("C4", "n", Minor, Open, ""), block("C5", "o", Minor, Open, "")),
			check: func(t *testing.T, l Ledger, r Report) {
				assert.True(t, r.Degradation)
				assert.True(t, l.Degraded)
				assert.Contains(t, r.Instruction, "iteration 2 created 2 challenge(s) and resolved 1")
				assert.Contains(t, r.Instruction, "(C2, C3, C4, C5)")
				assert.Equal(t, Round{Iteration: 2, New: 2, Resolved: 1, Degraded: true}, l.Rounds[1])
			},
		},
		{
			name:   "creating as many as resolving is not degradation",
			before: three,
			in:     critique(update("C1", Resolved), block("C4", "n", Minor, Open, "")),
			check: func(t *testing.T, l Ledger, r Report) {
				assert.False(t, r.Degradation)
				assert.Empty(t, r.Instruction)
			},
		},
		{
			name:   "reopening counts as creating",
			before: []string{three[0], critique(update("C3", Resolved))},
			in:     critique(update("C3", Open)),
			check: func(t *testing.T, l Ledger, r Report) {
				assert.Equal(t, 1, r.Reopened)
				assert.True(t, r.Degradation)
			},
		},
		{
			name:   "a later degradation-free iteration clears the flag",
			before: []string{three[0], critique(block("C4", "n", Minor, Open, ""))},
			in:     critique(update("C4", Resolved)),
			check: func(t *testing.T, l Ledger, r Report) {
				assert.False(t, l.Degraded)
				assert.True(t, l.Rounds[1].Degraded, "the history keeps the flag")
			},
		},
		{
			name:     "no fourth iteration",
			before:   []string{three[0], critique(update("C1", Open)), critique(update("C1", Open))},
			in:       critique(update("C1", Resolved)),
			problems: []string{"already run its 3 critique iterations"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := mustApply(tt.before...)
			got, r := Apply(before, tt.in)
			if len(tt.problems) > 0 {
				assert.False(t, r.Accepted)
				assert.Equal(t, before, got, "a rejected critique leaves the ledger unchanged")
				require.Len(t, r.Problems, len(tt.problems), "problems: %v", r.Problems)
				for i, p := range tt.problems {
					assert.Contains(t, r.Problems[i], p)
				}
				return
			}
			require.True(t, r.Accepted, "problems: %v", r.Problems)
			assert.Equal(t, before.Iteration+1, r.Iteration)
			if tt.check != nil {
				tt.check(t, got, r)
			}
		})
	}
}

func TestApplyDoesNotMutateItsArgument(t *testing.T) {
	l := mustApply(critique(block("C1", "b", Blocking, Open, "")))
	snapshot := l.clone()
	_, r := Apply(l, critique(update("C1", Resolved)))
	require.True(t, r.Accepted)
	assert.Equal(t, snapshot, l)
}

// A claim or mitigation longer than the ledger keeps fails the critique
// with a reason the agent can act on, and the ledger is left as it was:
// saved, it would have made a state file too large to read back (review
// CI2).
func TestApplyRefusesAClaimOrMitigationTooLongToKeep(t *testing.T) {
	l := mustApply(critique(block("C1", "b", Blocking, Open, "")))
	long := strings.Repeat("x", MaxClaimBytes+1)
	got, r := Apply(l, critique(block("C2", long, Minor, Open, "")))
	assert.False(t, r.Accepted)
	assert.Equal(t, l, got)
	assert.Contains(t, strings.Join(r.Problems, "\n"), fmt.Sprintf("C2 (line 3): its claim is %d bytes long; the ledger keeps at most %d", MaxClaimBytes+1, MaxClaimBytes))

	_, r = Apply(l, critique("### C1: b\n- **Status**: UNRESOLVED\n- **Mitigation**: "+strings.Repeat("y", MaxMitigationBytes+1)+"\n"))
	assert.False(t, r.Accepted)
	assert.Contains(t, strings.Join(r.Problems, "\n"), "its mitigation is")

	_, r = Apply(l, critique(block("C2", strings.Repeat("x", MaxClaimBytes), Minor, Open, "")))
	assert.True(t, r.Accepted, "a claim at the bound is kept")
}

func TestApplyIdsAreGlobalAndSorted(t *testing.T) {
	l := mustApply(
		critique(block("C2", "two", Minor, Open, ""), block("C10", "ten", Minor, Open, "")),
		critique(block("C1", "one", Minor, Open, ""), update("C2", Resolved)),
	)
	var ids []string
	for _, e := range l.Challenges {
		ids = append(ids, e.ID)
	}
	assert.Equal(t, []string{"C1", "C2", "C10"}, ids)
	assert.Equal(t, "C11", l.NextID())
	assert.Equal(t, []string{"C1", "C10"}, l.Active())
}

func TestLedgerYAMLRoundTrip(t *testing.T) {
	l := mustApply(
		critique(block("C1", `a "quoted": claim — ünïcode`, Blocking, Open, ""), block("C2", "s", Significant, Open, "")),
		critique(update("C1", Resolved), "### C2: s\n- **Status**: UNRESOLVED\n- **Mitigation**: x: y\n", block("C3", "n", Minor, Open, ""), block("C4", "o", Minor, Open, "")),
	)
	out, err := yaml.Marshal(l)
	require.NoError(t, err)
	var back Ledger
	require.NoError(t, yaml.Unmarshal(out, &back))
	assert.Equal(t, l, back)
	assert.Contains(t, string(out), "degraded: true")
}
