package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arg is what the policy can know statically about one shell word.
type arg struct {
	word *syntax.Word
	// val is the word's value after quote removal when known is true; when
	// known is false it holds only the literal prefix before the first
	// expansion.
	val   string
	known bool
	// single is false when the shell may split the word into several (an
	// unquoted expansion or a brace expression).
	single bool
	// glob is true when pathname expansion may turn the word into several
	// file names, and splits when word splitting or brace expansion may:
	// the names of a glob all start with its literal prefix, split words
	// do not.
	glob, splits bool
	// absolute is true when the word starts with an expansion of a variable
	// that always holds an absolute path the command line cannot change
	// ($HOME, $PWD), or with one that holds an absolute path or nothing
	// (Claude Code's $CLAUDE_PROJECT_DIR and $CLAUDE_PLUGIN_ROOT, which the
	// Bash tool's shell may not have) when what follows it starts with "/"
	// or the word is that expansion alone in double quotes: an empty
	// "$CLAUDE_PROJECT_DIR"-delete would be -delete.
	absolute bool
}

// inert reports whether the word can only ever be one argument that is not an
// option: either fully known, or a single word whose known prefix does not
// start with a dash. Commands whose meaning depends on their options accept
// nothing else, since a value computed at run time could be "-delete" or
// "--output=FILE".
func (a arg) inert() bool {
	if a.known {
		return true
	}
	// An unquoted $PWD splits at blanks: "cd 'a -oout.txt' && sort $PWD"
	// gives sort the option -oout.txt.
	return a.absolute && !a.splits || (a.single || a.glob && !a.splits) && a.val != "" && a.val[0] != '-'
}

// plainParam returns part when it expands a variable as it is ($NAME or
// ${NAME}: no index, slice, replacement, default or other operator), else
// nil.
func plainParam(part syntax.WordPart) *syntax.ParamExp {
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil ||
		p.Repl != nil || p.Exp != nil || p.Names != 0 {
		return nil
	}
	return p
}

// trustedPath reports whether part expands one of the variables that hold an
// absolute path and that the policy refuses to let a command reassign.
func trustedPath(part syntax.WordPart) bool {
	p := plainParam(part)
	return p != nil && (p.Param.Value == "HOME" || p.Param.Value == "PWD")
}

// pathGoesOn reports whether the word's first expansion, an absolute path,
// still starts the word: not when zsh applies modifiers written after an
// unbraced name, in double quotes too ("$PWD:h:h:s,/,-delete," is any
// option; review AY2).
func pathGoesOn(w *syntax.Word) bool {
	parts := openQuotes(w)
	if len(parts) < 2 {
		return true
	}
	p, short := parts[0].(*syntax.ParamExp)
	l, ok := parts[1].(*syntax.Lit)
	return !(short && p.Short && ok && strings.HasPrefix(l.Value, ":"))
}

// openQuotes returns w's parts in order, with the parts of its
// double-quoted strings in their place.
func openQuotes(w *syntax.Word) []syntax.WordPart {
	var parts []syntax.WordPart
	for _, part := range w.Parts {
		if dq, ok := part.(*syntax.DblQuoted); ok {
			parts = append(parts, dq.Parts...)
			continue
		}
		parts = append(parts, part)
	}
	return parts
}

// maybeEmptyPath reports whether w starts with an expansion of a variable
// that holds an absolute path or nothing, in a form that stays absolute or
// empty: alone in double quotes, or followed by a literal "/".
func maybeEmptyPath(w *syntax.Word) bool {
	parts := openQuotes(w)
	if len(parts) == 0 {
		return false
	}
	p := plainParam(parts[0])
	if p == nil || p.Param.Value != "CLAUDE_PROJECT_DIR" && p.Param.Value != "CLAUDE_PLUGIN_ROOT" {
		return false
	}
	if len(parts) == 1 {
		_, quoted := w.Parts[0].(*syntax.DblQuoted)
		return quoted && len(w.Parts) == 1
	}
	next, ok := parts[1].(*syntax.Lit)
	return ok && strings.HasPrefix(next.Value, "/")
}

