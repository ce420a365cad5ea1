package bashtool

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scanSnapshot asks each expression only of the lines it can match; what
// it finds is what the expressions find run over the whole snapshot's
// candidate lines, as snapshotsIn ran them before (wholeText): the same
// functions, aliases and PATHs in the same order, the same options. Texts
// are made of lines that look like each kind, or nearly, in any order and
// case, with CRLF ends, and the snapshots of this machine's shells.
func TestScanSnapshotFindsWhatTheWholeTextDoes(t *testing.T) {
	pool := []string{
		"f () {", "f ()", "f () {  ", "f ()\t{", "my-fn () {", "a.b () {", "_p9k_x () {", "alias () {", "eval () {", "set () {",
		"export () {", "f () { echo; }", "f() {", " f () {", "f  () {", "x=1 () {", "'q' () {", "	echo $(g ())",
		"function find {", "find () {\r", "setopt () {",
		"eval $'ls () \\n{ ...'", "eval -- ls\\ \\(\\)", "eval 'git (){'", "eval x", "eval -- $'y (", "evaluate () {",
		"alias -- ll='ls -la'", "alias ll='ls -la'", "alias -- ls='ls --color=auto'", "alias -- git='git $GITFLAGS'",
		"alias -- -x=y", "alias x", "alias -- a=b=c", "alias  -- z='z'", "alias -- sudo='sudo '", "alias rg='rg ()'",
		"alias -- e=$'a\\'b'", "alias -- w='w'\r", "aliases x=y",
		"export PATH=/usr/local/bin\\:/usr/bin\\:/bin", "export PATH=/a\\ b:/c", "export PATH=''", "export PATH=$'/a\\tb'",
		"export PATH='/x y:/usr/bin'", "export PATH=/a$(./x)", "export PATH=/last\r", "export PATH=", "export PATHX=/x",
		" export PATH=/indented", "export PATH=/f () {",
		// Codex's snapshots: bash's declare -p, zsh's tied array.
		"declare -x PATH=\"/usr/bin:/bin\"", "declare -x PATH=/a", "declare -x PATHS=/x", "export -T PATH path=( /usr/bin /bin )",
		"export -T PATH path=( '/a b' /c )", "export -T PATH path=()", "export -T PATH path=( /x ) y", "export -T PATHS paths=( /x )",
		"set -o allexport", "set -o allexport  ", "SET -O ALLEXPORT", "setopt allexport", "setopt all_export", "setopt ALL_EXPORT",
		"Setopt AllExport\t", "set -o allexport x", "set -o keyword", "set -o keyword\t", "SET -o keyword", "set -o KEYWORD",
		"setopt posix_builtins", "setopt posixbuiltins", "SETOPT POSIX_BUILTINS", "setopt posix_builtins ()", "set", "se",
		"setopt autocd", "set +o allexport", "ſetopt allexport", "set -o noclobber",
		"", "# comment", "  local x=\"$(git rev-parse 2>/dev/null)\"", "}", "eval \"$(echo 'Zm9vICgpIHsKfQo=' | base64 -d)\"",
	}
	texts := []string{"", "\n", "f () {\n}\nalias -- x=y\nexport PATH=/a\nexport PATH=/b\n"}
	r := rand.New(rand.NewPCG(rand.Uint64(), 3))
	for range 3000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(pool[r.IntN(len(pool))])
			if r.IntN(10) == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		text := b.String()
		if r.IntN(4) == 0 {
			text = strings.TrimSuffix(text, "\n")
		}
		texts = append(texts, text)
	}
	// Snapshots Claude Code made of this machine's shells, where the
	// tests left some.
	home, _ := os.UserHomeDir()
	for _, glob := range []string{filepath.Join(home, ".claude", "shell-snapshots", "*.sh"), filepath.Join(os.TempDir(), "*", "*", ".claude", "shell-snapshots", "*.sh")} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil && len(data) < 4<<20 {
				texts = append(texts, string(data))
			}
		}
	}
	var functions, aliases, exports, options int
	for _, text := range texts {
		got, want := scanSnapshot(text), wholeText(text)
		require.Equal(t, want, got, "%q", text)
		assert.Equal(t, oldNames(text), snapshotNames(text), "%q", text)
		functions += len(got.functions) + len(got.evals)
		aliases += len(got.aliases)
		exports += len(got.exports)
		if got.allExport || got.keyword || got.posixBuiltins {
			options++
		}
	}
	assert.Positive(t, functions)
	assert.Positive(t, aliases)
	assert.Positive(t, exports)
	assert.Positive(t, options)
}

