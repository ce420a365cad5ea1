package policy

import (
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// checkAwk allows awk with an inline program that only prints to standard
// output, and only the options in its grammar (-F, -v and a few switches).
func checkAwk(c *checker, n syntax.Node, args []arg) bool {
	readings := c.options(n, "awk", args)
	if readings == nil {
		return false
	}
	p := readings[0]
	if len(p.operands) == 0 {
		return true // awk reports the missing program
	}
	program := p.operands[0]
	if !program.known {
		return c.deny(n, "awk-program", "the program is computed at run time")
	}
	// gawk opens /inet/..., /inet4/... and /inet6/... as network
	// connections, named as a file operand or in a -v or NAME=value
	// assignment as well as in the program.
	for _, a := range args {
		if a.word == program.word {
			continue
		}
		v := a.val
		if _, after, ok := strings.Cut(v, "="); ok {
			v = after
		}
		// A computed word could complete its known start to /inet; the
		// names a glob such as *.go makes are relative.
		could := strings.HasPrefix("/inet", v) && (!a.glob || a.splits || v != "")
		if strings.Contains(v, "/inet") || !a.known && could {
			return c.deny(n, "awk-program", "gawk may open "+c.text(a.word)+" as a network connection")
		}
	}
	if why := awkProgram(program.val); why != "" {
		return c.deny(n, "awk-program", why)
	}
	return true
}

// awkProgram returns why an awk program is refused, or "" when it only reads
// and prints to standard output. It scans tokens, skipping strings, regular
// expressions and comments, and refuses system(), any pipe, gawk's @load and
// @include, and output redirection in print statements other than to
// /dev/stdout, /dev/stderr or /dev/null.
func awkProgram(p string) string {
	const (
		operator = iota // a regular expression may follow
		operand         // a division may follow
	)
	prev := operator
	depth := 0
	printDepth := -1 // paren depth of the print statement being scanned
	// continued is true after a token that lets the statement go on past a
	// newline: awk reads "print a,\n b > f" as one print.
	continued := false
	// conds holds, for each open parenthesis or bracket, whether it is the
	// condition of if, while or for: after its ")" a slash starts a regular
	// expression ("if (x) /re/"), after any other ")" it divides.
	var conds []bool
	condNext := false // the last token was if, while or for
	// target follows the left side of an assignment written at the start
	// of a statement (x, $1, $x, a[k]). gawk reads "/=" as the start of a
	// regular expression wherever what comes before it cannot be assigned
	// (a number, a string, a ")", a concatenation such as "1 x"), so "/="
	// is only taken for a division assignment right after such a target.
	const (
		noTarget    = iota
		stmtStart   // a statement starts here
		afterDollar // a "$" that starts a statement
		lone        // a variable that starts a statement
	)
	target := stmtStart
	inNext := false // the last token was the keyword in
	var subs []bool // for each open parenthesis or bracket: a lone variable's subscript
	for i := 0; i < len(p); {
		ch := p[i]
		wasContinued, wasCondNext := continued, condNext
		wasTarget := target
		wasIn := inNext
		escapedNewline := ch == '\\' && i+1 < len(p) && p[i+1] == '\n'
		if !awkBlank(ch) && ch != '#' && !escapedNewline {
			// A comment does not end a statement that goes on, nor does
			// an escaped newline: awk drops it before reading tokens, so
			// "if \⏎(x)" is still a condition and "print a, \⏎⏎b" one
			// print.
			continued, condNext = false, false
			target = noTarget
			inNext = false
		}
		switch {
		case ch == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		case escapedNewline:
			i += 2
		case awkBlank(ch):
			i++
		case ch == '"':
			s, end, ok := awkString(p, i)
			if !ok {
				return "an awk string does not end on its line"
			}
			i = end
			// Escapes could spell it ("/\inet", "/\151net", "/\x69net"):
			// judge the text as written and as gawk decodes it.
			if strings.Contains(s, "inet") || strings.Contains(awkUnescape(s), "inet") {
				return "gawk opens a network connection for /inet/..."
			}
			prev = operand
		case ch == '/' && prev == operator:
			var why string
			if i, why = awkRegex(p, i); why != "" {
				return why
			}
			prev = operand
			// mawk divides a regular expression by what follows; BSD awk
			// ends a pattern there and starts the next rule with another
			// ("/a/ /#/ system(...)").
			if awkSlashNext(p, i) {
				return "a slash after a regular expression could be a division or a new rule's regular expression"
			}
		case isIdentStart(ch):
			j := i
			for j < len(p) && (isIdentStart(p[j]) || p[j] >= '0' && p[j] <= '9') {
				j++
			}
			word := p[i:j]
			i = j
			prev = operand
			// BSD awk reads a pattern that ends in a regular expression
			// or in "in NAME" as a whole rule, so a slash after it starts
			// the next rule's regular expression: "1 in a /#/ system(...)"
			// runs system(), where mawk and the scan see a division.
			if wasIn && awkSlashNext(p, i) {
				return "a slash after in " + word + " could be a division or a new rule's regular expression"
			}
			inNext = word == "in"
			switch {
			case word == "system":
				return "awk system() runs a command"
			case word == "ARGV" || word == "ARGC" || word == "SYMTAB" || word == "FUNCTAB":
				// Changing them names more files to read, /inet/... too;
				// gawk's SYMTAB reaches every global by name, ARGV
				// included (SYMTAB["ARGV"]), and FUNCTAB every function.
				return "awk " + word + " names the files awk reads, or reaches what does"
			case word == "print" || word == "printf":
				printDepth = depth
				prev = operator
			case word == "if" || word == "while" || word == "for":
				condNext = true
				prev = operator
			case word == "length" && awkSlashNext(p, i):
				// mawk and BSD awk read a slash after a bare length as a
				// regular expression, gawk may read a division.
				return "a slash after length could be a division or a regular expression"
			case awkDialectKeywords()[word] && awkSlashNext(p, i):
				// A keyword to some awks and a variable to others: a
				// regular expression may follow it in one and a division
				// in the other ("case /=x+system(...);" divides in mawk).
				return "a slash after " + word + " could be a division or a regular expression"
			case word == "getline":
				// gawk reads /inet/tcp/... from the network: the file must
				// be one string written out.
				if why := awkGetline(p, i); why != "" {
					return why
				}
			case awkKeywords()[word]:
				// A slash after a keyword starts a regular expression;
				// reading it as a division could hide code behind "#".
				prev = operator
			}
			if prev == operand && (wasTarget == stmtStart || wasTarget == afterDollar) {
				target = lone
			}
			if word == "else" || word == "do" {
				target = stmtStart
			}
		case ch >= '0' && ch <= '9' || ch == '.':
			var why string
			if i, why = awkNumber(p, i); why != "" {
				return why
			}
			prev = operand
			if wasTarget == afterDollar {
				target = lone
			}
		case ch == '@':
			return "gawk @ directives load code"
		case ch == '|':
			if i+1 < len(p) && p[i+1] == '|' {
				i += 2
				prev = operator
				continued = true
				continue
			}
			return "awk | pipes to or from a command"
		case ch == '>' && printDepth >= 0 && depth == printDepth:
			i++
			if i < len(p) && p[i] == '>' {
				i++
			}
			for i < len(p) && awkBlank(p[i]) {
				i++
			}
			if i >= len(p) || p[i] != '"' {
				return "awk print > writes a file"
			}
			target, end, ok := awkString(p, i)
			if !ok {
				return "an awk string does not end on its line"
			}
			i = end
			for i < len(p) && awkBlank(p[i]) {
				i++
			}
			// The target must be the whole expression: "/dev/null" "x"
			// would concatenate into another file name.
			if !sinkFile(target) || i < len(p) && p[i] != ';' && p[i] != '}' && p[i] != '\n' {
				return "awk print > writes " + target
			}
			prev = operand
		case ch == '(' || ch == '[':
			depth++
			conds = append(conds, ch == '(' && wasCondNext)
			subs = append(subs, ch == '[' && wasTarget == lone)
			i++
			prev = operator
		case ch == ')' || ch == ']':
			depth--
			i++
			prev = operand
			if n := len(conds); n > 0 {
				if conds[n-1] {
					prev = operator
					target = stmtStart
				}
				if subs[n-1] {
					target = lone
				}
				conds, subs = conds[:n-1], subs[:n-1]
			}
		case ch == '\n' && (wasContinued || printDepth >= 0 && depth > printDepth):
			// A print statement goes on past this newline.
			i++
			continued = true
		case ch == ';' || ch == '\n' || ch == '{' || ch == '}':
			printDepth = -1
			i++
			prev = operator
			target = stmtStart
		case ch == ',' || ch == '?' || ch == ':' || ch == '&' && i+1 < len(p) && p[i+1] == '&':
			i++
			if ch == '&' {
				i++
			}
			prev = operator
			continued = true
		case (ch == '+' || ch == '-') && i+1 < len(p) && p[i+1] == ch:
			// Taken as postfix. A slash after it divides to gawk but
			// starts a regular expression to mawk and BSD awk.
			i += 2
			prev = operand
			if awkSlashNext(p, i) {
				return "a slash after " + p[i-2:i] + " could be a division or a regular expression"
			}
		case ch == '/' && i+1 < len(p) && p[i+1] == '=' && wasTarget != lone:
			// Only a variable can be divided in place. After a number, a
			// string, a ")" or "1 x" the other awks still read a division
			// assignment (or reject it), but gawk starts a regular
			// expression: "1 /=/; system(...) #/" runs system().
			return "a /= that does not follow a variable starting a statement could be a regular expression"
		default:
			i++
			prev = operator
			if ch == '$' && wasTarget == stmtStart {
				target = afterDollar
			}
		}
	}
	return ""
}

// awkNumber scans the number starting at p[i] and returns the index after
// it. awk reads a number as far as it makes one (strtod): "1ein" is 1 and
// the name ein, where a scan that took the "e" left the keyword in. The
// awks part on hexadecimal (gawk and busybox read 0x1f as 31, mawk and BSD
// awk as 0 and the name x1f), so a number that runs into a name is refused.
func awkNumber(p string, i int) (int, string) {
	start := i
	digits := func() {
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
	}
	hex := func(b byte) bool {
		return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
	}
	if p[i] == '0' && i+2 < len(p) && (p[i+1] == 'x' || p[i+1] == 'X') && hex(p[i+2]) {
		for i += 2; i < len(p) && hex(p[i]); i++ {
		}
	} else {
		digits()
		if i < len(p) && p[i] == '.' {
			i++
			digits()
		}
		if i < len(p) && (p[i] == 'e' || p[i] == 'E') {
			j := i + 1
			if j < len(p) && (p[j] == '+' || p[j] == '-') {
				j++
			}
			if j < len(p) && p[j] >= '0' && p[j] <= '9' {
				i = j
				digits()
			}
		}
	}
	if i < len(p) && isIdentStart(p[i]) {
		return i, "awk number " + p[start:i+1] + "...: the awks split a number and a name differently"
	}
	return i, ""
}

// awkGetline judges what follows getline (p[i:]): nothing, a plain
// variable, or either followed by < and one string written out. gawk reads
// /inet/tcp/... from the network, so the file must be known. A slash right
// after getline divides in some awks; read as a regular expression instead
// it could hide code behind "#".
func awkGetline(p string, i int) string {
	skip := func() {
		for i < len(p) && awkBlank(p[i]) {
			i++
		}
	}
	skip()
	if i < len(p) && p[i] == '/' {
		return "a slash after getline could be a division or a regular expression"
	}
	if i < len(p) && isIdentStart(p[i]) {
		for i < len(p) && (isIdentStart(p[i]) || p[i] >= '0' && p[i] <= '9') {
			i++
		}
		skip()
	}
	if i >= len(p) || p[i] != '<' {
		if i < len(p) && (p[i] == '[' || p[i] == '$') {
			return "getline into " + string(p[i]) + "...: write a plain variable"
		}
		return ""
	}
	i++
	skip()
	if i >= len(p) || p[i] != '"' {
		return "getline reads from a file named at run time"
	}
	_, i, ok := awkString(p, i)
	if !ok {
		return "an awk string does not end on its line"
	}
	skip()
	if i < len(p) && strings.IndexByte(")};\n", p[i]) < 0 {
		return "getline reads from a file named at run time"
	}
	return ""
}

// awkUnescape decodes a string literal's escapes as gawk does: \NNN octal,
// \xHH hexadecimal, \uHHHH (gawk 5.3) and any other \c as c.
func awkUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		c := s[i]
		run := func(set string, max int) string {
			j := i
			for j < len(s) && j-i < max && strings.IndexByte(set, s[j]) >= 0 {
				j++
			}
			return s[i:j]
		}
		switch {
		case c >= '0' && c <= '7':
			d := run("01234567", 3)
			n, _ := strconv.ParseUint(d, 8, 8)
			b.WriteByte(byte(n))
			i += len(d) - 1
		case c == 'x' || c == 'u':
			max := 2
			if c == 'u' {
				max = 8
			}
			i++
			d := run("0123456789abcdefABCDEF", max)
			if d == "" {
				b.WriteByte(c) // nothing to decode: the letter stands
				i--
				continue
			}
			n, _ := strconv.ParseUint(d, 16, 32)
			b.WriteRune(rune(n))
			i += len(d) - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// awkString scans the string literal starting at p[i] == '"' and returns its
// value (escapes kept), the index after it, and whether it ends on its line.
// Every awk rejects a string that runs into a newline or the end of the
// program, so one that does was not a string to the awk that runs it: the
// scan went wrong earlier (a slash it took for a division, say) and must
// not let the string hide what follows.
func awkString(p string, i int) (string, int, bool) {
	var b strings.Builder
	for i++; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) {
				b.WriteByte(p[i])
				i++
				b.WriteByte(p[i])
			}
			continue
		case '"':
			return b.String(), i + 1, true
		case '\n':
			return b.String(), i, false
		}
		b.WriteByte(p[i])
	}
	return b.String(), i, false
}