// firstLit returns w's first part when it is unquoted literal text.
func firstLit(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 0 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return l.Value, true
}

// analyse computes an arg for w.
func analyse(w *syntax.Word) arg {
	a := arg{word: w, known: true, single: true}
	if len(w.Parts) > 0 {
		first := w.Parts[0]
		if dq, ok := first.(*syntax.DblQuoted); ok && len(dq.Parts) > 0 {
			first = dq.Parts[0]
		}
		a.absolute = trustedPath(first) && pathGoesOn(w) || maybeEmptyPath(w)
	}
	if l, ok := firstLit(w); ok && strings.HasPrefix(l, "~") {
		// Tilde expansion: "~" and "~/..." are $HOME's, but "~1", "~+2",
		// "~-" are entries of the directory stack, which the same line can
		// fill (pushd -n -- -oout, DIRSTACK[1]=..., zsh's dirstack=(...)),
		// "~name" is a user's home or a zsh named directory: a value the
		// text does not give, which may be an option or a program.
		if prefix, _, _ := strings.Cut(l, "/"); prefix != "~" {
			a.known, a.val = false, ""
			return a
		}
	}
	brace, braceAt, braceSplits := braceStart(w)
	var b strings.Builder
	for i, part := range w.Parts {
		if i == brace {
			// Brace expansion turns one word into several (or, a BRACE_CCL
			// class of one character, into another word); the text before
			// the "{" still starts each.
			if braceSplits {
				a.single, a.splits = false, true
			}
			if l, ok := part.(*syntax.Lit); ok && a.known {
				if at, _ := globAt(l.Value[:braceAt]); at < 0 {
					b.WriteString(unescape(l.Value[:braceAt]))
				}
			}
			a.stop(&b)
		}
		switch p := part.(type) {
		case *syntax.Lit:
			if g, before := globAt(p.Value); g >= 0 && p.Value != "[" {
				// Pathname expansion: the files present decide the words,
				// and a file named "-o" makes "*" an option.
				if before {
					b.Reset()
				}
				if a.known {
					b.WriteString(unescape(p.Value[:g]))
				}
				a.single, a.glob = false, true
				a.stop(&b)
			}
			if a.known {
				b.WriteString(unescape(p.Value))
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				a.stop(&b)
			} else if a.known {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					if a.known {
						b.WriteString(unescapeDouble(l.Value))
					}
					continue
				}
				if manyWords(q) {
					a.single, a.splits = false, true
				}
				a.stop(&b)
			}
		case *syntax.ProcSubst:
			// Expands to one /dev/fd path.
			if a.known {
				b.WriteString("/dev/fd/")
			}
			a.stop(&b)
		default:
			// ParamExp, CmdSubst, ArithmExp, ExtGlob unquoted: unknown and
			// subject to word splitting or globbing.
			a.single, a.splits = false, true
			a.stop(&b)
		}
	}
	a.val = b.String()
	if len(a.val) > 1 && a.val[0] == '=' && a.val != "==" && unquotedEquals(w) {
		// zsh's =NAME, however it is spelled (=\-x, ='-x', ''=x), is
		// NAME's path in PATH, or NAME as it stands when PATH has an
		// empty entry (reviews AZ4, BB4): a value the text does not give.
		// A quoted "=" is text ('=>': review BC2).
		a.known, a.val = false, ""
	}
	return a
}

// unquotedEquals reports whether w's first character, past empty quotes,
// is an unquoted "=".
func unquotedEquals(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			return strings.HasPrefix(p.Value, "=")
		case *syntax.SglQuoted:
			if p.Value != "" {
				return false
			}
		case *syntax.DblQuoted:
			if len(p.Parts) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return false
}

// oneWord reports whether a is exactly one word whatever the shell's state:
// known, or a quoted expansion. A glob may match no file (under nullglob,
// or zsh's (N)) or several, and an unquoted or "$@"-like expansion any
// number of words, so a tool taking one as an option's value may read the
// words after it differently.
func oneWord(a arg) bool { return a.single && !a.glob && !a.splits }

