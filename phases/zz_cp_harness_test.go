package phases

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// throwaway harness (review CP), never committed
func TestZZCPHarness(t *testing.T) {
	dir := os.Getenv("CPIN")
	if dir == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		base := filepath.Base(f)
		phase, _, _ := strings.Cut(base, "-")
		cfg := corpusConfig()
		idx := phaseIndex(phase)
		if phase == "iterate" {
			idx = len(cfg.Phases)
		}
		probs := Validate(cfg, Progress{Index: idx}, string(b))
		if len(probs) == 0 {
			fmt.Printf("PASS %s\n", base)
			continue
		}
		fmt.Printf("FAIL %s\n", base)
		for _, p := range probs {
			fmt.Printf("     - %s\n", p.String())
		}
	}
}

func TestZZCPCorpusContent(t *testing.T) {
	if os.Getenv("CPCORPUS") == "" {
		t.Skip()
	}
	for _, kind := range []string{"plans", "nonplans", "answers"} {
		for _, d := range loadCorpus(t, kind) {
			for _, idx := range []int{3} {
				for _, p := range Validate(corpusConfig(), Progress{Index: idx}, d.Text) {
					if p.Check == "required sections with content" {
						fmt.Printf("%s/%s: %s\n", d.Kind, d.Name, p.Detail)
					}
				}
			}
		}
	}
}

func TestZZCPCorpusContent2(t *testing.T) {
	if os.Getenv("CPCORPUS") == "" {
		t.Skip()
	}
	n := 0
	for _, kind := range []string{"plans", "nonplans", "answers"} {
		for _, d := range loadCorpus(t, kind) {
			m := newSectionMatcher(DefaultSections)
			sh := scan(d.Text)
			var req []string
			miss := m.sectionsMissing(sectionHeadings(sh))
			for _, n := range m.names {
				if !slices.Contains(miss, n) {
					req = append(req, n)
				}
			}
			if len(req) == 0 {
				continue
			}
			n++
			cfg := corpusConfig()
			cfg.RequiredSections = req
			for _, p := range Validate(cfg, Progress{Index: 3}, d.Text) {
				fmt.Printf("%s/%s: %s\n", d.Kind, d.Name, p.String()[:min(200, len(p.String()))])
			}
		}
	}
	fmt.Println("docs checked", n)
}

func TestZZCPMultiName(t *testing.T) {
	if os.Getenv("CPCORPUS") == "" {
		t.Skip()
	}
	m := newSectionMatcher(DefaultSections)
	for _, kind := range []string{"plans", "nonplans", "answers"} {
		for _, d := range loadCorpus(t, kind) {
			for _, h := range scan(d.Text).headings {
				known, _ := headingSections(h)
				if rs := m.sections(h, known); len(rs) >= 2 {
					fmt.Printf("%d %s/%s: %q\n", len(rs), d.Kind, d.Name, h)
				}
			}
		}
	}
}

func BenchmarkZZCP(b *testing.B) {
	seq := []string{Understand, Explore, Alternatives, Draft, Critique, Revise, Critique, Revise}
	cfg := Config{Phases: seq, CompletionPromise: "PLAN_OK", MaxRetries: 3, Request: "r"}
	for name, c := range map[string]struct {
		i int
		m string
	}{
		"crit-leading":  {4, mib("- ✅ **P1 (Step ordering)**: builds up nicely\n")},
		"crit-headings": {4, mib("### P4 Error paths\nsome analysis text here\n")},
		"crit-longpre":  {4, mib(strings.Repeat("✅ ", 50000) + "P1\n")},
		"alt-markers":   {2, mib("- ✅ small change ❌ blocks | a | b | c |\n")},
		"explore-ko":    {1, mib("- `internal/hooks/send.go`: 재시도 없음\n")},
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(c.m)))
			for b.Loop() {
				Step(cfg, Progress{Index: c.i}, c.m)
			}
		})
	}
}