// awkKeywords are the words after which a slash starts a regular
// expression.
var awkKeywords = sync.OnceValue(func() map[string]bool {
	return set("BEGIN", "END", "function", "func", "if", "else", "while", "for", "do", "break",
		"continue", "next", "nextfile", "exit", "return", "delete", "getline", "in", "case", "default", "switch")
})

// awkDialectKeywords are the words only some awks reserve: gawk's switch,
// case and default are variables to mawk, BSD awk and busybox awk, and func
// is a variable to mawk.
var awkDialectKeywords = sync.OnceValue(func() map[string]bool {
	return set("switch", "case", "default", "func")
})

// awkRegex scans the regular expression starting at p[i] == '/' and returns
// the index after it. A slash inside a bracket expression does not end it,
// nor does one inside a character class ("[[:alpha:]/]"). The awks differ
// on anything else that opens with "[" inside a bracket (gawk's scanner
// counts "[:" whatever follows, BSD awk knows no "[." or "[="), so such a
// regular expression is refused with the reason, and so is one that does
// not end on its line: every awk rejects that, so the slash that opened it
// was a division to the awk that runs the program and what followed was
// code.
func awkRegex(p string, i int) (int, string) {
	inBracket := false
	// escapedClose is true once the open bracket holds "\]". busybox awk
	// ends a regular expression at the first slash, brackets or not, and
	// hands it to regcomp, for which a backslash in a bracket is a plain
	// character: "[\]x" is complete there, so a slash after it ends the
	// regular expression for busybox while the scan, like gawk and mawk,
	// is still inside the bracket.
	escapedClose := false
	for i++; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
			if inBracket && i < len(p) && p[i] == ']' {
				escapedClose = true
			}
		case '[':
			if !inBracket {
				inBracket, escapedClose = true, false
				// "[]...]" and "[^]...]" hold a literal "]".
				if i+1 < len(p) && p[i+1] == '^' {
					i++
				}
				if i+1 < len(p) && p[i+1] == ']' {
					i++
				}
				continue
			}
			if i+1 >= len(p) || strings.IndexByte(":.=", p[i+1]) < 0 {
				continue
			}
			end := strings.Index(p[i+2:], ":]")
			if p[i+1] != ':' || end < 0 || !awkClasses()[p[i+2:i+2+end]] {
				return i, "awk regular expression with " + p[i:i+2] + " in a bracket: the awks read it differently"
			}
			i += 2 + end + 1 // at the class's "]"
		case ']':
			inBracket = false
		case '/':
			if !inBracket {
				return i + 1, ""
			}
			if escapedClose {
				return i, `a slash after "\]" in a bracket ends the regular expression in busybox awk`
			}
		case '\n':
			return i, "an awk regular expression does not end on its line"
		}
	}
	return i, "an awk regular expression does not end on its line"
}

// awkClasses are the character classes every awk knows by name.
var awkClasses = sync.OnceValue(func() map[string]bool {
	return set("alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit")
})

// awkSlashNext reports whether the next token after p[i:] is a slash,
// past blanks and escaped newlines.
func awkSlashNext(p string, i int) bool {
	for i < len(p) {
		switch {
		case awkBlank(p[i]):
			i++
		case p[i] == '\\' && i+1 < len(p) && p[i+1] == '\n':
			i += 2
		default:
			return p[i] == '/'
		}
	}
	return false
}

// awkBlank reports whether awk skips b between tokens. mawk counts form
// feed and vertical tab as blanks: taken for operators, they made a
// division read as the start of a regular expression.
func awkBlank(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\f' || b == '\v'
}

func isIdentStart(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
