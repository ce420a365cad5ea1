package policy

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// checker walks one parsed command line and keeps the first finding.
type checker struct {
	src   string
	file  *syntax.File
	allow [][]string
	ours  func(string) bool // Config.Ours
	npmrc func() string     // Config.NpmConfig
	// gitRepo is Config.GitRepository.
	gitRepo func(dir string) string
	// gitShowsSignatures is Config.GitShowsSignatures.
	gitShowsSignatures func() bool
	// elsewhere is set while judging a command find -execdir runs, in the
	// folder of each file found.
	elsewhere bool
	blind     bool // Config.Blind
	// folders indexes the line's changes of folder (folderIndex).
	folders *folderChanges
	// cancelAsked is Config.CancelAsked.
	cancelAsked bool
	// pathLookup is Config.PathLookup.
	pathLookup func(name string) string
	// shellDefines is Config.ShellDefines.
	shellDefines func(name string) string
	// goToolchain is Config.GoToolchain.
	goToolchain func() string
	// goVCS is Config.GoVCS.
	goVCS func() string
	// inherited is Config.Inherited.
	inherited func(name string) bool
	found     *finding
	// quotedDocs are the byte ranges of quoted here-document bodies, which
	// bash and the parser both take as they stand.
	quotedDocs [][2]uint
	quotedLits []*syntax.Lit // the literal parts of double-quoted strings seen
	// singleQuoted are the byte ranges of '...' strings, where no byte is
	// special to bash or the parser.
	singleQuoted [][2]uint
	// doubleQuoted are the byte ranges of "..." strings and of unquoted
	// here-document bodies, where a ' is text to the shells; substituted
	// those of $(...), `...` and <(...), which start unquoted again.
	doubleQuoted, substituted [][2]uint
	// tests are the byte ranges of [[ ]] expressions.
	tests [][2]uint
}

// inTestClause reports whether offset i is inside a [[ ]] expression.
func (c *checker) inTestClause(i uint) bool { return within(c.tests, i) }

// within reports whether offset i is inside one of ranges.
func within(ranges [][2]uint, i uint) bool {
	for _, r := range ranges {
		if i >= r[0] && i < r[1] {
			return true
		}
	}
	return false
}

// inDoubleQuotes reports whether offset i is in double quotes: inside a
// "..." string or an unquoted here-document body, and not inside a
// substitution nested in it, whose text is unquoted again (review AJ1).
func (c *checker) inDoubleQuotes(i uint) bool {
	innermost := func(ranges [][2]uint) (uint, bool) {
		start, found := uint(0), false
		for _, r := range ranges {
			if i >= r[0] && i < r[1] && (!found || r[0] > start) {
				start, found = r[0], true
			}
		}
		return start, found
	}
	quote, quoted := innermost(c.doubleQuoted)
	sub, nested := innermost(c.substituted)
	return quoted && (!nested || quote > sub)
}

// inQuotedDoc reports whether offset i is inside a quoted here-document body.
func (c *checker) inQuotedDoc(i uint) bool { return within(c.quotedDocs, i) }

// swallowable reports whether the byte at offset i, right after a
// non-ASCII byte, means something to bash there that it loses when Big5,
// GBK or Shift-JIS read it as the second byte of a character (every byte
// from 0x40 to 0x7E can be one). Letters and "_" mean nothing; in '...' and
// quoted here-documents nothing does; in double-quoted text only \, ` and
// the } of ${...}; elsewhere also | (it joins two commands' words into
// one command: "find sub 両| echo -delete" deletes), { [ ] ^ ~ @.
func (c *checker) swallowable(i int) bool {
	b := c.src[i]
	if !strings.ContainsRune("@[\\]^`{|}~", rune(b)) || c.inQuotedDoc(uint(i)) || c.inSingleQuotes(uint(i)) {
		return false
	}
	if strings.IndexByte("\\`}", b) >= 0 {
		return true
	}
	for _, l := range c.quotedLits {
		if uint(i) >= l.Pos().Offset() && uint(i) < l.End().Offset() {
			return false
		}
	}
	return true
}

// inSingleQuotes reports whether offset i is inside a '...' string.
func (c *checker) inSingleQuotes(i uint) bool {
	for _, r := range c.singleQuoted {
		if i > r[0] && i < r[1] {
			return true
		}
	}
	return false
}

// splitsAlike refuses the characters at which the parser and bash split a
// line differently, outside quoted here-document bodies: a carriage return
// (a blank to the parser, a word character to bash), a backslash-newline
// that does not follow a blank (bash removes it before reading "$(", "((",
// "<<-" and the like; the parser splits the operator there), and a byte
// that means something to bash right after a non-ASCII byte (swallowable).
// The parser reads UTF-8; in a Big5, GBK or Shift-JIS locale (the user's)
// bash takes that byte as the lead of a two-byte character whose second
// byte is the \, `, | or the like, which then escapes, quotes or joins
// nothing: "echo 両\;touch pwn" runs touch.
func (c *checker) splitsAlike() {
	for i := 0; i < len(c.src); i++ {
		switch {
		case c.src[i] >= 0x80 && i+1 < len(c.src) && c.swallowable(i+1):
			c.fail("parse", nil, "a non-ASCII character right before "+string(c.src[i+1])+
				", which bash in a Big5, GBK or Shift-JIS locale reads as part of the character")
			return
		case c.src[i] == '\r' && !c.inQuotedDoc(uint(i)):
			c.fail("parse", nil, "a carriage return, which bash reads as part of a word")
			return
		case c.src[i] == '\\' && i+1 < len(c.src) && c.src[i+1] == '\n' && !c.inQuotedDoc(uint(i)):
			if i == 0 || c.src[i-1] != ' ' && c.src[i-1] != '\t' {
				c.fail("parse", nil, "a backslash-newline that does not follow a blank")
				return
			}
			i++
		}
	}
}

