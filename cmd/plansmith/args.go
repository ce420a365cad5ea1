package main

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

// argsStdinFlag makes `plansmith plan` read its flags and request from
// stdin. The slash commands use it with a quoted heredoc, so what the user
// typed after /plansmith:plan reaches plansmith as typed: Claude Code pastes
// $ARGUMENTS into the command text verbatim, and inside <<'DELIMITER' the
// shell expands nothing, so no quoting by the model is needed.
const argsStdinFlag = "--args-stdin"

// maxArgsText bounds what --args-stdin reads.
const maxArgsText = 1 << 20

// stdinArgs replaces a lone --args-stdin (the only argument) with the words
// read from stdin; any other argument list is returned as it is.
func stdinArgs(args []string, stdin io.Reader) ([]string, error) {
	if len(args) != 1 || args[0] != argsStdinFlag {
		return args, nil
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxArgsText+1))
	if err != nil {
		return nil, fmt.Errorf("plan: reading the arguments from stdin: %w", err)
	}
	if len(data) > maxArgsText {
		return nil, usagef("plan: %s: more than %d bytes of arguments", argsStdinFlag, maxArgsText)
	}
	return splitWords(string(data)), nil
}

// splitWords splits typed text into words at white space. A single- or
// double-quoted part groups spaces into one word (its quotes removed) when
// it is closed; an unclosed quote is kept as a character. Nothing is
// expanded: $HOME, `x` and * stay as typed.
func splitWords(s string) []string {
	var words []string
	var b strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		case r == '\'' || r == '"':
			end := -1
			for j := i + 1; j < len(rs); j++ {
				if rs[j] == r {
					end = j
					break
				}
			}
			inWord = true
			if end < 0 {
				b.WriteRune(r)
				continue
			}
			b.WriteString(string(rs[i+1 : end]))
			i = end
		default:
			inWord = true
			b.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}
