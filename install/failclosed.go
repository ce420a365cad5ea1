package install

import "strings"

// Fail-closed hook commands. Every hook command ends by exec'ing plansmith's
// binary (or its launcher). When that exec fails (the file is missing, lost
// its execute bit, sits on a noexec mount, or was built for another
// machine) the shell exits 126 or 127 with nothing on stdout, which Claude
// Code and Codex take for a hook with nothing to say: they run the tool,
// and a planning loop's read-only rule is gone (review Y, A1–A6). So each
// command first sets an EXIT trap, which dash runs when exec fails, and in
// bash turns on execfail, so that the command goes on to its last word;
// both end in the event's BrokenAnswer. The plugin's hooks/hooks.json
// commands are written out in that file, not built here; failclosed_test.go
// holds them to these same pieces (pluginFailClosed).

// execFailOn makes bash go on after a failed exec (dash needs nothing: it
// runs the EXIT trap). zsh, /bin/sh where a Mac is set so (its sh(1) runs
// bash, dash or zsh as /private/var/select/sh names), neither runs the trap
// nor goes on: it exits 126 or 127 with nothing on stdout, and the tool ran
// (review CS). There exec is a function (eval'd: dash refuses the name even
// in a branch it never takes) that runs the command as a child and ends
// the shell with its status, or returns when it could not start (126,
// 127: not when it started and died of a signal, having read the hook's
// input), for the command to go on as bash's does. A child that died of a
// signal (a truncated binary that crashes, one killed) gave no answer: there
// the command answers as when nothing starts, without running the launcher
// again on an input already read (q emptied). Under dash and bash the shell
// has become the binary, and nothing is left to see its death without a
// fork on every call (review CU). set +e first: bash takes errexit from an
// exported SHELLOPTS, as sh too, and with errexit and execfail it exits 1
// at a failed exec, without the EXIT trap (review CU).
//
// zsh run as zsh, not as sh, keeps a trap set or reset in a function for
// that function: the function's "trap - EXIT" left the command's own armed,
// and every hook that had answered then gave BrokenAnswer as well. Codex runs
// a hook with the user's login shell as the password file names it (zsh -c
// COMMAND; the default on macOS), so there every tool call of a loop was
// refused as if plansmith could not start, and a Stop was answered twice
// (review FA5). POSIX_TRAPS, which zsh sets when it runs as sh, makes the
// function's trap the command's. zsh -c reads ~/.zshenv first, and with
// ERR_RETURN set there (set +e clears ERR_EXIT only) the exec function
// returned at the failed start and the shell ended at once, with the trap
// armed before POSIX_TRAPS was set never run: a tool call of a loop went
// unchecked (status 127, no refusal) and a Stop said nothing (review FH1).
const execFailOn = `set +e; [ -z "${ZSH_VERSION:-}" ] || eval 'setopt posix_traps no_err_return; exec() { "$@"; e=$?; [ "$e" -le 128 ] || { q=; x; }; [ "$e" = 126 ] || [ "$e" = 127 ] || { trap - EXIT; exit "$e"; }; }'; ` +
	`[ -z "${BASH_VERSION:-}" ] || shopt -s execfail; `

// execFailOnBefore are the forms of execFailOn that earlier plansmiths
// wrote, still recognised as plansmith's (cutFailClosed) so that install
// replaces them and uninstall removes them; Registration.Stale marks them.
var execFailOnBefore = []struct{ start, why string }{
	{`set +e; [ -z "${ZSH_VERSION:-}" ] || eval 'exec() { "$@"; e=$?; [ "$e" -le 128 ] || { q=; x; }; [ "$e" = 126 ] || [ "$e" = 127 ] || { trap - EXIT; exit "$e"; }; }'; ` +
		`[ -z "${BASH_VERSION:-}" ] || shopt -s execfail; `,
		// Before review FA5: under zsh -c it answered twice (see execFailOn).
		"answer that plansmith could not start after it has answered, so every tool call of a planning loop is refused"},
	{`set +e; [ -z "${ZSH_VERSION:-}" ] || eval 'setopt posix_traps; exec() { "$@"; e=$?; [ "$e" -le 128 ] || { q=; x; }; [ "$e" = 126 ] || [ "$e" = 127 ] || { trap - EXIT; exit "$e"; }; }'; ` +
		`[ -z "${BASH_VERSION:-}" ] || shopt -s execfail; `,
		// Before review FH1: ERR_RETURN in ~/.zshenv ended it unanswered.
		"end unanswered when plansmith cannot start and ~/.zshenv sets ERR_RETURN, so a tool call of a planning loop goes unchecked"},
}