func (c *checker) fail(rule string, n syntax.Node, detail string) {
	if c.found == nil {
		c.found = &finding{rule: rule, what: c.text(n), detail: detail}
	}
}

// text is the source of n, clipped for a message.
func (c *checker) text(n syntax.Node) string {
	if n == nil {
		return clip(c.src)
	}
	start, end := n.Pos().Offset(), n.End().Offset()
	if start >= end || end > uint(len(c.src)) {
		return clip(c.src)
	}
	return clip(c.src[start:end])
}

// visit is the syntax.Walk callback. Every node kind that can run, write or
// evaluate something is judged here; the walk then continues into children,
// so substitutions nested in words are judged as commands of their own.
func (c *checker) visit(node syntax.Node) bool {
	if c.found != nil {
		return false
	}
	switch n := node.(type) {
	case *syntax.Stmt:
		if n.Coprocess {
			c.fail("eval", n, "coprocess")
		}
		if ce, ok := n.Cmd.(*syntax.CallExpr); len(n.Redirs) > 0 && (n.Cmd == nil || ok && len(ce.Args) == 0) {
			// zsh runs $NULLCMD (cat) or $READNULLCMD (a pager) for it.
			c.fail("eval", n, "redirects with no command")
		}
	case *syntax.Word:
		c.zshWord(n)
		c.braceDollar(n)
		if n.Lit() == "}" {
			// zsh ends a { ... } group at a lone } anywhere on the line,
			// so { cmd } always { CODE; } runs CODE, where bash and the
			// parser read "} always { CODE" as cmd's arguments (review AG2).
			c.fail("parse", n, "a lone } is the end of a { } group to zsh")
		}
	case *syntax.Comment:
		if strings.HasSuffix(strings.TrimSuffix(n.Text, "\n"), "\\") {
			// The parser joins the next line to the command before the
			// comment; bash ends the comment, and the command, there.
			c.fail("parse", n, "a comment ending in a backslash")
		}
	case *syntax.CallExpr:
		c.call(n)
	case *syntax.Redirect:
		c.redirect(n)
	case *syntax.FuncDecl:
		c.fail("function", n, "")
	case *syntax.CoprocClause:
		c.fail("eval", n, "coproc")
	case *syntax.TestDecl:
		c.fail("function", n, "")
	case *syntax.DeclClause:
		c.decl(n)
	case *syntax.LetClause:
		c.fail("arithmetic", n, "let")
	case *syntax.ArithmExp:
		c.arith(n, n.X)
	case *syntax.ArithmCmd:
		c.arith(n, n.X)
	case *syntax.CStyleLoop:
		for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if x != nil {
				c.arith(n, x)
			}
		}
	case *syntax.ParamExp:
		c.param(n)
		c.paramWords(n)
	case *syntax.ArrayElem:
		if n.Index != nil {
			c.arith(n, n.Index)
		}
	case *syntax.Assign:
		if n.Index != nil {
			c.arith(n, n.Index)
			c.subscript(n)
		}
	case *syntax.ForClause:
		if it, ok := n.Loop.(*syntax.WordIter); ok && forbiddenVar(it.Name.Value, c.inherits(it.Name.Value)) {
			c.fail("env-var", n, it.Name.Value)
		}
	case *syntax.TestClause:
		c.tests = append(c.tests, [2]uint{n.Pos().Offset(), n.End().Offset()})
		c.test(n.X)
	case *syntax.ExtGlob:
		c.fail("glob-qualifier", n, "")
	case *syntax.CmdSubst:
		c.substituted = append(c.substituted, [2]uint{n.Pos().Offset(), n.End().Offset()})
		c.substitution(n)
		if n.Backquotes && strings.ContainsAny(c.src[n.Pos().Offset():n.End().Offset()], `'"\`) {
			// bash ends `...` at the next backquote whatever the quotes in
			// between; the parser pairs the quotes first.
			c.fail("eval", n, "quotes or backslashes inside `...`; write $(...) instead")
		}
	case *syntax.SglQuoted:
		if !n.Dollar {
			c.singleQuoted = append(c.singleQuoted, [2]uint{n.Pos().Offset(), n.End().Offset()})
		}
	case *syntax.DblQuoted:
		c.doubleQuoted = append(c.doubleQuoted, [2]uint{n.Pos().Offset(), n.End().Offset()})
		if n.Dollar {
			// bash looks $"..." up in the message catalogue that
			// TEXTDOMAIN and TEXTDOMAINDIR name (a project can ship one)
			// and expands the translation as a double-quoted string, whose
			// $(...) then runs.
			c.fail("eval", n, `$"..." (a translated string)`)
		}
		for _, p := range n.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				c.quotedLits = append(c.quotedLits, l)
			}
		}
	case *syntax.Lit:
		if strings.Contains(n.Value, "<(") || strings.Contains(n.Value, ">(") || strings.Contains(n.Value, "=(") {
			// The parser keeps these as text inside ${...} words and =~
			// patterns, where bash runs <( ) and >( ) as process
			// substitutions and zsh =( ) as well; text in double quotes or
			// in a quoted here-document is text to both.
			if !slices.Contains(c.quotedLits, n) && !c.inQuotedDoc(n.Pos().Offset()) {
				c.fail("eval", n, "a process substitution the parser read as text")
			}
		}
	case *syntax.ProcSubst:
		c.substituted = append(c.substituted, [2]uint{n.Pos().Offset(), n.End().Offset()})
		c.substitution(n)
	}
	return c.found == nil
}

// redirect allows reading redirects, here-documents, descriptor copies and
// writes to the few device files that discard or pass output through.
func (c *checker) redirect(r *syntax.Redirect) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		// {NAME}>file stores the new descriptor's number in NAME, PATH or
		// IFS included.
		c.fail("env-var", r, r.N.Value+" names a variable the redirect assigns")
		return
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		c.heredoc(r)
		return
	case syntax.WordHdoc:
		return
	case syntax.RdrIn:
		a := analyse(r.Word)
		switch {
		case mayBeNetwork(a):
			detail := "a path computed at run time could be /dev/tcp/HOST/PORT"
			if a.known {
				detail = "a connection, not a file"
			}
			c.fail("network", r, detail)
		case outputFD(r):
			c.fail("redirect", r, reopened)
		case numericRange(c.src, r):
			// zsh reads <1-9> as a glob of numbered files, not two
			// redirects: "cmd <1-9>&- sh -c ..." backgrounds cmd and runs
			// sh through the precommand modifier "-" (review AZ1).
			c.fail("redirect", r, "zsh reads <N-M> as a glob of numbered files")
		}
		return
	case syntax.DplIn, syntax.DplOut:
		a := analyse(r.Word)
		if a.known && isFD(a.val) {
			if outputFD(r) && !sameStream(a.val) {
				c.fail("redirect", r, reopened)
			}
			return
		}
		// `>&word` with a word that is not a descriptor writes to a file.
		c.fail("redirect", r, "")
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		a := analyse(r.Word)
		if a.known && sinkFile(a.val) {
			return
		}
		c.fail("redirect", r, "writes "+c.text(r.Word))
	default:
		c.fail("redirect", r, "")
	}
}

// numericRange reports whether the input redirect r reads, in the source
// text, as zsh's numeric glob <N-M> (<1-9>, <->, <5->): its word is
// digits, a dash and digits, and a ">" follows it at once.
func numericRange(src string, r *syntax.Redirect) bool {
	if r.Word == nil {
		return false
	}
	lit := r.Word.Lit()
	before, after, ok := strings.Cut(lit, "-")
	if !ok || strings.Trim(before, "0123456789") != "" || strings.Trim(after, "0123456789") != "" {
		return false
	}
	end := int(r.Word.End().Offset())
	return end < len(src) && src[end] == '>'
}

// reopened explains why standard output and error may only ever be what
// they were or each other.
const reopened = "/dev/stdout and /dev/stderr would then write to the file behind it (Linux opens that file anew)"

// outputFD reports whether r sets descriptor 1 or 2, the ones /dev/stdout
// and /dev/stderr name. Writing to those names is allowed, so 1 and 2 must
// never come from a file: on Linux the names open again, for writing, the
// very file the descriptor points at (`cat x 1<main.go >/dev/stdout`
// truncates main.go), and `>&3` after `3<main.go` or `1<&0` after
// `<main.go` do the same by copying.
func outputFD(r *syntax.Redirect) bool {
	fd := "0"
	switch {
	case r.N != nil:
		fd = r.N.Value
	case r.Op == syntax.DplOut:
		fd = "1"
	}
	return stdStream(fd)
}

// sameStream reports whether a descriptor copy's source keeps 1 and 2 what
// they were: 1, 2, or closing (`>&-`).
func sameStream(src string) bool {
	return src == "-" || stdStream(src)
}

// stdStream reports whether fd is descriptor 1 or 2 as bash reads the
// number: "01" and "002" are them too.
func stdStream(fd string) bool {
	n, err := strconv.Atoi(fd)
	return err == nil && fd[0] != '+' && fd[0] != '-' && (n == 1 || n == 2)
}

// zshWord refuses what bash reads as text and zsh as an expansion: a
// subscript right after $name or ${name} ("$HOME[x]" evaluates x's value as
// arithmetic, which runs any $(...) in it), and $~, $=, $^ and $+ ($~x turns
// x's value into a pattern, where a glob qualifier runs code).
func (c *checker) zshWord(w *syntax.Word) {
	parts := openQuotes(w)
	text := "" // the literal text since the last part that is not literal
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.ParamExp:
			text = ""
			if i+1 < len(parts) {
				next, ok := parts[i+1].(*syntax.Lit)
				if ok && strings.HasPrefix(next.Value, "[") {
					c.fail("arithmetic", w, "zsh reads [...] after an expansion as a subscript")
					return
				}
				// zsh reads a non-ASCII letter as part of a name, so after
				// $x the text é[...] continues the name and subscripts it.
				if ok && p.Short && next.Value != "" && next.Value[0] >= 0x80 && subscriptedName(parts[i+1:]) {
					c.fail("arithmetic", w, "zsh reads a non-ASCII letter as part of the name, and [...] after it as a subscript")
					return
				}
				// zsh applies modifiers after an unbraced name, in double
				// quotes too: $PWD:h:s,/,-x, (review AY2).
				if ok && p.Short && len(next.Value) > 1 && next.Value[0] == ':' && zshModifier(next.Value[1]) {
					c.fail("eval", w, "zsh applies :"+string(next.Value[1])+" after $NAME as a modifier")
					return
				}
				// zsh reads $#NAME[...] as the length of a subscripted NAME
				// (the parser may split the text after $# at the "[").
				if ok && p.Short && p.Param != nil && p.Param.Value == "#" && subscriptedName(parts[i+1:]) {
					c.fail("arithmetic", w, "zsh reads $#NAME[...] as a subscript")
					return
				}
			}
		case *syntax.Lit:
			// The parser may split "$~x" into the literals "$" and "~x".
			text += p.Value
			for j := 0; j+1 < len(text); j++ {
				if text[j] == '$' && strings.IndexByte("~=^+", text[j+1]) >= 0 {
					c.fail("eval", w, "zsh expands $"+string(text[j+1])+"NAME")
					return
				}
			}
		default:
			text = ""
		}
	}
}

// zshModifier reports whether b starts one of zsh's history-style
// modifiers (:h, :t, :s/l/r/, :&, :A, ...): a letter or "&".
func zshModifier(b byte) bool {
	return b == '&' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// subscriptedName reports whether the literal text at the start of parts
// is a name followed by "[".
func subscriptedName(parts []syntax.WordPart) bool {
	text := ""
	for _, p := range parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			break
		}
		text += l.Value
	}
	// zsh takes non-ASCII letters for name characters too.
	rest := strings.TrimLeftFunc(text, func(r rune) bool {
		return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= 0x80
	})
	return len(rest) < len(text) && strings.HasPrefix(rest, "[")
}

// mayBeNetwork reports whether a redirect's target could name one of the
// paths bash itself turns into a socket. bash matches the expanded path as
// text, so only these exact prefixes connect: a path whose written start
// rules them out is safe, and so is one under $HOME (which a command may
// not reassign). $PWD and ~+ are not: "cd /dev" makes "$PWD/tcp/..." one.
func mayBeNetwork(a arg) bool {
	val, known := a.val, a.known
	if strings.HasPrefix(val, "~") {
		if val == "~" || strings.HasPrefix(val, "~/") {
			return false // $HOME
		}
		val, known = "", false // ~+, ~- and ~user expand
	}
	if !known && startsWithHome(a.word) {
		return false
	}
	for _, dev := range []string{"/dev/tcp/", "/dev/udp/"} {
		if strings.HasPrefix(val, dev) {
			return true
		}
		if !known && strings.HasPrefix(dev, val) {
			return true // the computed rest could complete it
		}
	}
	return false
}

// startsWithHome reports whether w starts with an expansion of $HOME.
func startsWithHome(w *syntax.Word) bool {
	parts := openQuotes(w)
	if len(parts) == 0 {
		return false
	}
	p := plainParam(parts[0])
	return p != nil && p.Param.Value == "HOME"
}

// heredoc refuses a here-document whose end bash could find at another line
// than the parser did: the delimiter must be a plain word (quoted or not),
// and no line of the body may look like the delimiter to bash. bash joins a
// body line ending in a backslash to the next when the delimiter is
// unquoted, and inside $( ) bash 5.2 also ends the document at a line that
// starts with the delimiter and goes on with ")".
func (c *checker) heredoc(r *syntax.Redirect) {
	const plain = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."
	raw := c.text(r.Word)
	// WORD, \WORD, 'WORD' or "WORD": bash and the parser remove the quotes
	// of these alike (not so a backslash inside double quotes).
	delim := raw
	switch {
	case strings.HasPrefix(raw, `\`):
		delim = raw[1:]
	case len(raw) > 1 && (raw[0] == '\'' || raw[0] == '"') && raw[len(raw)-1] == raw[0]:
		delim = raw[1 : len(raw)-1]
	}
	if delim == "" || strings.Trim(delim, plain) != "" {
		c.fail("heredoc", r, "the delimiter "+clip(raw)+" is not a plain word")
		return
	}
	if r.Hdoc == nil {
		return // an empty document
	}
	start, end := r.Hdoc.Pos().Offset(), r.Hdoc.End().Offset()
	if start > end || end > uint(len(c.src)) {
		c.fail("heredoc", r, "its body could not be located")
		return
	}
	// The parser's end of the document is the line the body ends on; that
	// whole line must be the delimiter (after a ${x} the parser compares
	// only what follows it, where bash compares the line).
	if nl := strings.IndexByte(c.src[end:], '\n'); nl >= 0 {
		end += uint(nl)
	} else {
		end = uint(len(c.src))
	}
	lines := strings.Split(c.src[start:end], "\n")
	strip := func(line string) string {
		if r.Op == syntax.DashHdoc {
			return strings.TrimLeft(line, "\t")
		}
		return line
	}
	if strip(lines[len(lines)-1]) != delim {
		c.fail("heredoc", r, "the line that ends it is not the delimiter alone")
		return
	}
	lines = lines[:len(lines)-1]
	if raw != delim {
		c.quotedDocs = append(c.quotedDocs, [2]uint{start, end})
	} else {
		c.doubleQuoted = append(c.doubleQuoted, [2]uint{start, end})
	}
	body := strings.Join(lines, "\n")
	if raw == delim {
		// Both readings: with every backslash-newline joined, and as written
		// (a doubled backslash before a newline does not join).
		body += "\n" + strings.ReplaceAll(body, "\\\n", "")
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strip(line), delim) {
			c.fail("heredoc", r, "a line of the body could end it early")
			return
		}
	}
}

// substitution refuses what shells read differently inside $(...) and
// <(...): a here-document (where it ends), and for bash 3.2, still macOS's
// /bin/bash, which finds the closing parenthesis by scanning the text, a
// comment (its quote can end the substitution) or a case statement (its
// pattern's ")" can).
func (c *checker) substitution(sub syntax.Node) {
	syntax.Walk(sub, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.Redirect:
			if m.Op == syntax.Hdoc || m.Op == syntax.DashHdoc {
				c.fail("heredoc", m, "a here-document inside a substitution")
			}
		case *syntax.Comment:
			c.fail("parse", sub, "a comment inside a substitution")
		case *syntax.CaseClause:
			c.fail("parse", sub, "a case statement inside a substitution")
		}
		return c.found == nil
	})
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true // `>&-` closes a descriptor
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func sinkFile(s string) bool {
	switch s {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

// arith refuses arithmetic that refers to anything but literal numbers:
// bash evaluates a variable's value as an expression there, and an array
// subscript inside that value runs command substitutions.
func (c *checker) arith(n syntax.Node, x syntax.ArithmExpr) {
	ok := true
	syntax.Walk(x, func(m syntax.Node) bool {
		switch w := m.(type) {
		case *syntax.Word:
			if !isNumber(w.Lit()) && !countOutput(w) {
				ok = false
			}
			return false
		}
		return ok
	})
	if !ok {
		c.fail("arithmetic", n, "only numbers written out, or $(wc -l < FILE), are read as arithmetic here")
	}
}

// countOutput reports whether the word is a command substitution whose
// output can only be a count: wc with one of -l, -c, -m, -w and no file
// operand (with one, wc prints the file's name too, which the project
// chooses) and no redirect but its input, alone or last in a pipeline. Arithmetic evaluates that output,
// and a count holds no subscript to run. The commands themselves are judged
// as any other (review CK: echo $(( $(wc -l < go.mod) + 1 ))).
func countOutput(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	cs, ok := w.Parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 || cs.Stmts[0].Background || cs.Stmts[0].Coprocess || cs.Stmts[0].Negated {
		return false
	}
	for _, r := range cs.Stmts[0].Redirs {
		// Only the input: 2>&1 would add the shell's own error, which
		// quotes the file name, to the count.
		if r.Op != syntax.RdrIn || r.N != nil {
			return false
		}
	}
	cmd := cs.Stmts[0].Cmd
	for {
		b, ok := cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		if b.Op != syntax.Pipe || b.Y.Background || b.Y.Coprocess || b.Y.Negated {
			return false
		}
		if len(b.Y.Redirs) > 0 {
			return false
		}
		cmd = b.Y.Cmd
	}
	call, ok := cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) != 2 || call.Args[0].Lit() != "wc" {
		return false
	}
	switch call.Args[1].Lit() {
	case "-l", "-c", "-m", "-w":
		return true
	}
	return false
}

func isNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '#' || r == '_' || r == '@') {
			return false
		}
	}
	return true
}

// param judges a parameter expansion: indirection, computed subscripts and
// slices evaluate values as code; ${x=...} assigns; ${x@P} runs prompt
// expansion, which includes command substitution.
func (c *checker) param(p *syntax.ParamExp) {
	allIndex := false
	if p.Index != nil {
		if w, ok := p.Index.(*syntax.Word); ok && (w.Lit() == "@" || w.Lit() == "*") {
			allIndex = true
		} else {
			c.arith(p, p.Index)
		}
	}
	if p.Excl && p.Names == 0 && !allIndex {
		c.fail("arithmetic", p, "indirect expansion")
	}
	if p.Slice != nil {
		if p.Slice.Offset != nil {
			c.arith(p, p.Slice.Offset)
		}
		if p.Slice.Length != nil {
			c.arith(p, p.Slice.Length)
		}
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if p.Param != nil && forbiddenVar(p.Param.Value, c.inherits(p.Param.Value)) {
				c.fail("env-var", p, p.Param.Value)
			}
		case syntax.OtherParamOps:
			if p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P") {
				c.fail("eval", p, "prompt expansion")
			}
		}
	}
}

// braceDollar refuses an unquoted $ the parser kept as text in a word with
// braces: bash expands braces first, so {$,}{x@P} becomes ${x@P}, which
// it then expands, prompt expansion and all, where the parser saw text
// (review AI2).
func (c *checker) braceDollar(w *syntax.Word) {
	if c.inTestClause(w.Pos().Offset()) {
		return // no brace expansion in [[ ]]: ^[0-9]{1,3}$ is a pattern (review AK2)
	}
	dollar := false
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && strings.Contains(l.Value, "$") {
			dollar = true
		}
	}
	if !dollar {
		return
	}
	start, end := w.Pos().Offset(), w.End().Offset()
	if end <= uint(len(c.src)) && start < end && strings.Contains(c.src[start:end], "{") {
		c.fail("eval", w, "a $ that brace expansion can join to what follows it")
	}
}

// subscript refuses an assignment's [...] holding a blank or one of
// |&;<>: the parser reads it as one subscript, while bash splits the
// arguments of declare, typeset, local, export and readonly there, and zsh
// any assignment, so what was a subscript runs as pipes, commands and
// redirects (review AI1: declare a[ 1|~1 ]=1 ran the file pushd -n had put
// on the directory stack).
func (c *checker) subscript(a *syntax.Assign) {
	start, end := a.Name.End().Offset(), a.Index.End().Offset()
	if end > uint(len(c.src)) || start > end {
		c.fail("parse", a, "a subscript that could not be located")
		return
	}
	if rb := strings.IndexByte(c.src[end:], ']'); rb >= 0 {
		end += uint(rb)
	}
	if strings.ContainsAny(c.src[start:end], " \t\n|&;<>") {
		c.fail("parse", a, "blanks or |&;<> in a subscript, where bash splits a declaration's arguments and zsh any assignment")
	}
}

// paramWords judges the words inside ${...} (a default, an alternative, a
// replacement) where the shells and the parser read them differently:
//   - inside double quotes or an unquoted here-document, bash and zsh take a
//     ' there as text and expand the $(...) it seems to quote, where the
//     parser reads '...' as quoting (review AG4: "${x:-'$(CODE)'}" ran
//     CODE in both shells, unjudged), and a } or " after it can end the
//     expansion and the string (AI3);
//   - unquoted, zsh generates file names from a default or alternative, and
//     a glob qualifier there, as in ${x:-*(e:CODE:)}, runs code for each
//     file; the parser keeps it as text (review AG1).
func (c *checker) paramWords(p *syntax.ParamExp) {
	var words []*syntax.Word
	if p.Exp != nil && p.Exp.Word != nil {
		words = append(words, p.Exp.Word)
	}
	if p.Repl != nil {
		words = append(words, p.Repl.Orig, p.Repl.With)
	}
	quoted := c.inDoubleQuotes(p.Pos().Offset())
	for _, w := range words {
		if w == nil {
			continue
		}
		for _, part := range w.Parts {
			switch part := part.(type) {
			case *syntax.SglQuoted:
				// Not only a $ in it: a } or " in it can end the ${...} and
				// the string there, for zsh and bash in POSIX mode
				// (review AI3); plain text such as '.go' is text either way
				// (review AK3).
				if quoted && strings.ContainsAny(part.Value, "$`\\}\"") {
					c.fail("eval", p, "inside double quotes the shell reads ' in ${...} as text, and expands what it seems to quote")
					return
				}
			case *syntax.Lit:
				// (A process substitution the parser kept as text is the
				// eval rule's, on the literal.)
				if !quoted && p.Exp != nil && strings.Contains(part.Value, "(") && !strings.Contains(part.Value, "<(") &&
					!strings.Contains(part.Value, ">(") && !strings.Contains(part.Value, "=(") {
					c.fail("glob-qualifier", p, "zsh generates file names from the word in ${...}, and a (...) after a pattern there is a glob qualifier")
					return
				}
			}
		}
	}
}

