package bashtool

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/plansmith/plansmith/internal/lazyre"
	"github.com/plansmith/plansmith/internal/plainfile"
)

// snapshotLimit bounds what is read of one snapshot: the largest seen hold
// a few hundred functions of a zsh framework.
const snapshotLimit = 16 << 20

// snapshotsLimit and snapshotsCount bound what is read of all the
// snapshots together: every PreToolUse of the Bash tool reads them, at
// about 80 ms a MiB, and a folder of stale ones (50 of 300 KiB took 1.3 s;
// 100,000 small ones 1 s) would otherwise slow every command, and enough
// of them hold it past the judging deadline, which refuses it anyway
// (review CV1). Past either bound, every program is refused with a reason
// that says to remove the old snapshots.
const (
	snapshotsLimit = snapshotLimit
	snapshotsCount = 1000
)

// pathEntries bounds the folders of all the PATHs the snapshots export:
// each is looked in for every program a command names (one PATH of
// 1,500,000 folders held a command 7 s; review CV3). Past it, every
// program is refused.
const pathEntries = 10000

// Shell is what the user's shell snapshots say: the names they
// define (snapshotLines.names, merged), and the PATH each exports, which is the
// one the Bash tool's commands run with (Claude Code ends a snapshot with
// export PATH=, the PATH of the user's shell, plus the plugins' bin
// folders it lacks). The hook's own PATH is Claude Code's, which may lack
// what the user's startup files add (a Claude Code started from an
// editor or a desktop launcher).
type Shell struct {
	defs  map[string]string
	paths []string
	// unreadable says why the PATH of a snapshot could not be read: the
	// Bash tool's commands run with a PATH nobody can judge.
	unreadable string
}

// Lookup is policy.Config.PathLookup for the Bash tool, hook being the
// hook's own PATH and shell $SHELL: programs are looked up in
// the PATHs the snapshots export (bashPaths). When one of them could not
// be read, every program is refused: that PATH may hold a folder of the
// project which the hook's own PATH lacks (review CR2).
func (s Shell) Lookup(hook, project, pluginBin, shell string) func(name string) string {
	if s.unreadable != "" {
		return func(name string) string {
			return policy.PathUnknown(fmt.Sprintf("%s, so where %s would be found is unknown", s.unreadable, name))
		}
	}
	return pathsLookup(bashPaths(hook, s.paths), project, pluginBin, shell)
}

// Read reads the user's shell snapshots, found where getenv (the hook's
// environment) says Claude Code keeps them.
func Read(getenv func(string) string) Shell {
	if why := relativeFolder(getenv, "CLAUDE_CONFIG_DIR", "Claude Code"); why != "" {
		return Shell{defs: map[string]string{}, unreadable: why}
	}
	return snapshotsIn(claudeSnapshots(snapshotFolder(getenv)))
}

// relativeFolder says why a client's snapshots cannot be found when the
// variable naming its folder is set to a relative path, which the client
// takes from the folder it was started in (Codex resolves a relative
// CODEX_HOME so), not the hook's; "" otherwise. The commands then run
// with a PATH nobody can judge.
func relativeFolder(getenv func(string) string, variable, client string) string {
	if dir := getenv(variable); dir != "" && !filepath.IsAbs(dir) {
		return fmt.Sprintf("%s is the relative path %q, which %s takes from the folder it was started in, so its snapshots of your shell, and the PATH your commands run with, cannot be found (set %s to an absolute path)", variable, dir, client, variable)
	}
	return ""
}

// snapshots is where one client keeps its snapshots of the user's shell,
// and how to read them.
type snapshots struct {
	dir   string
	owner string // whose they are, for messages: "Claude Code's"
	// is reports whether the file named name is one of them.
	is func(name string) bool
	// zsh reports whether the snapshot named name, scanned as lines, is
	// of zsh.
	zsh func(name string, lines snapshotLines) bool
}

// claudeSnapshots are Claude Code's in dir: snapshot-SHELL-….sh.
func claudeSnapshots(dir string) snapshots {
	return snapshots{dir: dir, owner: "Claude Code's",
		is: func(name string) bool {
			return strings.HasPrefix(name, "snapshot-") && strings.HasSuffix(name, ".sh")
		},
		zsh: func(name string, _ snapshotLines) bool { return strings.HasPrefix(name, "snapshot-zsh-") },
	}
}

