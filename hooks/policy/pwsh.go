package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Codex runs exec_command's text with the shell the model names, and for
// "pwsh" or "powershell" it runs PowerShell found on PATH (pwsh -NoProfile
// -Command <text>; 0.169.0, seen in e2e with a pwsh on PATH), while its
// hook is told the text alone (review CL2). PowerShell quotes differently:
// a backslash escapes nothing, a backtick does, and ‘ ’ ‚ ‛ “ ” „ are quotes
// too. So where bash reads a literal, PowerShell can read code: in
//
//	echo "\$(New-Item x)"      echo \' '(New-Item x)' \'      echo '’ (New-Item x) ‘'
//
// bash and sh see echo with plain words, PowerShell runs New-Item. Bash's
// single-quoted text is single-quoted to PowerShell as well, so while the
// hook is blind to the shell a line must have no backslash and no backtick
// outside it, and no typographic quote anywhere.

// pwshQuotes are the characters PowerShell takes for quotes besides ' and ".
const pwshQuotes = "\u2018\u2019\u201a\u201b\u201c\u201d\u201e"

// pwshDiverges returns a finding when PowerShell could read command's
// quoting otherwise than bash, or nil. file is bash's parse of command.
func pwshDiverges(command string, file *syntax.File) *finding {
	if i := strings.IndexAny(command, pwshQuotes); i >= 0 {
		return &finding{rule: "blind-pwsh", what: clip(command), detail: "PowerShell takes the typographic quote " + string([]rune(command[i:])[0]) + " for a quote; bash does not"}
	}
	type span struct{ from, to int }
	var quoted []span
	syntax.Walk(file, func(n syntax.Node) bool {
		if q, ok := n.(*syntax.SglQuoted); ok && q != nil && !q.Dollar && q.Pos().IsValid() && q.End().IsValid() {
			quoted = append(quoted, span{int(q.Pos().Offset()), int(q.End().Offset())})
		}
		return true
	})
	inQuotes := func(i int) bool {
		for _, s := range quoted {
			if i > s.from && i < s.to-1 {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(command); i++ {
		if c := command[i]; (c == '\\' || c == '`') && !inQuotes(i) {
			what := "a backslash"
			if c == '`' {
				what = "a backtick"
			}
			return &finding{rule: "blind-pwsh", what: clip(command), detail: what + " outside single quotes: PowerShell quotes and escapes otherwise than bash"}
		}
	}
	return nil
}