// test judges [[ ]]: arithmetic comparisons and -v evaluate their operands.
func (c *checker) test(x syntax.TestExpr) {
	syntax.Walk(x, func(m syntax.Node) bool {
		switch t := m.(type) {
		case *syntax.BinaryTest:
			if t.Op >= syntax.TsEql && t.Op <= syntax.TsGtr {
				for _, side := range []syntax.TestExpr{t.X, t.Y} {
					if w, ok := side.(*syntax.Word); !ok || !isNumber(w.Lit()) && !isNegNumber(w.Lit()) {
						c.fail("arithmetic", t, "")
					}
				}
			}
		case *syntax.UnaryTest:
			if t.Op == syntax.TsFdTerm {
				if w, ok := t.X.(*syntax.Word); !ok || !isNumber(w.Lit()) {
					c.fail("arithmetic", t, "")
				}
			}
			if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
				if w, ok := t.X.(*syntax.Word); !ok || !isName(w.Lit()) {
					c.fail("arithmetic", t, "")
				}
			}
		}
		return c.found == nil
	})
}

func isNegNumber(s string) bool { return strings.HasPrefix(s, "-") && isNumber(s[1:]) }

// isName reports whether s is a plain shell variable name.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// declFlags are the attributes declare and typeset may give or take away,
// harmless in bash and zsh alike: arrays, globals, functions listed,
// printing, readonly, tags, export and case. The others evaluate values as
// arithmetic, where a subscript runs $(...): bash's -i, zsh's -i, -E and -F
// (floats); or make names refer elsewhere or match (-n, zsh's -T, -m), or
// are zsh's formats and hiding (-L, -R, -Z, -h, -H).
const declFlags = "aAfgprtxluU"