// Defines is policy.Config.ShellDefines: what the user's shell makes of
// name (a function, an alias for another program, an option; see
// snapshotLines.names), or "". shell is $SHELL: zsh's command runs programs
// only, whatever the snapshots say.
func (s Shell) Defines(name, shell string) string {
	if name == policy.CommandSkipsBuiltins && filepath.Base(shell) == "zsh" {
		return zshCommand
	}
	return s.defs[name]
}

// ExportsAll reports whether the user's shell exports every variable it
// assigns (its allexport option).
func (s Shell) ExportsAll() bool { return s.defs[exportsAll] != "" }

// snapshotFolder is where Claude Code keeps its shell snapshots:
// $CLAUDE_CONFIG_DIR/shell-snapshots, or ~/.claude/shell-snapshots.
func snapshotFolder(getenv func(string) string) string {
	return clientFolder(getenv, "CLAUDE_CONFIG_DIR", ".claude", "shell-snapshots")
}

// clientFolder is the folder sub of a client's configuration: under the
// folder the variable names when it is absolute, else under ~/home; "" when
// neither is known.
func clientFolder(getenv func(string) string, variable, home, sub string) string {
	if dir := getenv(variable); filepath.IsAbs(dir) {
		return filepath.Join(dir, sub)
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, home, sub)
	}
	return ""
}

// snapshotsIn reads every snapshot in src: for each name that a snapshot
// defines as a function, or as an alias for another program, what it is;
// and each PATH a snapshot exports.
func snapshotsIn(src snapshots) Shell {
	defs := map[string]string{}
	snap := Shell{defs: defs}
	dir, owner := src.dir, src.owner
	if dir == "" {
		return snap
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return snap
	}
	count, total, folders := 0, int64(0), 0
	for _, e := range entries {
		if !src.is(e.Name()) {
			continue
		}
		if count++; count > snapshotsCount {
			snap.unreadable = fmt.Sprintf("%s holds more than %d of %s shell snapshots, too many to read before every command (remove the old ones: each session makes its own), so the PATH your shell exports could not be read", dir, snapshotsCount, owner)
			return snap
		}
		data, err := plainfile.Read(filepath.Join(dir, e.Name()), min(snapshotLimit, snapshotsLimit-total))
		if errors.Is(err, plainfile.ErrTooLarge) {
			// The PATH comes last: what was left unread may export one.
			snap.unreadable = fmt.Sprintf("%s shell snapshots in %s hold more than %d MiB (one alone or all together), too much to read before every command (remove the old ones: each session makes its own), so the PATH your shell exports (the one %s ends with) could not be read", owner, dir, snapshotsLimit>>20, e.Name())
			return snap
		}
		if err != nil {
			continue
		}
		total += int64(len(data))
		text := string(data)
		lines := scanSnapshot(text)
		if path, ok := lines.path(); ok && !slices.Contains(snap.paths, path) {
			if folders += len(filepath.SplitList(path)); folders > pathEntries {
				snap.unreadable = fmt.Sprintf("the PATHs your shell exports (in %s shell snapshots in %s) hold more than %d folders, too many to look every program up in (remove the old ones: each session makes its own snapshot)", owner, dir, pathEntries)
				return snap
			}
			snap.paths = append(snap.paths, path)
		} else if !ok && len(lines.exports) > 0 {
			snap.unreadable = fmt.Sprintf("the PATH your shell exports (%s snapshot %s) could not be read", owner, e.Name())
		}
		if src.zsh(e.Name(), lines) && !lines.posixBuiltins && defs[policy.CommandSkipsBuiltins] == "" {
			defs[policy.CommandSkipsBuiltins] = zshCommand
		}
		for name, what := range lines.names(text) {
			if _, seen := defs[name]; !seen {
				defs[name] = what
			}
		}
	}
	return snap
}

