package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// checkSed allows sed without -i and with scripts that neither write files
// nor run commands. Scripts read from files (-f) cannot be inspected.
func checkSed(c *checker, n syntax.Node, args []arg) bool {
	var scripts []string
	operands := 0
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			rest := args[i+1:]
			if len(scripts) == 0 && len(rest) > 0 {
				// "sed -- SCRIPT FILE": the first operand is still the script.
				scripts = append(scripts, rest[0].val)
				rest = rest[1:]
			}
			operands += len(rest)
			i = len(args)
		case strings.HasPrefix(v, "--"):
			key, val, hasVal := strings.Cut(v, "=")
			switch {
			case longIs(key, "--in-place"):
				return c.deny(n, "sed-in-place", "sed "+key)
			case longIs(key, "--expression"):
				if !hasVal {
					i++
					if i >= len(args) {
						return true // sed reports the missing script
					}
					val = args[i].val
				}
				scripts = append(scripts, val)
			case longIs(key, "--file"):
				return c.deny(n, "sed-script", "sed --file reads a script the policy cannot see")
			case longIs(key, "--line-length"):
				if !hasVal {
					i++
				}
			case key == "--quiet" || key == "--silent" || key == "--regexp-extended" || key == "--separate" ||
				key == "--unbuffered" || key == "--null-data" || key == "--zero-terminated" ||
				key == "--posix" || key == "--debug" || key == "--sandbox" || key == "--follow-symlinks":
			default:
				return c.deny(n, "sed-script", "unknown option "+key)
			}
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'n', 'E', 'r', 's', 'u', 'z':
				case 'i':
					return c.deny(n, "sed-in-place", "sed "+v)
				case 'e':
					s := v[j+1:]
					if s == "" {
						i++
						if i >= len(args) {
							return true
						}
						s = args[i].val
					}
					scripts = append(scripts, s)
					j = len(v)
				case 'l':
					if j+1 == len(v) {
						i++
					}
					j = len(v)
				case 'f':
					return c.deny(n, "sed-script", "sed -f reads a script the policy cannot see")
				default:
					return c.deny(n, "sed-script", "unknown option -"+string(v[j]))
				}
			}
		default:
			if len(scripts) == 0 && operands == 0 {
				scripts = append(scripts, v)
			} else {
				operands++
			}
		}
	}
	for _, s := range scripts {
		if why := sedScript(s); why != "" {
			return c.deny(n, "sed-script", why)
		}
	}
	return true
}

// sedScript returns why a sed script is refused, or "" when it only reads
// its input and prints. It understands GNU sed's grammar; any command it does
// not know is refused.
func sedScript(s string) string {
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
			if !delimited('/') {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !delimited(d) {
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
			return ""
		}
		if s[i] == '#' {
			skipTo("\n")
			continue
		}
		if !address() {
			return "unterminated address"
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				return "unterminated address"
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return "missing command"
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
			skipTo(";\n")
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
			return "sed " + string(cmd) + " writes a file"
		case 'e':
			return "sed e runs a command"
		case 's':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return "bad s command"
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return "unterminated s command"
			}
			for i < len(s) && strings.IndexByte(" \t\n;}#", s[i]) < 0 {
				switch f := s[i]; {
				case f == 'w':
					return "s///w writes a file"
				case f == 'e':
					return "s///e runs the pattern space as a command"
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
				default:
					return "unknown s flag " + string(f)
				}
				i++
			}
		case 'y':
			if i >= len(s) {
				return "bad y command"
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return "unterminated y command"
			}
		default:
			return "unknown sed command " + string(cmd)
		}
	}
}