// decl judges declare, typeset, local, export, readonly and nameref.
func (c *checker) decl(d *syntax.DeclClause) {
	variant := d.Variant.Value
	if variant == "nameref" {
		c.fail("eval", d, "nameref")
		return
	}
	exported := variant == "export"
	for _, a := range d.Args {
		if a.Naked && a.Name == nil {
			w := analyse(a.Value)
			if !w.known || !strings.HasPrefix(w.val, "-") && !strings.HasPrefix(w.val, "+") {
				c.fail("dynamic-arg", d, "")
				return
			}
			if strings.Trim(w.val[1:], declFlags) != "" {
				c.fail("eval", d, variant+" "+w.val)
				return
			}
			if strings.Contains(w.val, "x") && w.val[0] == '-' {
				exported = true
			}
		}
	}
	for _, a := range d.Args {
		if a.Name != nil && forbiddenAssign(a, exported || c.inherits(a.Name.Value)) {
			c.fail("env-var", d, a.Name.Value)
			return
		}
		if a.Name != nil && a.Value != nil && a.Array == nil && compoundValue(a.Value) {
			c.fail("eval", d, variant+" "+a.Name.Value+"=…")
			return
		}
	}
}

// compoundValue reports whether bash may read a declaration's value as a
// compound array assignment, parsing it again as shell words: a value that
// starts with "(" once its quotes are gone, or one computed at run time
// (its text is not in sight). declare, typeset, local, export and readonly
// do that when the name is, or is made, an array (-a, -A), so
// `declare -a a='($(cmd))'` or `declare -a a="$x"` runs what the value
// holds, though the parser sees a quoted string (review W1).
func compoundValue(v *syntax.Word) bool {
	w := analyse(v)
	return !w.known || strings.HasPrefix(w.val, "(")
}

