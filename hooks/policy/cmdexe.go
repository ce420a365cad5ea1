package policy

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// Codex runs exec_command's text with the shell the model names, and for
// "cmd" it runs a program named cmd found on PATH as cmd /c <text> (review
// CL; on Windows that is always cmd.exe), while its hook is told the text
// alone. cmd.exe reads a line otherwise than bash: a single quote is no
// quote, a double quote toggles quoting wherever it stands, ^ escapes the
// next character outside double quotes, and & | < > start or redirect a
// command wherever they are unquoted to it. So
//
//	echo 'a & del x'      echo '"' "& del x"      echo ^"& del x"
//
// are an echo with plain words to bash and run del in cmd.exe. While the
// hook is blind to the shell and a cmd is there to run, every & | < > that
// cmd.exe would read as an operator must be one to bash too, where the
// policy judges what it starts. (Where bash sees an operator that cmd.exe
// does not, cmd.exe runs less than bash would: nothing to refuse.)

// cmdDiverges returns a finding when cmd.exe could read an operator in
// command where bash reads text, or nil. file is bash's parse of command.
func cmdDiverges(command string, file *syntax.File) *finding {
	ops := map[int]bool{} // where bash reads & | < > as an operator
	mark := func(pos syntax.Pos, n int) {
		if pos.IsValid() {
			for i := 0; i < n; i++ {
				ops[int(pos.Offset())+i] = true
			}
		}
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			mark(n.OpPos, len(n.Op.String()))
		case *syntax.Stmt:
			switch {
			case n.Background:
				mark(n.Semicolon, 1)
			case n.Coprocess:
				mark(n.Semicolon, 2)
			}
		case *syntax.Redirect:
			mark(n.OpPos, len(n.Op.String()))
		}
		return true
	})
	// Codex hands cmd its argument as Windows programs pass one (Rust's
	// and portable-pty's quoting): a \ before every ", which cmd.exe keeps
	// as text. A ^ before a quote then escapes that \, and the quote
	// toggles after all (review EB: echo ^"a" '& del x' read as quoted
	// text, and runs del). Both readings are judged, the text as written
	// and as passed.
	for _, caretEscapesQuote := range []bool{true, false} {
		quoted := false // cmd.exe's double quotes
		for i := 0; i < len(command); i++ {
			switch c := command[i]; {
			case c == '"':
				quoted = !quoted
			case c == '^' && !quoted:
				if i+1 < len(command) && command[i+1] == '"' && !caretEscapesQuote {
					continue // it escapes the \ passed before the quote
				}
				i++ // escapes the next character
			case !quoted && (c == '&' || c == '|' || c == '<' || c == '>') && !ops[i]:
				return &finding{rule: "blind-cmd", what: clip(command),
					detail: fmt.Sprintf("cmd.exe reads the %c at byte %d as an operator; bash reads it as text", c, i)}
			}
		}
	}
	return nil
}