// FailClosed is the start of a hook command for event whose last word runs
// plansmith: it defines x, the answer when plansmith cannot be started, and
// arms it. The command must end with "; x" (bash). loopTest is a shell test
// that succeeds when a planning loop may be active (":" when the command has
// already looked for one).
func FailClosed(event, loopTest string) string {
	return "x() { trap - EXIT; " + BrokenAnswer(event, loopTest) + "; }; trap x EXIT; " + execFailOn
}

// StateTest is the shell test for a loop's state file in the project folder
// or in the working folder or any folder above it (Codex sets no project
// folder, and its session may stand in a subfolder of the loop's: review
// Z3), for commands that do not look for one first. It runs only when
// plansmith could not be started.
const StateTest = `{ [ -e "${CLAUDE_PROJECT_DIR:-.}/.claude/plansmith.local.md" ] || { d=$PWD; while [ -n "$d" ] && ! [ -e "$d/.claude/plansmith.local.md" ]; do d=${d%/*}; done; [ -n "$d" ]; }; }`

// BrokenAnswer is what a hook command answers when plansmith cannot be
// started: a tool call is refused while a loop may be active (exit status 2,
// the reason on stderr: how both clients take a refusal), and ExitPlanMode
// always, as the plan-mode gate fails closed; the user is told, once per
// turn, that the loop goes unchecked; anything else is a hook error.
func BrokenAnswer(event, loopTest string) string {
	const fix = "reinstall plansmith (or, for the plugin, delete its bin/native/ folder so that its launcher places the binary again)"
	const note = "echo 'plansmith: its binary could not be started; " + fix + ".' >&2; exit 1"
	var answer string
	switch event {
	case "pretooluse", "pretooluse-loop":
		answer = "echo 'plansmith: its binary could not be started, so this tool call is refused: while a planning loop is active (or the plan-mode gate guards ExitPlanMode) every call must be checked. To fix it, " + fix + "; to end a planning loop without plansmith, delete .claude/plansmith.local.md.' >&2; exit 2"
	case "stop", "userpromptsubmit", "sessionstart":
		answer = `echo '{"systemMessage":"plansmith: its binary could not be started, so the planning loop in this project is not being checked. To fix it, ` + fix + `; to end the loop without plansmith, delete .claude/plansmith.local.md."}'; exit 0`
	default:
		return note
	}
	if loopTest == ":" {
		return answer
	}
	return "if " + loopTest + "; then " + answer + "; fi; " + note
}

// cutFailClosed drops a FailClosed start from cmd, for ParseCommand.
func cutFailClosed(cmd string) string {
	rest, _ := cutFailClosedStart(cmd)
	return rest
}

// cutFailClosedStart is cutFailClosed, and, when the start cut is one an
// earlier plansmith wrote (execFailOnBefore), what is wrong with it.
func cutFailClosedStart(cmd string) (string, string) {
	if !strings.HasPrefix(cmd, "x() { trap - EXIT; ") {
		return cmd, ""
	}
	if _, rest, ok := strings.Cut(cmd, "; }; trap x EXIT; "+execFailOn); ok {
		return rest, ""
	}
	for _, before := range execFailOnBefore {
		if _, rest, ok := strings.Cut(cmd, "; }; trap x EXIT; "+before.start); ok {
			return rest, before.why
		}
	}
	return cmd, ""
}
