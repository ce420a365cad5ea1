package policy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func words(s string) []arg {
	var out []arg
	for _, w := range strings.Fields(s) {
		out = append(out, arg{val: w, known: true, single: true})
	}
	return out
}

// TestGrammarParse checks the interpreter against how getopt_long, git and
// tree read arguments: which words are options, values and operands.
func TestGrammarParse(t *testing.T) {
	tests := []struct {
		name     string
		grammar  string
		args     string
		on       platform
		opts     []string // "name=value" for each option found
		operands []string
	}{
		{"value may be a double dash", "sort", "-T -- -o out in", gnuOnly, []string{"T=--", "o=out"}, []string{"in"}},
		{"double dash ends options", "sort", "-n -- -o out", gnuOnly, []string{"n"}, []string{"-o", "out"}},
		{"attached value ends a cluster", "sort", "-rto in", gnuOnly, []string{"r", "t=o"}, []string{"in"}},
		{"cluster with separate value", "sort", "-rno out in", gnuOnly, []string{"r", "n", "o=out"}, []string{"in"}},
		{"long with separate value", "sort", "--output out in", gnuOnly, []string{"output=out"}, []string{"in"}},
		{"abbreviated long", "sort", "--outp=x in", gnuOnly, []string{"output=x"}, []string{"in"}},
		{"gnu permutes", "uniq", "in -c", gnuOnly, []string{"c"}, []string{"in"}},
		{"bsd stops at the first operand", "uniq", "in -c", bsdOnly, nil, []string{"in", "-c"}},
		{"optional value only attached", "git grep", "-O foo", gnuOnly, []string{"O"}, []string{"foo"}},
		{"optional value attached", "git grep", "-Oless foo", gnuOnly, []string{"O=less"}, []string{"foo"}},
		{"tree values are next words", "tree", "-Lo 2 out", gnuOnly, []string{"L=2", "o=out"}, nil},
		{"git last-arg default takes a dash word", "git branch", "--contains -D x", gnuOnly, []string{"contains=-D"}, []string{"x"}},
		{"base64 -i differs by platform", "base64", "-i in", gnuOnly, []string{"i"}, []string{"in"}},
		{"base64 -i takes a file on bsd", "base64", "-i in", bsdOnly, []string{"i=in"}, nil},
		{"go flags take dashes alike", "go list", "--f -- -toolexec=x", gnuOnly, []string{"f=--", "toolexec=x"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := grammarOf(tc.grammar)
			require.NotNil(t, g)
			p := g.parse(words(tc.args), reading{on: tc.on, permute: !g.stopAtOperand && (tc.on == gnuOnly || !g.bsdStop)})
			var opts, operands []string
			for _, u := range p.opts {
				name := u.o.long
				if u.o.short != 0 && (name == "" || len(u.word) > 1 && u.word[1] != '-' && !g.goFlags) {
					name = string(u.o.short)
				}
				if u.hasValue {
					name += "=" + u.value
				}
				opts = append(opts, name)
			}
			for _, o := range p.operands {
				operands = append(operands, o.val)
			}
			assert.Equal(t, tc.opts, opts)
			assert.Equal(t, tc.operands, operands)
		})
	}
}

// TestRefusedAsOption checks the word-by-word scan that backs the exact
// reading: a word is refused if any reading makes it a refused option.
func TestRefusedAsOption(t *testing.T) {
	tests := []struct {
		grammar, word string
		refused       bool
	}{
		{"sort", "-o", true},
		{"sort", "-rno", true},
		{"sort", "-to", false}, // -t's value is "o"
		{"sort", "--out", true},
		{"sort", "--compress=gzip", true},
		{"sort", "-n", false},
		{"git grep", "-nO", true},
		{"git grep", "-eO", false},
		{"git grep", "--open=x", true},
		{"git grep", "--or", false},
		{"git grep", "--no-open-files-in-pager", false},
		{"git *", "--output-indicator-new=+", false},
		{"git *", "--output-ind", false},
		{"git *", "--outp", true},
		{"base64", "-io", true}, // -i takes a value only on BSD
		{"base64", "-d", false},
		{"tree", "-Po", true}, // tree's values never end a cluster
		{"find", "-delete", true},
		{"find", "-fprint", true},
		{"go env", "--w", true},
		{"go list", "-mod=mod", false}, // refused by value in the exact reading
	}
	for _, tc := range tests {
		t.Run(tc.grammar+" "+tc.word, func(t *testing.T) {
			assert.Equal(t, tc.refused, grammarOf(tc.grammar).refusedAsOption(tc.word) != nil)
		})
	}
}

func TestGrammarsWellFormed(t *testing.T) {
	for name := range grammarBuilders() {
		g := grammarOf(name)
		for _, o := range g.options {
			assert.True(t, o.short != 0 || o.long != "", "%s: a row without a name", name)
			if o.rule != "" {
				_, ok := rules()[o.rule]
				assert.True(t, ok, "%s: rule %q has no text", name, o.rule)
			}
		}
		if g.strict {
			_, ok := rules()[g.rule]
			assert.True(t, ok, "%s: strict grammar without a known rule", name)
		}
	}
}