var (
	// zsh's typeset -f, and bash's declare -f, print "name () {" or
	// "name () " at the start of a line; Claude Code's own functions are
	// written "function name {".
	plainFunction = lazyre.New(`(?m)^([^\s()=$'"\\]+) \(\) ?\{?[ \t]*$`)
	// Claude Code 2.1.330 writes each bash function as eval and printf
	// %q of its text: eval $'name () \n{ ...' or eval -- name\ \(\)...
	evalFunction = lazyre.New(`(?m)^eval (?:-- )?(?:\$'|')?([^\s()=$'"\\]+)(?: |\\ |\(|\\\()`)
	// Claude Code 2.1.197 writes it in base64: eval "$(echo 'BASE64' | base64 -d)".
	base64Function = lazyre.New(`eval "\$\(echo '([A-Za-z0-9+/=\s]+)' \| base64 -d\)"`)
	// Both write the user's aliases as alias -- name=value, at the start
	// of a line (Claude Code's own rg alias is indented); alias -p prints
	// them without the "--".
	aliasLine = lazyre.New(`(?m)^alias (?:-- )?([^-=\s][^=\s]*)=(.*)$`)
	// The options come as set -o NAME (bash) or setopt NAME (zsh, which
	// prints allexport for ALL_EXPORT).
	allExport = lazyre.New(`(?mi)^(?:set -o allexport|setopt all_?export)[ \t]*$`)
	// Claude Code ends a snapshot with the PATH, printed with printf %q;
	// Codex's of bash has it as declare -p prints it (codex.go).
	exportPath = lazyre.New(`(?m)^(?:export|declare -x) PATH=(.*)$`)
	// Codex's snapshot of zsh has it as typeset -p prints a tied array:
	// export -T PATH path=( /usr/bin /bin ).
	tiedPath = lazyre.New(`(?m)^export -T PATH path=\( ?(.*?) ?\)[ \t]*$`)
	// zsh's POSIX_BUILTINS, which lets command run builtins.
	posixBuiltins = lazyre.New(`(?mi)^setopt posix_?builtins[ \t]*$`)
	// bash's keyword option (set -k): arguments NAME=VALUE are assignments.
	keyword = lazyre.New(`(?m)^set -o keyword[ \t]*$`)
)

// exportsAll is the key under which snapshotLines.names records that the shell
// exports every variable it assigns (allexport): a plain X=v; cmd then
// reaches cmd's programs (review CN7: GROFF_BIN_PATH=$PWD; man jq ran the
// project's troff). No command name holds a NUL.
const exportsAll = "\x00allexport"

// zshCommand is what ShellDefines answers policy.CommandSkipsBuiltins
// with when the user's shell is zsh (a snapshot Claude Code made of zsh,
// or $SHELL): its command runs programs only, and "command cd sub" runs
// the command-not-found handler where no program cd is installed (review
// CR1).
const zshCommand = "the user's shell is zsh, whose command runs only programs found in PATH, never its builtins"

// names reads the functions and aliases of the snapshot whole, which s was
// scanned from.
func (s snapshotLines) names(whole string) map[string]string {
	names := map[string]string{}
	function := func(name string) {
		names[name] = name + " is a function of your shell (from its startup files)"
	}
	for _, name := range s.functions {
		function(name)
	}
	for _, name := range s.evals {
		function(name)
	}
	for _, m := range base64Functions(whole) {
		decoded, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(m[1]), ""))
		if err != nil {
			continue
		}
		if f := plainFunction.FindStringSubmatch(string(decoded)); f != nil {
			function(f[1])
		}
	}
	if s.allExport {
		names[exportsAll] = "the user's shell exports every variable it assigns (allexport)"
	}
	if s.keyword {
		names[policy.KeywordOption] = "the user's shell takes NAME=VALUE arguments for assignments (set -k)"
	}
	for _, m := range s.aliases {
		name, value := m[1], unquoteAlias(m[2])
		first := ""
		if words := strings.Fields(value); len(words) > 0 {
			first = strings.TrimPrefix(words[0], "\\")
		}
		if first == name && !strings.HasSuffix(value, " ") && !strings.HasSuffix(value, "\t") && !strings.ContainsAny(value, "$`;&|<>()\n") {
			// ls='ls --color=tty' runs ls itself; sudo='sudo ' would
			// expand the next word as an alias too. git='git $GITFLAGS'
			// runs git with what a variable the command sets holds
			// (GITFLAGS="-c core.fsmonitor=./x"; git status ran x), and
			// ls='ls; x' runs another command (review CR3).
			continue
		}
		names[name] = fmt.Sprintf("%s is an alias of your shell, for %q", name, value)
	}
	return names
}

// unquoteAlias undoes the quoting alias prints a value with: 'text' with
// '\” for a quote inside, or the text as it is.
func unquoteAlias(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") {
		return strings.ReplaceAll(v[1:len(v)-1], `'\''`, "'")
	}
	if strings.HasPrefix(v, "$'") && strings.HasSuffix(v, "'") {
		return v[2 : len(v)-1]
	}
	return v
}

