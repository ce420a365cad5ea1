package phases

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith/internal/corpus"
)

// The validator corpora (testdata/validators, see its README): real plans
// and real non-plans from public repositories, and well-formed phase
// answers. The thresholds are those of issue 19; `make validators` prints
// the whole report.

const corpusRoot = "../testdata/validators"

// corpusSeq is the sequence the corpus answers are judged in: every phase
// once, critique in principles mode, the last revise final.
var corpusSeq = []string{Understand, Explore, Alternatives, Draft, Critique, Revise}

func corpusConfig() Config {
	return Config{Phases: corpusSeq, CompletionPromise: "PLAN_OK", RequiredSections: DefaultSections}
}

func phaseIndex(phase string) int {
	for i, p := range corpusSeq {
		if p == phase {
			return i
		}
	}
	return -1
}

// accepted reports whether text passes phase, and the checks it failed.
func accepted(phase, text string) (bool, []string) {
	probs := Validate(corpusConfig(), Progress{Index: phaseIndex(phase)}, text)
	var checks []string
	for _, p := range probs {
		checks = append(checks, p.Check)
	}
	return len(probs) == 0, checks
}

type rate struct {
	name            string
	accepted, total int
	who             []string
}

func (r rate) String() string {
	s := fmt.Sprintf("%-44s %3d/%-3d accepted", r.name, r.accepted, r.total)
	if len(r.who) > 0 {
		s += "  (" + strings.Join(r.who, ", ") + ")"
	}
	return s
}

func measure(name string, docs []corpus.Doc, phase string, keep func(corpus.Doc) bool) rate {
	r := rate{name: name}
	for _, d := range docs {
		if !keep(d) {
			continue
		}
		r.total++
		if ok, _ := accepted(phase, d.Text); ok {
			r.accepted++
			r.who = append(r.who, d.Name)
		}
	}
	return r
}

func loadCorpus(t *testing.T, kind string) []corpus.Doc {
	t.Helper()
	docs, err := corpus.Load(corpusRoot, kind)
	require.NoError(t, err)
	require.NotEmpty(t, docs, kind)
	return docs
}

func isReadme(d corpus.Doc) bool { return strings.Contains(d.Name, "-readme-") }

// TestCorpusPlansAreNotEarlyAnswers: a real plan is refused as an
// understand, explore or alternatives answer (at most one slips through
// per phase), a README as an understand answer always.
func TestCorpusPlansAreNotEarlyAnswers(t *testing.T) {
	plans := loadCorpus(t, "plans")
	nonplans := loadCorpus(t, "nonplans")
	var report []string
	for _, phase := range []string{Understand, Explore, Alternatives} {
		all := measure("plans as "+phase, plans, phase, func(corpus.Doc) bool { return true })
		assert.LessOrEqual(t, all.accepted, 1, "%v", all)
		for _, split := range []struct {
			label string
			hold  bool
		}{{"tuning", false}, {"held out", true}} {
			report = append(report, measure(fmt.Sprintf("plans (%s) as %s", split.label, phase), plans, phase,
				func(d corpus.Doc) bool { return d.Holdout == split.hold }).String())
		}
		for _, lang := range []string{"en", "ko"} {
			report = append(report, measure(fmt.Sprintf("plans (%s) as %s", lang, phase), plans, phase,
				func(d corpus.Doc) bool { return d.Lang == lang }).String())
		}
		for _, split := range []struct {
			label string
			hold  bool
		}{{"tuning", false}, {"held out", true}} {
			report = append(report, measure(fmt.Sprintf("non-plans (%s) as %s", split.label, phase), nonplans, phase,
				func(d corpus.Doc) bool { return d.Holdout == split.hold }).String())
		}
	}
	readmes := measure("READMEs as understand", nonplans, Understand, isReadme)
	assert.Zero(t, readmes.accepted, "%v", readmes)
	report = append(report, readmes.String())
	report = append(report, measure("plans as draft (informational)", plans, Draft, func(corpus.Doc) bool { return true }).String())
	printReport(t, "Real documents", report)
}

// TestCorpusAnswersAreAccepted: every well-formed answer passes its phase.
func TestCorpusAnswersAreAccepted(t *testing.T) {
	answers := loadCorpus(t, "answers")
	var report []string
	counts := map[string][2]int{}
	for _, d := range answers {
		phase := strings.TrimPrefix(d.Kind, "answers/")
		require.NotEqual(t, -1, phaseIndex(phase), "answers must sit in a phase folder: %s/%s", d.Kind, d.Name)
		ok, checks := accepted(phase, d.Text)
		assert.True(t, ok, "%s/%s refused: %v", d.Kind, d.Name, checks)
		c := counts[phase+" "+d.Lang]
		c[1]++
		if ok {
			c[0]++
		}
		counts[phase+" "+d.Lang] = c
	}
	ko := 0
	for _, d := range answers {
		if d.Lang == "ko" {
			ko++
		}
	}
	assert.GreaterOrEqual(t, len(answers), 60)
	assert.GreaterOrEqual(t, ko, 18)
	for _, phase := range corpusSeq {
		for _, lang := range []string{"en", "ko"} {
			c := counts[phase+" "+lang]
			report = append(report, fmt.Sprintf("%-44s %3d/%-3d accepted", "answers: "+phase+" ("+lang+")", c[0], c[1]))
		}
	}
	printReport(t, "Well-formed answers", report)
}

func printReport(t *testing.T, title string, lines []string) {
	t.Helper()
	if os.Getenv("VALIDATORS_REPORT") == "" && !testing.Verbose() {
		return
	}
	fmt.Printf("\n== %s ==\n%s\n", title, strings.Join(lines, "\n"))
}
