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