// path returns the PATH the snapshot s was scanned from exports last, and
// whether there is one it can read: export PATH=WORD (Claude Code's, with
// printf %q), declare -x PATH=WORD (Codex's of bash) or export -T PATH
// path=( WORD … ) (Codex's of zsh), each WORD as decodeWord reads it. A
// PATH written otherwise is not read.
func (s snapshotLines) path() (string, bool) {
	if len(s.exports) == 0 {
		return "", false
	}
	last := s.exports[len(s.exports)-1]
	if last.tied {
		return tiedFolders(last.value)
	}
	return decodeWord(strings.TrimRight(last.value, " \t\r"))
}

// tiedFolders is the PATH whose folders zsh printed as the words of a
// tied array (each quoted as zsh quotes a word), joined with ":"; false
// when one cannot be read.
func tiedFolders(words string) (string, bool) {
	var folders []string
	for _, w := range splitWords(words) {
		f, ok := decodeWord(w)
		if !ok {
			return "", false
		}
		folders = append(folders, f)
	}
	return strings.Join(folders, ":"), true
}

// splitWords splits text at the spaces and tabs outside quotes ('…',
// "…", $'…') and not escaped with a backslash; each word keeps its quoting.
func splitWords(text string) []string {
	var words []string
	start := -1
	for i := 0; i < len(text); {
		c := text[i]
		if c == ' ' || c == '\t' {
			if start >= 0 {
				words = append(words, text[start:i])
				start = -1
			}
			i++
			continue
		}
		if start < 0 {
			start = i
		}
		i = wordPartEnd(text, i)
	}
	if start >= 0 {
		words = append(words, text[start:])
	}
	return words
}

// wordPartEnd is the index just past the part of a word that starts at i:
// a quoted string, an escaped byte, or one byte. An unclosed quote runs to
// the end (decodeWord then refuses the word).
func wordPartEnd(text string, i int) int {
	switch c := text[i]; {
	case c == '\\':
		return min(i+2, len(text))
	case c == '\'' || c == '"':
		if end := strings.IndexByte(text[i+1:], c); end >= 0 {
			return i + end + 2
		}
		return len(text)
	case c == '$' && i+1 < len(text) && text[i+1] == '\'':
		for j := i + 2; j < len(text); j++ {
			switch text[j] {
			case '\\':
				j++
			case '\'':
				return j + 1
			}
		}
		return len(text)
	}
	return i + 1
}

