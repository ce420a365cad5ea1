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
