package policy

import (
	"strings"
)

// This file holds the one option interpreter the command rules share. A
// command's options are data (a grammar, see grammars.go); the interpreter
// reads an argument list the way getopt_long, git's parse-options, Go's flag
// package or tree read it, so that "--" taken as an option's value, clustered
// short options and abbreviated long options mean here what they mean to the
// tool.

// valueKind says whether and how an option takes a value.
type valueKind uint8

const (
	flag     valueKind = iota // no value
	required                  // -oFILE, -o FILE, --output=FILE, --output FILE
	optional                  // attached only: -Ofoo, --open-files-in-pager=foo
	lastArg                   // git: the next word when there is one (--contains)
)

// platform marks an option that exists in only one family of the tool.
type platform uint8

const (
	anyPlatform platform = iota
	gnuOnly              // GNU (and git, Go, the Linux builds)
	bsdOnly              // BSD and macOS
)

// option is one row of a grammar.
type option struct {
	short byte   // the letter of -x; 0 when none
	long  string // the name of --name, without dashes; "" when none
	value valueKind
	on    platform
	// rule refuses the option; "" when it is harmless.
	rule string
	// writesIf refuses the option only with this value (go list -mod=mod).
	writesIf string
}

// grammar describes how one command reads its arguments.
type grammar struct {
	options []option
	// abbrev: a long option may be given as a unique prefix of its name
	// (getopt_long, git's parse-options, Python's argparse).
	abbrev bool
	// negate: --no-NAME turns option NAME off (git).
	negate bool
	// strict: an option missing from the table is refused with rule, because
	// the operands it could swallow or leave decide what the command does.
	strict bool
	rule   string
	// stopAtOperand: the options end at the first operand on every platform
	// (git's own options, the wrappers, POSIX getopt).
	stopAtOperand bool
	// bsdStop: the BSD and macOS builds use getopt, which stops at the first
	// operand, where GNU's permutes and reads options after operands.
	bsdStop bool
	// goFlags: Go's flag package: -name and --name alike, no clusters and no
	// abbreviations.
	goFlags bool
	// nextValues: a short option's value is always the next word, and the
	// cluster goes on after it (tree -Lo 2 out).
	nextValues bool
	// noDashDash: "--" is an ordinary word.
	noDashDash bool

	short map[byte][]*option
	long  map[string][]*option
}

// opt builds a row from a spelling such as "-o --output", "-o" or "--output".
func opt(names string, value valueKind, rule string) option {
	o := option{value: value, rule: rule}
	for _, n := range strings.Fields(names) {
		if strings.HasPrefix(n, "--") {
			o.long = n[2:]
		} else {
			o.short = n[1]
		}
	}
	return o
}

func (o option) bsd() option { o.on = bsdOnly; return o }
func (o option) gnu() option { o.on = gnuOnly; return o }

// index builds the lookup maps once.
func (g *grammar) index() *grammar {
	g.short = map[byte][]*option{}
	g.long = map[string][]*option{}
	for i := range g.options {
		o := &g.options[i]
		if o.short != 0 {
			g.short[o.short] = append(g.short[o.short], o)
		}
		if o.long != "" {
			g.long[o.long] = append(g.long[o.long], o)
		}
	}
	return g
}

func other(p platform) platform {
	if p == bsdOnly {
		return gnuOnly
	}
	return bsdOnly
}

// onPlatform picks the row for p among rows of the same spelling.
func onPlatform(rows []*option, p platform) *option {
	for _, o := range rows {
		if o.on == anyPlatform || o.on == p {
			return o
		}
	}
	return nil
}

// negated stands for any --no-NAME of a negatable grammar: it turns an
// option off, which never writes or runs anything.
var negated = &option{value: flag}

// longCandidates returns the rows a long name may mean: the exact one, or
// with abbrev every option the name is a prefix of.
func (g *grammar) longCandidates(name string, p platform) []*option {
	if o := onPlatform(g.long[name], p); o != nil {
		return []*option{o}
	}
	var out []*option
	if g.abbrev && name != "" {
		for full, rows := range g.long {
			if strings.HasPrefix(full, name) {
				if o := onPlatform(rows, p); o != nil {
					out = append(out, o)
				}
			}
		}
	}
	if len(out) == 0 && g.negate && strings.HasPrefix(name, "no-") {
		return []*option{negated}
	}
	return out
}

