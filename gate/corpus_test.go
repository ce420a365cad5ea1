package gate

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/internal/corpus"
)

const corpusRoot = "../testdata/validators"

// leakageKinds are the corpora the leakage scan is judged on: the plan-like
// documents the gate scans (real plans, drafts, final revises), and the
// non-plans, reported apart because the gate never sees them.
var leakageKinds = []string{"plans", "answers/draft", "answers/revise", "nonplans"}

// TestCorpusLeakagePrecision: every leakage hit on the corpora is labelled
// by hand in leakage-labels.tsv, and at most a quarter of the hits on
// plan-like documents are noise.
func TestCorpusLeakagePrecision(t *testing.T) {
	labels := readLabels(t)
	used := map[string]bool{}
	type tally struct{ hedge, noise int }
	per := map[string]*tally{}
	for _, kind := range leakageKinds {
		docs, err := corpus.Load(corpusRoot, kind)
		require.NoError(t, err)
		per[kind] = &tally{}
		for _, d := range docs {
			for _, h := range Leakage(d.Text) {
				key := fmt.Sprintf("%s/%s\t%d\t%s", kind, d.Name, h.Line, h.Phrase)
				label, ok := labels[key]
				if !assert.True(t, ok, "unlabelled leakage hit: %s (%s)", key, h.Text) {
					continue
				}
				used[key] = true
				if label == "hedge" {
					per[kind].hedge++
				} else {
					per[kind].noise++
				}
			}
		}
	}
	for key := range labels {
		assert.True(t, used[key], "label matches no hit (stale): %s", key)
	}
	var planHits, planNoise int
	var report []string
	for _, kind := range leakageKinds {
		c := per[kind]
		report = append(report, fmt.Sprintf("%-44s %3d hits, %3d hedges, %3d noise", "leakage on "+kind, c.hedge+c.noise, c.hedge, c.noise))
		if kind != "nonplans" {
			planHits += c.hedge + c.noise
			planNoise += c.noise
		}
	}
	require.Positive(t, planHits)
	assert.LessOrEqual(t, 4*planNoise, planHits, "noise %d of %d hits on plan-like documents", planNoise, planHits)
	report = append(report, fmt.Sprintf("%-44s %3d of %d hits are noise", "leakage precision (plan-like documents)", planNoise, planHits))
	if os.Getenv("VALIDATORS_REPORT") != "" || testing.Verbose() {
		fmt.Printf("\n== Leakage ==\n%s\n", strings.Join(report, "\n"))
	}
}

// readLabels reads leakage-labels.tsv into "file\tline\tphrase" → label.
func readLabels(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(corpusRoot + "/leakage-labels.tsv")
	require.NoError(t, err)
	out := map[string]string{}
	for n, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		require.GreaterOrEqual(t, len(f), 4, "leakage-labels.tsv line %d", n+1)
		_, err := strconv.Atoi(f[1])
		require.NoError(t, err, "leakage-labels.tsv line %d", n+1)
		require.Contains(t, []string{"hedge", "noise"}, f[3], "leakage-labels.tsv line %d", n+1)
		out[f[0]+"\t"+f[1]+"\t"+f[2]] = f[3]
	}
	return out
}
