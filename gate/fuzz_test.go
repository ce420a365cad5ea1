package gate

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func seedPlans(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join(plansDir, "*.md"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err == nil {
			f.Add(string(b))
		}
	}
	f.Add(planWith(oneGap))
	f.Add(leakyBody + GapsStart + "\n" + GapsEnd)
	f.Add("```\n" + GapsStart + "\n~~~~\n" + GapsEnd + "\n")
	f.Add(GapsEnd + "\n" + GapsStart + "\r\n### GAP-99999999999999999999: x\n- **Severity**:\n")
}

func FuzzParseGaps(f *testing.F) {
	seedPlans(f)
	f.Fuzz(func(t *testing.T, plan string) {
		// What the critic reads never holds a gap's heading (review DC1).
		for _, l := range strings.Split(LooseText(plan), "\n") {
			if gapHeadingRe.MatchString(strings.TrimSpace(l)) && !strings.HasPrefix(strings.TrimSpace(l), "```") {
				if !strings.Contains(GapsContent(plan), "```") {
					t.Fatalf("a gap heading is loose: %q", l)
				}
			}
		}
		g, err := ParseGaps(plan)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, it := range g.Items {
			if seen[it.ID] || it.Description == "" || (it.Severity != High && it.Severity != Medium && it.Severity != Low) {
				t.Fatalf("accepted a bad item %+v", it)
			}
			seen[it.ID] = true
		}
		if g.Present && (g.Start == 0 || g.End <= g.Start) {
			t.Fatalf("bad block bounds %d..%d", g.Start, g.End)
		}
	})
}

func FuzzMergeLeakage(f *testing.F) {
	seedPlans(f)
	f.Fuzz(func(t *testing.T, plan string) {
		out, added, err := MergeLeakage(plan)
		if err != nil || len(added) == 0 {
			return
		}
		if _, err := ParseGaps(out); err != nil {
			t.Fatalf("merge broke the block: %v", err)
		}
		if PlanHash(out) != PlanHash(plan) {
			t.Fatal("merge changed the plan outside its gaps")
		}
	})
}

func FuzzParseFindings(f *testing.F) {
	f.Add(twoFindings)
	f.Add(noIssues)
	f.Add(onlyLow)
	f.Add(garbageCritic)
	f.Add("### FINDING-1:\n- **Severity**\n- **Description**:\n```\n")
	f.Fuzz(func(t *testing.T, text string) {
		fs, err := ParseFindings(text)
		if err == nil && fs.NoIssues && len(fs.Items) > 0 {
			t.Fatal("no issues with findings")
		}
	})
}

func FuzzParseVerdict(f *testing.F) {
	f.Add(pass)
	f.Add(failFinding1)
	f.Add(failNoRefs)
	f.Add("### VERDICT: MAYBE\n**Reason**:")
	f.Fuzz(func(t *testing.T, text string) {
		_, _ = ParseVerdict(text)
		_ = SplitReply(text)
	})
}

func FuzzParseMeta(f *testing.F) {
	seedPlans(f)
	f.Add(`<!-- rodin:validation={"status":"pass" -->` + "\n" + `<!-- rodin:verdict:signal=[] -->`)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, content string) {
		_, _ = ParseMeta(content)
		e := CheckExit(content, "sess-1")
		if !e.Allow && e.Message == "" {
			t.Fatal("refusal without a message")
		}
		out, err := Maintain(content, "sess-1", now)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseMeta(out)
		if err != nil {
			return // corrupt session markers etc. are kept as written
		}
		if m.PlanHash != PlanHash(out) || m.GapsHash != GapsHash(out) {
			t.Fatalf("maintained hashes do not match:\n%q", out)
		}
	})
}

// naiveLeakage is the obvious per-line scan that leakage must agree with.
func naiveLeakage(plan string, phrases []string) []Hit {
	var hits []Hit
	lines := scan(plan)
	skip := documented(lines)
	for li, l := range lines {
		if l.Kind != kindText || skip[li] {
			continue
		}
		orig := stripInlineCode(l.Text)
		text := strings.ToLower(orig)
		for _, p := range phrases {
			for from := 0; from <= len(text); {
				i := strings.Index(text[from:], p)
				if i < 0 {
					break
				}
				at := from + i
				if boundaryBefore(text, at, p) && boundaryAfter(text, at+len(p), p) && !quotedOrIdentifier(orig, text, at, at+len(p), p) {
					hits = append(hits, Hit{Phrase: p, Line: l.N, Text: strings.TrimSpace(l.Text)})
					break
				}
				_, size := utf8.DecodeRuneInString(text[at:])
				from = at + size
			}
		}
	}
	return hits
}

func FuzzLeakageMatchesNaive(f *testing.F) {
	seedPlans(f)
	f.Add("TODO todo\nunclear-ish: not sure\n`tbd` TBD\n불확실한 İstanbul risk of\n")
	f.Fuzz(func(t *testing.T, plan string) {
		got, want := Leakage(plan), naiveLeakage(plan, Phrases())
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("leakage %v, naive %v", got, want)
		}
	})
}