// decodeWord is the text one shell word, quoted as printf %q or zsh's
// typeset -p quote it, stands for, and whether it could be read: bash
// escapes with a backslash what the shell would read otherwise, and writes
// two single quotes for an empty value and $'...' for one with a control
// character, or any byte not ASCII where the locale is C (a folder
// /home/josé/bin); zsh writes only those bytes so, inside the word
// (/home/jos$'\303'$'\251'/bin). Claude Code 2.1.197 quotes the whole
// value with single quotes instead, when it holds a character other than
// letters, digits and _./:=@+,- (a space: /Applications/Visual Studio
// Code.app/...). A word written otherwise is not read.
func decodeWord(quoted string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(quoted); i++ {
		switch c := quoted[i]; c {
		case '\\':
			if i+1 == len(quoted) {
				return "", false
			}
			i++
			b.WriteByte(quoted[i])
		case '\'':
			end := strings.IndexByte(quoted[i+1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(quoted[i+1 : i+1+end])
			i += end + 1
		case '$':
			if i+1 == len(quoted) || quoted[i+1] != '\'' {
				return "", false
			}
			n, ok := ansiC(quoted[i+2:], &b)
			if !ok {
				return "", false
			}
			i += 1 + n
		case '"':
			// Claude Code 2.1.197 quotes with '...' and writes a quote
			// inside as '"'"'; declare -p quotes the whole value so, and
			// escapes " $ ` and \ inside, which is not read.
			end := strings.IndexByte(quoted[i+1:], '"')
			if end < 0 || strings.ContainsAny(quoted[i+1:i+1+end], "$`\\!") {
				return "", false
			}
			b.WriteString(quoted[i+1 : i+1+end])
			i += end + 1
		case '`', ' ', '\t', ';', '&', '|', '<', '>', '(', ')':
			return "", false // quoting or code printf %q does not write
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// ansiC decodes the text of a $'...' word up to its closing quote into b,
// with the escapes printf %q writes there, and returns how many bytes of s
// it took, the quote included. An escape it does not know fails.
func ansiC(s string, b *strings.Builder) (int, bool) {
	simple := map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11, '\\': '\\', '\'': '\'', '"': '"', '?': '?'}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			return i + 1, true
		case c != '\\':
			b.WriteByte(c)
		case i+1 == len(s):
			return 0, false
		default:
			i++
			if r, ok := simple[s[i]]; ok {
				b.WriteByte(r)
				continue
			}
			digits, base, max := "01234567", 8, 3
			if s[i] == 'x' {
				digits, base, max = "0123456789abcdefABCDEF", 16, 2
				i++
			}
			n := 0
			for n < max && i+n < len(s) && strings.IndexByte(digits, s[i+n]) >= 0 {
				n++
			}
			v, err := strconv.ParseUint(s[i:i+n], base, 8)
			if n == 0 || err != nil {
				return 0, false
			}
			b.WriteByte(byte(v))
			i += n - 1
		}
	}
	return 0, false
}

// snapshotLines is what the anchored expressions above find in a
// snapshot. Each matches within one line, from its start, so each is
// asked of the lines it can match alone, picked by the text it starts
// with or holds, and finds there what it would find in the whole text
// (scan_test.go holds the two together): run over a whole 300 KiB
// snapshot, the expressions took 30 ms before every Bash command (review
// CV); over the lines that could match, joined, still about 3.5 ms (go
// test -bench Read), most of it in the regular expression machine's scan
// of the joined text; line by line, 0.5–1.3 ms (review FE).
type snapshotLines struct {
	functions                         []string   // plainFunction's names, in order
	evals                             []string   // evalFunction's
	aliases                           [][]string // aliasLine's matches
	exports                           []pathLine // each line that sets PATH, in order
	allExport, keyword, posixBuiltins bool
	setopt                            bool // a line starts with setopt (zsh prints its options so)
}

// pathLine is what one line of a snapshot sets PATH to, as written: a
// word (exportPath: export PATH=WORD, declare -x PATH=WORD) or the words
// of zsh's tied array (tiedPath: export -T PATH path=( WORD … )).
type pathLine struct {
	value string
	tied  bool
}

// functionHeader is plainFunction's name on one line, matched by hand:
// a zsh framework's snapshot holds hundreds of function headers, and the
// expression machine took a sixth of a PreToolUse that read one (review
// FE). The name runs to the first blank or ()=$'"\\ (none of which it may
// hold), then come " ()", a blank and a "{", each optional, and blanks.
func functionHeader(line string) (string, bool) {
	end := strings.IndexAny(line, " \t\n\f\r()=$'\"\\")
	if end <= 0 {
		return "", false
	}
	rest, ok := strings.CutPrefix(line[end:], " ()")
	if !ok {
		return "", false
	}
	if r, ok := strings.CutPrefix(rest, " {"); ok {
		rest = r
	} else {
		rest = strings.TrimPrefix(rest, "{")
	}
	if strings.Trim(rest, " \t") != "" {
		return "", false
	}
	return line[:end], true
}

func scanSnapshot(text string) snapshotLines {
	var s snapshotLines
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		switch {
		case strings.HasPrefix(line, "alias "):
			if m := aliasLine.FindStringSubmatch(line); m != nil {
				s.aliases = append(s.aliases, m)
			}
		case strings.HasPrefix(line, "eval "):
			if m := evalFunction.FindStringSubmatch(line); m != nil {
				s.evals = append(s.evals, m[1])
			}
		case strings.HasPrefix(line, "export PATH=") || strings.HasPrefix(line, "declare -x PATH="):
			if m := exportPath.FindStringSubmatch(line); m != nil {
				s.exports = append(s.exports, pathLine{value: m[1]})
			}
		case strings.HasPrefix(line, "export -T PATH "):
			if m := tiedPath.FindStringSubmatch(line); m != nil {
				s.exports = append(s.exports, pathLine{value: m[1], tied: true})
			}
		case len(line) >= 3 && strings.EqualFold(line[:3], "set"):
			s.setopt = s.setopt || strings.HasPrefix(line, "setopt ")
			s.allExport = s.allExport || allExport.MatchString(line)
			s.keyword = s.keyword || keyword.MatchString(line)
			s.posixBuiltins = s.posixBuiltins || posixBuiltins.MatchString(line)
		}
		// A function's header starts with its name, which may be alias,
		// eval, export or set.
		if strings.Contains(line, " ()") {
			if name, ok := functionHeader(line); ok {
				s.functions = append(s.functions, name)
			}
		}
	}
	return s
}

// base64Functions is base64Function's matches in text, whose encoded
// function may run over several lines; none where no line decodes one.
func base64Functions(text string) [][]string {
	if !strings.Contains(text, "base64 -d") {
		return nil
	}
	return base64Function.FindAllStringSubmatch(text, -1)
}
