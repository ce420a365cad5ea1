package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"--no-gate add a cache\n", []string{"--no-gate", "add", "a", "cache"}},
		{`--required-sections "Goals, Steps" fix it`, []string{"--required-sections", "Goals, Steps", "fix", "it"}},
		{`it's $(rm -rf ~) and ` + "`id`" + ` "; echo x`, []string{"it's", "$(rm", "-rf", "~)", "and", "`id`", `";`, "echo", "x"}}, // unclosed quotes stay
		{"a 'b c'd e", []string{"a", "b cd", "e"}},
		{"  \n\t ", nil},
		{"PLANSMITH_ARGS\nmore", []string{"PLANSMITH_ARGS", "more"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, splitWords(c.in), c.in)
	}
}

func TestStdinArgs(t *testing.T) {
	got, err := stdinArgs([]string{"--args-stdin"}, strings.NewReader("--converge do $X"))
	require.NoError(t, err)
	assert.Equal(t, []string{"--converge", "do", "$X"}, got)
	got, err = stdinArgs([]string{"--args-stdin", "x"}, strings.NewReader("ignored"))
	require.NoError(t, err)
	assert.Equal(t, []string{"--args-stdin", "x"}, got, "only a lone --args-stdin reads stdin")
	_, err = stdinArgs([]string{"--args-stdin"}, strings.NewReader(strings.Repeat("x", maxArgsText+1)))
	assert.Error(t, err)
}