// optUse is one option found in an argument list.
type optUse struct {
	o        *option
	word     string // the word that held it
	value    string
	hasValue bool
	// computed is true when the value is only partly known (a word with an
	// expansion); value then holds its literal prefix.
	computed bool
}

// parsed is an argument list read by a grammar on one platform.
type parsed struct {
	opts     []optUse
	operands []arg
	// unknown holds the first option missing from the table.
	unknown string
	// end is the index of the first operand when the options end there.
	end int
	// fails is true when an option exists only on the other platform: the
	// tool stops with a usage error before doing anything.
	fails bool
	// shifty is true when an option took as its value a word that may be
	// no word or several (oneWord): the words after it are then read in
	// a way this reading does not describe.
	shifty bool
	// over is true when the options ended before the words ran out: at
	// "--", or, in a reading that stops at the first operand, at an
	// operand. Every word after that is an operand, whatever it holds.
	over bool
}

// reading is one way a platform reads arguments.
type reading struct {
	on      platform
	permute bool
}

// readings are the ways the command's builds read arguments: GNU's and, when
// the BSD build differs, BSD's.
func (g *grammar) readings() []reading {
	rs := []reading{{on: gnuOnly, permute: !g.stopAtOperand}}
	bsdDiffers := g.bsdStop && !g.stopAtOperand
	for _, o := range g.options {
		bsdDiffers = bsdDiffers || o.on != anyPlatform
	}
	if bsdDiffers {
		rs = append(rs, reading{on: bsdOnly, permute: !g.stopAtOperand && !g.bsdStop})
	}
	return rs
}

// parse reads args as the tool does on one platform. Words whose value is
// not known are treated as operands; callers refuse them first where a
// computed word could be an option.
func (g *grammar) parse(args []arg, r reading) parsed {
	p := parsed{end: len(args)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		switch {
		case !a.known && !longValue(a) || len(v) < 2 || v[0] != '-':
			p.operands = append(p.operands, a)
			if !r.permute {
				p.operands = append(p.operands, args[i+1:]...)
				p.end, p.over = i, true
				return p
			}
		case v == "--" && !g.noDashDash:
			p.operands = append(p.operands, args[i+1:]...)
			p.end, p.over = i+1, true
			return p
		case strings.HasPrefix(v, "--") || g.goFlags:
			name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(v, "-"), "-"), "=")
			cands := g.longCandidates(name, r.on)
			if g.goFlags {
				cands = nil
				if o := onPlatform(g.long[name], r.on); o != nil {
					cands = []*option{o}
				}
			}
			if len(cands) != 1 {
				if len(cands) == 0 && len(g.longCandidates(name, other(r.on))) > 0 {
					p.fails = true
					return p
				}
				// Unknown or ambiguous: the tool stops with an error, unless
				// the table misses it, which a strict grammar refuses.
				if p.unknown == "" {
					p.unknown = v
				}
				continue
			}
			o := cands[0]
			u := optUse{o: o, word: v, value: val, hasValue: hasVal, computed: !a.known}
			if !hasVal && (o.value == required || o.value == lastArg && !g.goFlags) && i+1 < len(args) {
				i++
				u.value, u.hasValue, u.computed = args[i].val, true, !args[i].known
				p.shifty = p.shifty || !oneWord(args[i])
			}
			p.opts = append(p.opts, u)
		default:
			i = g.cluster(args, i, r, &p)
			if p.fails {
				return p
			}
		}
	}
	return p
}

// optionsOver reports whether every build reads the words from args[i] on
// as operands, whatever they hold: each ends its options within args[:i]
// (file -- *), or stops with a usage error. The words before i must be
// inert, so that the prefix reads the same however it expands, and every
// option among them must be in the table: one it lacks may take the "--"
// as its value, and the words after it are options again (review AT1:
// rg --context-separator -- "" "$x" with x=--pre=sh ran sh).
func (g *grammar) optionsOver(args []arg, i int) bool {
	for _, r := range g.readings() {
		p := g.parse(args[:i], r)
		if p.fails {
			continue
		}
		if !p.over || p.unknown != "" {
			return false
		}
	}
	return true
}