// wholeText is what the expressions find run over the lines of text
// candidateLines kept, as snapshotsIn and snapshotNames ran them until
// review FE.
func wholeText(text string) snapshotLines {
	lines := candidateLines(text)
	var s snapshotLines
	for _, m := range plainFunction.FindAllStringSubmatch(lines, -1) {
		s.functions = append(s.functions, m[1])
	}
	for _, m := range evalFunction.FindAllStringSubmatch(lines, -1) {
		s.evals = append(s.evals, m[1])
	}
	s.aliases = aliasLine.FindAllStringSubmatch(lines, -1)
	words := exportPath.Regexp().FindAllStringSubmatchIndex(lines, -1)
	tied := tiedPath.Regexp().FindAllStringSubmatchIndex(lines, -1)
	for len(words)+len(tied) > 0 {
		if len(tied) == 0 || len(words) > 0 && words[0][0] < tied[0][0] {
			s.exports = append(s.exports, pathLine{value: lines[words[0][2]:words[0][3]]})
			words = words[1:]
		} else {
			s.exports = append(s.exports, pathLine{value: lines[tied[0][2]:tied[0][3]], tied: true})
			tied = tied[1:]
		}
	}
	s.setopt = strings.HasPrefix(lines, "setopt ") || strings.Contains(lines, "\nsetopt ")
	s.allExport = allExport.MatchString(lines)
	s.keyword = keyword.MatchString(lines)
	s.posixBuiltins = posixBuiltins.MatchString(lines)
	return s
}

// oldNames is snapshotNames as it was: the names found in the candidate
// lines.
func oldNames(text string) map[string]string {
	return wholeText(text).names(text)
}

// candidateLines keeps the lines of a snapshot that one of the anchored
// expressions could match, as snapshotsIn did before each expression ran
// over them all.
func candidateLines(text string) string {
	var b strings.Builder
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if strings.HasPrefix(line, "alias ") || strings.HasPrefix(line, "eval ") || strings.HasPrefix(line, "export PATH=") ||
			strings.HasPrefix(line, "declare -x PATH=") || strings.HasPrefix(line, "export -T PATH ") ||
			len(line) >= 3 && strings.EqualFold(line[:3], "set") || strings.Contains(line, " ()") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// functionHeader matches what plainFunction matches on one line, and
// takes the same name: lines made of the characters the expression
// treats apart, and of the text around them.
func TestFunctionHeaderIsPlainFunction(t *testing.T) {
	parts := []string{"f", "my-fn", "é", "\xff", " ", "  ", "\t", "\r", "\f", "\v", "(", ")", " ()", "()", "{", " {", "}", "=", "$", "'", `"`, `\`, "x", ";"}
	r := rand.New(rand.NewPCG(rand.Uint64(), 4))
	matched := 0
	lines := []string{"", "f ()", "f () {", "f (){", "f ()  ", "f ()\t{", "f () {{", "f () { ", " f ()", "é\xff ()"}
	for range 200000 {
		var b strings.Builder
		for range r.IntN(7) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	for _, line := range lines {
		name, ok := functionHeader(line)
		m := plainFunction.FindStringSubmatch(line)
		require.Equal(t, m != nil, ok, "%q", line)
		if ok {
			matched++
			require.Equal(t, m[1], name, "%q", line)
		}
	}
	assert.Greater(t, matched, 100)
}