// forbiddenAssign is forbiddenVar for an assignment whose value is in
// sight: a locale variable may take a literal C, POSIX or UTF-8 locale.
func forbiddenAssign(a *syntax.Assign, exported bool) bool {
	if a.Array != nil || a.Index != nil || a.Append {
		return forbiddenVar(a.Name.Value, exported)
	}
	val, known := "", true
	if a.Value != nil {
		v := analyse(a.Value)
		val, known = v.val, v.known
	}
	return forbiddenValue(a.Name.Value, val, known, exported)
}

// forbiddenValue is forbiddenVar for name given the value val (known false:
// only partly known, val being its start).
func forbiddenValue(name, val string, known, exported bool) bool {
	if zshInteger()[name] {
		return !known || !plainInteger(val)
	}
	if localeVar(name) {
		return !known || !plainLocale(val)
	}
	if messagesVar(name) {
		return !known || !localeName(val, name == "LANGUAGE")
	}
	return forbiddenVar(name, exported)
}

// messagesVar reports whether name chooses where programs read their
// messages and locale data from (LANGUAGE, LC_MESSAGES, LC_TIME, ...):
// gettext takes "../" in LANGUAGE, and a value with a "/" names a folder,
// so a catalogue the project ships would give every program its text and
// its printf formats.
func messagesVar(name string) bool {
	return name == "LANGUAGE" || strings.HasPrefix(name, "LC_") && !localeVar(name)
}