// cluster reads the short options of args[i] ("-rn", "-Tfoo", "-o FILE") and
// returns the index of the last word it used.
func (g *grammar) cluster(args []arg, i int, r reading, p *parsed) int {
	v := args[i].val
	for j := 1; j < len(v); j++ {
		o := onPlatform(g.short[v[j]], r.on)
		if o == nil && len(g.short[v[j]]) > 0 {
			p.fails = true
			return len(args)
		}
		if o == nil {
			if p.unknown == "" {
				p.unknown = "-" + string(v[j])
			}
			continue // getopt reports it and goes on with the cluster
		}
		u := optUse{o: o, word: v}
		switch {
		case o.value == flag:
		case g.nextValues:
			if i+1 < len(args) {
				i++
				u.value, u.hasValue, u.computed = args[i].val, true, !args[i].known
				p.shifty = p.shifty || !oneWord(args[i])
			}
		case j+1 < len(v):
			u.value, u.hasValue = v[j+1:], true
			j = len(v)
		case o.value == required || o.value == lastArg:
			if i+1 < len(args) {
				i++
				u.value, u.hasValue, u.computed = args[i].val, true, !args[i].known
				p.shifty = p.shifty || !oneWord(args[i])
			}
		}
		p.opts = append(p.opts, u)
		if u.hasValue && !g.nextValues {
			break
		}
	}
	return i
}

// refusal is why an argument list is refused: a rule and a detail.
type refusal struct {
	rule   string
	detail string
}

// judge parses args in every reading and returns the first refusal: an
// option whose row refuses it, a refused value, or with strict an unknown
// option. It also looks at every word on its own (scan), so that a word the
// exact reading takes as a value or an operand is still refused when the
// tool could take it as a refused option.
func (g *grammar) judge(cmd string, args []arg) (*refusal, []parsed) {
	scanned := args
	if g.stopAtOperand {
		// The operands are another command's words (git's subcommand, the
		// wrapped command): judged by their own grammar.
		scanned = args[:g.parse(args, reading{on: gnuOnly}).end]
	}
	if r := g.scan(cmd, scanned); r != nil {
		return r, nil
	}
	var all []parsed
	for _, rd := range g.readings() {
		p := g.parse(args, rd)
		if p.fails {
			continue
		}
		if p.shifty {
			return &refusal{"dynamic-arg", cmd + ": " + manyWordsValue}, nil
		}
		for _, u := range p.opts {
			if u.o.rule != "" && (u.o.writesIf == "" || u.hasValue && u.value == u.o.writesIf) {
				return &refusal{u.o.rule, cmd + " " + u.word}, nil
			}
		}
		if g.strict && p.unknown != "" {
			return &refusal{g.rule, cmd + " " + p.unknown + " is not an option the policy knows"}, nil
		}
		all = append(all, p)
	}
	if len(all) == 0 {
		// No build accepts these options together; refuse rather than judge
		// a command no reading describes.
		return &refusal{"unknown-command", cmd + " mixes options of different platforms' builds"}, nil
	}
	return nil, all
}

// scan refuses any known word that would be a refused option if the tool
// read it as an option, wherever it stands: after "--", as another option's
// value, or as an operand. A gap in the table of value-taking options then
// costs at most a needless refusal, never an escape.
func (g *grammar) scan(cmd string, args []arg) *refusal {
	for _, a := range args {
		v := a.val
		if !a.known && !longValue(a) || len(v) < 2 || v[0] != '-' || v == "--" {
			continue
		}
		if o := g.refusedAsOption(v); o != nil {
			return &refusal{o.rule, cmd + " " + v}
		}
	}
	return nil
}

// refusedAsOption returns the refused option that word v could be on any
// platform, or nil.
func (g *grammar) refusedAsOption(v string) *option {
	refused := func(o *option) bool { return o != nil && o.rule != "" && o.writesIf == "" }
	if strings.HasPrefix(v, "--") || g.goFlags {
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(v, "-"), "-"), "=")
		for _, p := range []platform{gnuOnly, bsdOnly} {
			cands := g.longCandidates(name, p)
			if g.goFlags {
				cands = []*option{onPlatform(g.long[name], p)}
			}
			for _, o := range cands {
				if refused(o) {
					return o
				}
			}
		}
		return nil
	}
	for j := 1; j < len(v); j++ {
		rows := g.short[v[j]]
		valuedEverywhere := len(rows) > 0
		for _, o := range rows {
			if refused(o) {
				return o
			}
			valuedEverywhere = valuedEverywhere && o.value != flag
		}
		if len(rows) == 1 && rows[0].on != anyPlatform {
			valuedEverywhere = false // a flag or unknown on the other platform
		}
		if valuedEverywhere && !g.nextValues {
			return nil // the rest of the word is that option's value
		}
	}
	return nil
}