// manyWordsValue is the refusal's detail for a value that is not oneWord.
const manyWordsValue = "an option's value that may be no word or several (a glob, or an unquoted or \"$@\" expansion) moves the words after it"

// manyWords reports whether part, inside double quotes, can still expand
// to several words: "$@", "${a[@]}" and their variants ("${a[@]:1}",
// "${!a[@]}", "${!prefix@}", "${x:-$@}") give one word per element, in bash
// and zsh alike, so "x${a[@]}" is "x" plus whatever the array holds.
func manyWords(part syntax.WordPart) bool {
	many := false
	syntax.Walk(part, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			return false // their output is one word in quotes
		case *syntax.ParamExp:
			if n.Param != nil && n.Param.Value == "@" || n.Names == syntax.NamesPrefixWords {
				many = true
			}
			if w, ok := n.Index.(*syntax.Word); ok && w.Lit() == "@" {
				many = true
			}
		}
		return !many
	})
	return many
}

// braceStart returns the index of the part holding the "{" of a brace
// expansion in w, the "{"'s offset in it, and whether it may make several
// words, or -1. Bash expands an unquoted "{" followed by an unquoted ","
// or ".." and an unquoted "}", even when quoted text stands between them:
// {"-o",out} is the two words -o and out. zsh with BRACE_CCL also expands
// a "{" with anything before its "}" into its characters, each a word
// (reviews AZ3, BB1, BB2): --outpu{t}=x is --output=x, {ab}x is ax and bx.
// One character keeps the word single; its value is known only up to the
// "{" (stash@{0} stays one word starting "stash@").
func braceStart(w *syntax.Word) (part, at int, splits bool) {
	open, openAt, sep, chars := -1, 0, false, 0
	for i, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			if open >= 0 {
				chars += 2 // quoted text: count it as more than one
			}
			continue
		}
		v := l.Value
		for j := 0; j < len(v); j++ {
			switch {
			case v[j] == '\\':
				j++
				if open >= 0 {
					chars++
				}
			case v[j] == '{' && open < 0:
				open, openAt, chars = i, j, 0
			case open >= 0 && (v[j] == ',' || v[j] == '.' && j+1 < len(v) && v[j+1] == '.'):
				sep = true
			case open >= 0 && v[j] == '}' && (sep || chars > 0):
				return open, openAt, sep || chars > 1
			case open >= 0 && v[j] == '}':
				open = -1 // {} is left as it is
			case open >= 0:
				chars++
			}
		}
	}
	return -1, 0, false
}

func (a *arg) stop(b *strings.Builder) {
	if a.known {
		a.known = false
		a.val = b.String()
	}
}

// unescape removes the backslashes of unquoted text: \x is x, and a
// backslash-newline disappears.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that double quotes give meaning to.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// globAt returns the index of the first unescaped glob character (*, ? or
// [) of unquoted text, or -1. zsh with EXTENDED_GLOB, a common setting,
// has two more (review AY1): ^x is every name but x, and x# any run of x,
// none included, so the word starts before the x. Only a plain ASCII x
// written out in this text leaves a prefix; after a quoted, escaped or
// multibyte x, or at the start of the text, before is true: the word's
// known prefix ends before this text (review AZ2: 'x'#-o… was read as
// starting with x).
func globAt(s string) (at int, before bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[', '^':
			return i, false
		case '#':
			if i == 0 || s[i-1] >= 0x80 || i >= 2 && s[i-2] == '\\' {
				return 0, true
			}
			return i - 1, false
		}
	}
	return -1, false
}

// hasGlob reports whether an unquoted part of w holds a glob character, which
// makes the word's value depend on the files present.
func hasGlob(w *syntax.Word) bool {
	for _, part := range w.Parts {
		l, ok := part.(*syntax.Lit)
		if ok && l.Value != "[" && l.Value != "[[" {
			if at, _ := globAt(l.Value); at >= 0 {
				return true
			}
		}
		if _, ok := part.(*syntax.ExtGlob); ok {
			return true
		}
	}
	return false
}

func analyseAll(ws []*syntax.Word) []arg {
	out := make([]arg, len(ws))
	for i, w := range ws {
		out[i] = analyse(w)
	}
	return out
}
