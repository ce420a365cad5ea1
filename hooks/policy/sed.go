package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// checkSed allows sed without -i and with scripts that neither write files
// nor run commands. Scripts read from files (-f) cannot be inspected. The
// script is each -e value, or else the first operand, in both GNU's reading
// (options anywhere) and BSD's (options before the first operand).
func checkSed(c *checker, n syntax.Node, args []arg) bool {
	readings := c.options(n, "sed", args)
	for _, p := range readings {
		var scripts []arg
		for _, u := range p.opts {
			if u.o.long == "expression" && u.hasValue {
				scripts = append(scripts, arg{val: u.value, known: !u.computed})
			}
		}
		if len(scripts) == 0 && len(p.operands) > 0 {
			scripts = append(scripts, p.operands[0])
		}
		for _, s := range scripts {
			if !s.known {
				return c.deny(n, "sed-script", "the script is computed at run time")
			}
			if why := sedScript(s.val); why != "" {
				return c.deny(n, "sed-script", why)
			}
		}
	}
	return readings != nil
}

// sedScript returns why a sed script is refused, or "" when it only reads
// its input and prints. It understands GNU sed's grammar; any command it does
// not know is refused. Seds differ on a delimiter inside a bracket
// expression: GNU sed 4.9 and BSD sed skip "[...]" first, so in
// s/[/]/#/w f the regular expression is "[/]" and w writes f; others end it
// at that "/". The script is read both ways: the first is judged in full,
// and the second is refused only where it writes or runs something (a sed
// that reads it so stops at its first error, before the rest).
func sedScript(s string) string {
	if why, _ := readSed(s, true); why != "" {
		return why
	}
	if why, harmful := readSed(s, false); harmful {
		return why + " (read as seds that end a regular expression inside [...])"
	}
	return ""
}

// readSed reads script s, skipping bracket expressions in regular
// expressions when brackets is set, and returns why it is refused, or "",
// and whether that is because it writes or runs something (rather than
// being a command or syntax the policy does not know).
func readSed(s string, brackets bool) (why string, harmful bool) {
	i := 0
	skipTo := func(stops string) {
		for i < len(s) && strings.IndexByte(stops, s[i]) < 0 {
			i++
		}
	}
	// delimited skips a part ending with delim, honouring backslashes.
	delimited := func(delim byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case delim:
				i++
				return true
			}
			i++
		}
		return false
	}
	// regex skips a regular expression ending with delim; unclear is set
	// when seds could end a bracket expression in it at different places.
	unclear := false
	regex := func(delim byte) bool {
		if !brackets {
			return delimited(delim)
		}
		for i < len(s) {
			switch {
			case s[i] == '\\':
				i += 2
				continue
			case s[i] == '[':
				j := bracketEnd(s, i)
				if j < 0 {
					unclear = true
					return false
				}
				if j > 0 {
					i = j
					continue
				}
			case s[i] == delim:
				i++
				return true
			}
			i++
		}
		return false
	}
	address := func() bool {
		switch {
		case i < len(s) && (s[i] >= '0' && s[i] <= '9'):
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] == '/':
			i++
			if !regex('/') {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !regex(d) {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for {
		for i < len(s) && strings.IndexByte(" \t\n;", s[i]) >= 0 {
			i++
		}
		if i >= len(s) {
			return "", false
		}
		if s[i] == '#' {
			skipTo("\n")
			continue
		}
		if !address() || unclear {
			return unterminated("address", unclear), false
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() || unclear {
				return unterminated("address", unclear), false
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return "missing command", false
		}
		cmd := s[i]
		i++
		switch cmd {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'q', 'Q', 'L':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case ':', 'b', 't', 'T', 'v':
			// GNU sed ends a label (or v's version) at the first blank and
			// reads what follows as the next command: ":a w out" writes out.
			// Ending it there too can only make the policy read more.
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			skipTo(" \t;\n")
		case 'a', 'i', 'c':
			// Text up to an unescaped newline; it is only printed.
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'r', 'R':
			skipTo("\n") // reads a file
		case 'w', 'W':
			return "sed " + string(cmd) + " writes a file", true
		case 'e':
			return "sed e runs a command", true
		case 's':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return "bad s command", false
			}
			d := s[i]
			i++
			if !regex(d) || unclear || !delimited(d) {
				return unterminated("s command", unclear), false
			}
			for i < len(s) && strings.IndexByte(" \t\n;}#", s[i]) < 0 {
				switch f := s[i]; {
				case f == 'w':
					return "s///w writes a file", true
				case f == 'e':
					return "s///e runs the pattern space as a command", true
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
				default:
					return "unknown s flag " + string(f), false
				}
				i++
			}
		case 'y':
			if i >= len(s) {
				return "bad y command", false
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return "unterminated y command", false
			}
		default:
			return "unknown sed command " + string(cmd), false
		}
	}
}

// unterminated is readSed's reason for a part it could not read to its end.
func unterminated(what string, unclear bool) string {
	if unclear {
		return "a [: [. or [= in a bracket expression of the " + what + " that seds read differently"
	}
	return "unterminated " + what
}

// bracketEnd returns the index just after the bracket expression that
// starts at s[i] ("["), 0 when there is none, or -1 when seds would end it
// at different places: "[", an optional "^", an optional "]" taken as a
// member, then members up to "]", where "[:name:]" (letters), "[.x.]" and
// "[=x=]" (one character) are members of their own. Anything else after
// "[:", "[." or "[=" is unclear: GNU sed reads on in pairs of characters
// (so "[[:::]]" does not end where a search for ":]" ends it).
func bracketEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for j < len(s) {
		switch {
		case s[j] == ']':
			return j + 1
		case s[j] == '[' && j+1 < len(s) && strings.IndexByte(":.=", s[j+1]) >= 0:
			c, k := s[j+1], j+2
			if c == ':' {
				for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
					k++
				}
				if k == j+2 {
					return -1
				}
			} else if k < len(s) && s[k] != c && s[k] != ']' && s[k] != '\n' {
				k++
			} else {
				return -1
			}
			if k+1 >= len(s) || s[k] != c || s[k+1] != ']' {
				return -1
			}
			j = k + 2
			continue
		case s[j] == '\n':
			return 0
		}
		j++
	}
	return 0
}
