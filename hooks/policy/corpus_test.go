package policy

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusCase is one command from testdata/policy, with the rule expected to
// refuse it when the corpus names one.
type corpusCase struct {
	line    int
	command string
	rule    string
}

// loadCorpus reads a corpus file. The format is described at the top of
// each file: one command per line; "#" starts a comment line; "@rule NAME"
// sets the expected rule of the next command; a line "<<" starts a
// multi-line command that ends at a line ">>".
func loadCorpus(t testing.TB, name string) []corpusCase {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "policy", name))
	require.NoError(t, err)
	defer f.Close()
	var cases []corpusCase
	var block []string
	inBlock, rule, start := false, "", 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case inBlock && line == ">>":
			cases = append(cases, corpusCase{line: start, command: strings.Join(block, "\n"), rule: rule})
			inBlock, block, rule = false, nil, ""
		case inBlock:
			block = append(block, line)
		case line == "<<":
			inBlock, start = true, n
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "@rule "):
			rule = strings.TrimSpace(strings.TrimPrefix(line, "@rule "))
		default:
			cases = append(cases, corpusCase{line: n, command: line, rule: rule})
			rule = ""
		}
	}
	require.NoError(t, sc.Err())
	require.False(t, inBlock, "%s: unterminated << block at line %d", name, start)
	return cases
}

func TestCorpusAllowed(t *testing.T) {
	cases := loadCorpus(t, "allow.txt")
	require.GreaterOrEqual(t, len(cases), 150)
	for _, tc := range cases {
		d := Bash(tc.command, Config{})
		assert.True(t, d.Allow, "allow.txt:%d should be allowed: %s\n%s", tc.line, tc.command, d.Reason)
	}
}

func TestCorpusDenied(t *testing.T) {
	cases := loadCorpus(t, "deny.txt")
	require.GreaterOrEqual(t, len(cases), 150)
	for _, tc := range cases {
		d := Bash(tc.command, Config{})
		if !assert.False(t, d.Allow, "deny.txt:%d should be denied: %s", tc.line, tc.command) {
			continue
		}
		assert.NotEmpty(t, d.Reason, "deny.txt:%d", tc.line)
		if tc.rule != "" {
			assert.Equal(t, tc.rule, d.Rule, "deny.txt:%d rule for %s\n%s", tc.line, tc.command, d.Reason)
		}
	}
}

// TestCorpusRates measures the policy on all corpora: no dangerous command
// may be allowed (deny.txt and adversarial.txt), and at least 99% of the
// ordinary commands (allow.txt and ordinary.txt) must be. It prints the
// figures; "make policy-rates" runs it verbosely.
func TestCorpusRates(t *testing.T) {
	dangerous := loadCorpus(t, "deny.txt")
	for _, c := range loadAdversarial(t) {
		dangerous = append(dangerous, corpusCase{line: c.line, command: c.command})
	}
	escapes := 0
	for _, tc := range dangerous {
		if Bash(tc.command, Config{}).Allow {
			escapes++
			t.Errorf("escape: %s", tc.command)
		}
	}
	ordinary := append(loadCorpus(t, "allow.txt"), loadCorpus(t, "ordinary.txt")...)
	allowed := 0
	for _, tc := range ordinary {
		d := Bash(tc.command, Config{})
		if d.Allow {
			allowed++
			continue
		}
		t.Logf("ordinary command refused (%s): %s", d.Rule, tc.command)
	}
	rate := 100 * float64(allowed) / float64(len(ordinary))
	t.Logf("dangerous: %d of %d denied, %d escapes", len(dangerous)-escapes, len(dangerous), escapes)
	t.Logf("ordinary: %d of %d allowed (%.1f%%)", allowed, len(ordinary), rate)
	assert.Zero(t, escapes)
	assert.GreaterOrEqual(t, rate, 99.0)
}