// localeName reports whether v is a locale's name and nothing more (list:
// LANGUAGE's colon-separated list of them): no "/", so no path.
func localeName(v string, list bool) bool {
	for _, r := range v {
		if !(r == '_' || r == '.' || r == '-' || r == '@' || list && r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// localeVar reports whether name sets the character set that bash reads
// the rest of the command in, and that programs read their scripts in (sed,
// awk). In Big5, GBK or Shift-JIS a non-ASCII byte and the backslash after
// it are one character, where the parser, reading UTF-8, sees an escape.
func localeVar(name string) bool {
	return name == "LC_ALL" || name == "LC_CTYPE" || name == "LANG"
}

// plainLocale reports whether v names a locale whose text reads as the
// parser reads it: empty (the default), C, POSIX or a UTF-8 locale.
func plainLocale(v string) bool {
	if v == "" || v == "C" || v == "POSIX" {
		return true
	}
	for _, r := range v {
		if !(r == '_' || r == '.' || r == '-' || r == '@' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	base, _, _ := strings.Cut(strings.ToLower(v), "@")
	return strings.HasSuffix(base, ".utf-8") || strings.HasSuffix(base, ".utf8")
}

// inherits reports whether the shell may already export name
// (Config.Inherited): assigning it then reaches the programs the command
// runs as an export would.
func (c *checker) inherits(name string) bool {
	return c.inherited != nil && c.inherited(name)
}

// forbiddenVar reports whether assigning name could change which programs
// run or how they read their input. exported is true when the value reaches
// the environment of programs (NAME=v cmd, env NAME=v, export): there every
// upper-case name not known to be harmless is refused, since tools read many
// of them (PAGER, GIT_*, LESSOPEN, RIPGREP_CONFIG_PATH, ...).
func forbiddenVar(name string, exported bool) bool {
	if zshSpecial()[name] || zshInteger()[name] || localeVar(name) || messagesVar(name) {
		// (A locale variable with a literal value: forbiddenAssign.)
		return true
	}
	switch name {
	case "PATH", "IFS", "ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE", "HOME",
		"PS4", "PROMPT_COMMAND", "EDITOR", "VISUAL", "SHELL", "BROWSER",
		"RIPGREP_CONFIG_PATH", "GREP_OPTIONS", "TMPDIR", "PWD", "OLDPWD", "DIRSTACK", "EXECIGNORE":
		return true
	case "MANOPT", "TAR_OPTIONS", "GCONV_PATH", "LOCPATH":
		// Read as options or as where to load code from: exported or not,
		// since the shell may export them already, empty (review AT, S1).
		return true
	case "POSIXLY_CORRECT":
		// bash goes into POSIX mode when it is set, and reads the rest of
		// the line otherwise: a ' in a double-quoted ${...} is then text,
		// and aliases are expanded (review AI3).
		return true
	case "CC", "CXX", "CPP", "GCCGO", "PKG_CONFIG":
		// The compilers and helpers go and its friends run: go env runs
		// $CC for GOGCCFLAGS, and with CC exported by the user's shell,
		// CC=$PWD/x; go env ran the project's x (review CN3).
		return true
	case "RANDOM", "SRANDOM", "OPTIND", "HISTCMD":
		// bash evaluates a value assigned to these as arithmetic, and a
		// subscript there runs its $(...): RANDOM='a[$(cmd)]', or RANDOM=x
		// with x holding that text.
		return true
	}
	// Version managers' shims run the program their variables name
	// (PYENV_VERSION, RBENV_VERSION, VOLTA_HOME, ASDF_DATA_DIR,
	// COREPACK_NPM_REGISTRY, ...),
	// exported or not: a user's shell often exports them already.
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "BASH", "LESS", "PYTHON", "NODE_", "PERL", "RUBY", "GO", "XDG_", "CLAUDE",
		"PYENV", "RBENV", "NODENV", "VOLTA", "ASDF", "MISE", "RTX_", "NVM_", "JENV", "SDKMAN", "PLENV", "PHPENV", "CONDA", "VIRTUAL_ENV", "UV_", "RUSTUP", "CARGO", "COREPACK", "CGO_",
		// man's and groff's: GROFF_BIN_PATH names the folder groff runs
		// troff and grotty from (review CN7: with it exported, man jq ran
		// the project's troff), MAN_DISABLE_SECCOMP its sandbox.
		"GROFF_", "MAN_", "MANROFF"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	upper := strings.ToUpper(name)
	if strings.HasSuffix(upper, "PAGER") || strings.HasPrefix(upper, "NPM_CONFIG_") {
		return true
	}
	if exported && name == upper {
		return !harmlessEnv(name)
	}
	return false
}

// zshSpecial are zsh's parameters that change what runs when assigned, in
// the case zsh spells them: the lower-case arrays tied to PATH and friends,
// the zsh/parameter arrays that define functions, aliases, command paths
// and options, the prompts (run as code under PROMPT_SUBST) and the
// commands zsh runs for a line of redirects alone. Claude Code runs the
// Bash tool in the user's shell, which is zsh on macOS.
var zshSpecial = sync.OnceValue(func() map[string]bool {
	return set("path", "fpath", "cdpath", "manpath", "mailpath", "module_path", "FPATH", "MODULE_PATH",
		"MANPATH", "MAILPATH", "functions", "dis_functions", "functions_source", "aliases",
		"dis_aliases", "galiases", "dis_galiases", "saliases", "dis_saliases", "commands",
		"builtins", "dis_builtins", "reswords", "dis_reswords", "patchars", "dis_patchars",
		"options", "nameddirs", "userdirs", "modules", "parameters", "widgets", "keymaps",
		"NULLCMD", "READNULLCMD", "PROMPT", "PROMPT2", "PROMPT3", "PROMPT4", "PS1", "PS2", "PS3",
		"RPROMPT", "RPROMPT2", "RPS1", "RPS2", "TMPPREFIX", "ZDOTDIR", "chpwd_functions",
		"precmd_functions", "preexec_functions", "periodic_functions", "zshaddhistory_functions",
		"zshexit_functions", "psvar", "dirstack",
		// The third character of histchars is the comment character, and
		// zsh lexes a $(...) again when it runs it (review AG3).
		"histchars", "HISTCHARS",
		// zsh/mapfile (when a startup file loads it): assigning an element
		// writes the file it names.
		"mapfile")
})

// zshInteger are zsh's special parameters that hold integers: a value
// assigned to one is evaluated as arithmetic, and a subscript in it runs
// its $(...), as in SECONDS='path[$(CODE)1]' (review AM1; bash's RANDOM,
// SRANDOM, OPTIND and HISTCMD likewise, forbiddenVar). Only a literal
// number may be assigned (forbiddenValue): COLUMNS=200 git log stays.
var zshInteger = sync.OnceValue(func() map[string]bool {
	return set("SECONDS", "COLUMNS", "LINES", "SHLVL", "HISTSIZE", "SAVEHIST", "FUNCNEST", "KEYTIMEOUT",
		"LISTMAX", "MAILCHECK", "TRY_BLOCK_ERROR", "TRY_BLOCK_INTERRUPT", "GID", "EGID", "UID", "EUID",
		"ERRNO", "TMOUT", "ZLE_RPROMPT_INDENT", "DIRSTACKSIZE", "LINENO",
		// zsh/watch, which expanding $WATCH or $watch loads (review AO3).
		"LOGCHECK")
})

// plainInteger reports whether s is a decimal integer, perhaps negative.
func plainInteger(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

func harmlessEnv(name string) bool {
	switch name {
	case "LANG", "LANGUAGE", "TZ", "NO_COLOR", "TERM", "COLUMNS", "LINES", "CLICOLOR",
		"CLICOLOR_FORCE", "FORCE_COLOR", "COLORTERM", "GREP_COLOR", "GREP_COLORS", "LS_COLORS",
		"TIME_STYLE", "QUOTING_STYLE", "BLOCK_SIZE", "DU_BLOCK_SIZE", "DF_BLOCK_SIZE",
		"JQ_COLORS", "TABSIZE":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}
