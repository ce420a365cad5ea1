package policy

import (
	"sync"

	"github.com/plansmith/plansmith/templates"
)

// rule explains one reason for a denial: why the thing is refused and what to
// do instead that stays read-only. The table is data so that every message
// reads the same way and can be reviewed in one place.
type rule struct {
	why string
	alt string
	// altFor, when set, words the alternative at the time of the refusal:
	// it names plansmith's own commands as the install spells them, and the
	// tools the agent has (Codex has no Read, Grep or Glob tool). "" keeps
	// alt.
	altFor func() string
	// whyFor, when set, words the reason at the time of the refusal, for
	// the client whose shell runs the command. "" keeps why.
	whyFor func() string
}

var rules = sync.OnceValue(func() map[string]rule {
	return map[string]rule{
		"edit-tool": {
			why: "file-editing tools change the project, and this planning session is read-only",
			alt: "describe the change in the plan; it can be made once the loop has ended",
		},
		"unknown-tool": {
			why: "only tools known to leave the project as it is may run while planning; this one could write files or run commands unjudged",
			alt: "use Read, Grep, Glob or a read-only Bash command; if this tool only reads (an MCP server's search, say), the user can allow it under tools: in .claude/plansmith-policy.yaml",
			altFor: func() string {
				if templates.Codex() {
					// Codex has no Read, Grep or Glob tool (review DA4).
					return "read with a read-only shell command (cat, grep, rg, find, ls); if this tool only reads (an MCP server's search, say), the user can allow it under tools: in .claude/plansmith-policy.yaml"
				}
				return ""
			},
		},
		"bad-input": {
			why: "the Bash call carries no command the policy can read",
			alt: "send the command as a non-empty string in the command field",
		},
		"parse": {
			why: "the command is not valid bash, so its effect cannot be judged",
			alt: "fix the quoting or write the command more simply",
		},
		"unknown-command": {
			why: "only commands known to be read-only may run while planning",
			alt: "use a read-only tool such as cat, grep, rg, find, ls, head, git log or git diff, or the Read, Grep and Glob tools",
			altFor: func() string {
				if templates.Codex() {
					// Neither the Read, Grep and Glob tools nor git while
					// planning under Codex (rule blind; review DA4).
					return "use a read-only command such as cat, grep, rg, find, ls, head or wc"
				}
				return ""
			},
		},
		"redirect": {
			why: "a redirect to a file creates or overwrites it; only /dev/null, /dev/stdout, /dev/stderr and descriptor copies like 2>&1 are allowed",
			alt: "drop the redirect and let the output come back to you (2>/dev/null and 2>&1 are fine)",
		},
		"network": {
			why: "bash opens a network connection for a redirect to /dev/tcp/HOST/PORT or /dev/udp/HOST/PORT, and a path computed at run time could be one",
			alt: "only the shell's redirect opens a socket, so give a computed path to the command itself (wc -l \"$f\", cat \"$f\" | while read -r l; ...), or start it with something that rules a socket out (< \"./$f\"); use the WebFetch tool to read from the web",
		},
		"heredoc": {
			why: "bash could end this here-document at a different line than the policy's parser does, and then run the lines after it as commands",
			alt: "end the here-document with a plain word such as EOF on a line of its own, outside $( ), and without backslashes at the ends of its lines",
		},
		"glob-qualifier": {
			why: "zsh runs code named in a glob qualifier such as *(e:...:), and bash reads the same pattern as an extended glob, so its effect depends on the shell",
			alt: "use a plain pattern such as *.go, or find with -name",
		},
		"dynamic-command": {
			why: "the command name is built at run time, so what runs cannot be known in advance",
			alt: "write the command name literally",
		},
		"script": {
			why: "running a file by its path executes code the policy cannot inspect",
			alt: "read the script with cat to see what it does",
		},
		"interpreter": {
			why: "an interpreter running inline code or a script can do anything",
			alt: "read the code, or use a read-only command directly; an interpreter's version prints with its version option alone (bash --version, python3 -V, node -v, perl -v)",
		},
		"eval": {
			why: "it runs text as shell code or changes how later commands run, which the policy cannot inspect",
			alt: "write the command you want to run directly",
		},
		"function": {
			why: "a function definition can shadow any command with other code",
			alt: "write the commands out directly",
		},
		"shell-function": {
			why: "the user's shell startup defines this name as an alias or a function (Claude Code restores them before every command), so something other than the command judged would run: an alias to another program, a function, or zsh's chpwd at a change of folder (nvm's and similar hooks read the project's .nvmrc and install what it names)",
			whyFor: func() string {
				if templates.Codex() {
					// Codex's own snapshot names them, not Claude Code's;
					// what its commands see of them: bashtool/codex.go.
					return "the user's shell startup files define this name as an alias or a function (Codex's snapshot of the user's shell lists it), and Codex's shell can run that instead of the command judged: zsh reads ~/.zshenv before every command, and when Codex's shell snapshot is off or could not be taken, every command runs in a login shell, which reads the profile files; so an alias to another program, a function, or zsh's chpwd at a change of folder could run (nvm's and similar hooks read the project's .nvmrc and install what it names)"
				}
				return ""
			},
			alt: "run the program itself with command NAME ... (command skips aliases and functions; the read-only rules still apply), or use the Read, Grep and Glob tools; instead of cd, give the folder to the command (ls sub, git -C sub log, grep -rn x sub)",
			altFor: func() string {
				if templates.Codex() {
					return "run the program itself with command NAME ... (command skips aliases and functions; the read-only rules still apply); instead of cd, give the folder to the command (ls sub, grep -rn x sub)"
				}
				return ""
			},
		},
		"env-var": {
			why: "this variable changes which programs run or how they behave",
			alt: "run the command without setting it",
		},
		"npm-config": {
			why: "npm takes settings from the project's .npmrc that the command line does not show: it can send npm's cache and logs into the project, or name a program npm runs",
			alt: "read package.json, package-lock.json and node_modules/*/package.json; if the .npmrc is the user's own, they can allow npm in .claude/plansmith-policy.yaml",
		},
		"npm-package": {
			why: "npm view fetches what a package argument names, and for a git repository or a tarball it may install and build it first, running the package's own scripts; with no package it looks up the name package.json gives",
			alt: "name a package of the registry, with a version or tag if you like (npm view express@4 version), or read package.json and node_modules/*/package.json",
		},
		"go-toolchain": {
			why: "go runs the Go a go.mod or go.work asks for, and with GOTOOLCHAIN=auto (Go's default) downloads it into the module cache first when the go here is older; a repository chooses those lines",
			alt: "read go.mod, the sources and their doc comments with cat, grep or rg; go runs here again once the Go installed is as new as go.mod asks for, which is the user's to install (GOTOOLCHAIN=local only makes go stop with an error instead of fetching that Go)",
		},
		"blind": {
			why: "the hook is not told the folder this runs in nor whether it gets a terminal (Codex's exec_command workdir and tty): git and npm take settings from that folder, which a repository can carry, and a pager (git's, man's) runs commands typed into it",
			alt: "read the files with cat, grep, rg, find or ls meanwhile (git's history is readable again once the loop ends)",
		},
		"blind-shell": {
			why: "Codex runs a command with the shell the model names (exec_command's shell argument), and /bin/sh for a shell it does not know, and its hook is not told which: this line means something else to sh (dash), where it may write a file",
			alt: "write it in plain POSIX sh: [ ] instead of [[ ]], no <<<, &>, |& or $'…'",
		},
		"shell-env": {
			why: "the shell runs with variables set by a configuration file the repository carries (Codex's shell_environment_policy), which the hook cannot see: BASH_ENV, PATH or LD_PRELOAD there can start a program of the project with any command",
			// The cancel command runs in this shell too: only a terminal
			// ends the loop, and there by the path this install spells.
			altFor: func() string {
				return "answer from what you have read so far; the user can look at the project's .codex/config.toml, or end the loop with " + templates.CLI("cancel") + " in a terminal"
			},
		},
		"settings-env": {
			why: "Claude Code starts every Bash command with the variables the env setting of the project's .claude/settings.json or .claude/settings.local.json names (and 2.1.330 the git repository root's .claude/settings.local.json), which the repository can carry: BASH_ENV, CLAUDE_ENV_FILE, ZDOTDIR, PATH or an exported function there can run a program of the project before or instead of any command",
			// /plansmith:cancel runs through the Bash tool, refused here too.
			altFor: func() string {
				return "read files with the Read tool (and Grep and Glob where Claude Code offers them), which run no shell and stay allowed; the user can move the variables into their own ~/.claude/settings.json or remove them and restart Claude Code, or end the loop with " + templates.CLI("cancel") + " in a terminal"
			},
		},
		"blind-pwsh": {
			why: "Codex runs a command with PowerShell when the model names pwsh as its shell, and its hook is not told so: PowerShell escapes with a backtick, not a backslash, and takes typographic quotes for quotes, so this line may run code where bash reads plain words",
			alt: "put text that needs escaping in single quotes ('…'), with no backslash or backtick outside them and no typographic quotes",
		},
		"blind-cmd": {
			why: "Codex runs a command with cmd.exe (cmd /c) when the model names cmd as its shell, and a program named cmd is on PATH here, and its hook is not told so: cmd.exe takes no single quote for a quote and escapes with ^, so an & | < or > bash reads as quoted text may start or redirect a command there",
			// Double quotes with no backslash: blind-pwsh refuses one
			// outside single quotes, and its advice is single quotes.
			alt: "put text with & | < > in double quotes with no backslash in them (grep -E \"a|b\", not grep 'a\\|b'), not in single quotes, and leave ^ out of operators and quotes",
		},
		"signature": {
			why: "git checks a signature with the program the signature's armour names (gpg, gpgsm or ssh-keygen), chosen by the commit, which makes its key store on first use",
			alt: "show commits with a format written out in full that has no %G placeholder and no %(signature) (git log --format='%H %an %s'); git cat-file commit REV prints a commit's signature as text without checking it",
		},
		"git-repository": {
			why: "git reads the configuration of the repository it finds, and a folder the project carries can pass for a bare repository whose configuration names programs git runs (core.fsmonitor on git status)",
			alt: "run git from the session's folder, with -C naming a folder of the checkout (git -C sub log), or read the files with cat and grep",
		},
		"dynamic-arg": {
			why: "this command has options that write or execute, and a value computed at run time (an expansion, or a glob: *, ?, [, and zsh's ^ and #) could turn into one of them",
			alt: "write the arguments literally (quote a ^ or # you mean as text: '^main'), or start a computed one with literal text that is not a dash, as in \"./$f\" for a file (after -- as well)",
		},
		"wrapper-option": {
			why: "this wrapper, or its option, writes a file (nohup.out, time -o), runs something other than the command it is given, or is not understood well enough to tell what it runs",
			alt: "run the inner command directly",
		},
		"arithmetic": {
			why: "bash evaluates array subscripts inside these values, which can run commands",
			alt: "use literal numbers or a count, as in $(( $(wc -l < FILE) + 1 )), or compute with awk or expr (expr \"$n\" + 1)",
		},
		"find-action": {
			why: "find actions like -delete, -ok, -fprint and -fls change files or run commands, and -exec may only run a read-only command",
			alt: "list the matches with find -print (or -print0 | xargs -0 grep ...) and describe the change in the plan",
		},
		"sort-output": {
			why: "sort -o (--output) writes the result to a file",
			alt: "use sort without -o and read its output",
		},
		"uniq-output": {
			why: "uniq writes to its second file operand",
			alt: "give uniq one input file and read its output",
		},
		"sed-in-place": {
			why: "sed -i edits files in place",
			alt: "to preview the change, run the same sed without -i",
		},
		"sed-script": {
			why: "this sed script writes files (w, W, s///w) or runs commands (e, s///e), or uses a construct the policy does not understand",
			alt: "use sed with p, s///, d and addresses only, and read its output",
		},
		"awk-program": {
			why: "this awk program writes files (print > file), pipes to commands (|), or calls system()",
			alt: "let awk print to its standard output only",
		},
		"awk-option": {
			why: "this awk option loads code from a file, edits in place or writes a file",
			alt: "give the program inline with only -F and -v options",
		},
		"tar": {
			why: "tar runs programs or writes files through many of its options, even while listing (--to-command, --use-compress-program, --checkpoint-action), so only its listing form is allowed",
			alt: "list the archive with tar -tf FILE (tar -tzf FILE for a .tar.gz, tar -tvf FILE for sizes and dates), or tar --list --file=FILE",
		},
		"xxd": {
			why: "xxd writes the second file it is given (and -r turns a dump back into bytes there), and it reads any word that starts like one of its options as that option",
			alt: "dump one file to your output: xxd FILE, with -l, -s, -c or -g and a number, or -p, -u, -a, -b, -e, -i, -C (xxd -l 64 FILE); hexdump -C FILE and od -A x -t x1z FILE work too",
		},
		"tree-output": {
			why: "tree -o writes its listing to a file (and -R writes one in every directory)",
			alt: "run tree without -o or -R",
		},
		"date-set": {
			why: "date -s or a date operand sets the system clock",
			alt: "run date with only a +FORMAT or -d to print a date",
		},
		"hostname-set": {
			why: "hostname with a name or file sets the system's host name",
			alt: "run hostname with no arguments to print it",
		},
		"tee": {
			why: "tee writes its input to the files it names",
			alt: "drop the tee and read the output directly",
		},
		"git": {
			why: "only read-only git subcommands may run while planning (status, log, show, diff, blame, grep, ls-files, rev-parse, ...)",
			alt: "inspect with git status, git log, git show or git diff and describe the change in the plan",
		},
		"git-option": {
			why: "this git option writes a file, runs another program or changes git's configuration",
			alt: "run the git command without it",
		},
		"git-branch": {
			why: "git branch, tag and remote change refs or configuration unless used in a listing form",
			alt: "list with git branch -a, git branch --list PATTERN, git tag -l or git remote -v",
		},
		"git-remote-query": {
			why: "git remote show NAME asks the remote at the URL the repository's configuration gives, which a project can choose: git sends the credentials the URL carries (and may store them) and starts the remote helper its scheme names",
			alt: "git remote show -n NAME prints the same from the configuration without asking the remote; git remote -v lists the URLs, git branch -r the remote branches as last fetched",
		},
		"git-config": {
			why: "git config changes configuration unless it only reads it",
			alt: "read with git config --get NAME or git config --list",
		},
		"write-option": {
			why: "this option makes the command write or change something",
			alt: "run the command without it and read its output",
		},
		"exec-option": {
			why: "this option makes the command run another program",
			alt: "run the command without it",
		},
		"shell-option": {
			why: "this shell setting changes how later words are treated (exporting or reading assignments)",
			alt: "leave the shell options alone",
		},
		"man-option": {
			why: "man's options choose pagers, browsers and formatters, and a path makes it format a local file",
			alt: "run man PAGE (or man SECTION PAGE) with no options, piped to grep or head if needed",
		},
		"plansmith": {
			why: "only plansmith's read-only commands may run while planning",
			altFor: func() string {
				return "use " + templates.CLI("status") + " or " + templates.CLI("memory show")
			},
		},
		"path-lookup": {
			why: "the PATH programs are looked up in searches a folder the project decides the contents of (a relative entry, or a folder inside the project), so a file the project carries could run in place of this program or of one it starts",
			alt: "use the Read, Grep and Glob tools, which need no PATH, and the shell's builtins (echo, printf, pwd, test); programs run again once the user starts Claude Code with a PATH of folders outside the project only (no \".\", empty or relative entries, node_modules/.bin, an activated .venv or direnv's PATH_add)",
			altFor: func() string {
				if templates.Codex() {
					// Codex has no tool that reads: the builtins must
					// (review EC5).
					return "read with the shell's builtins alone: echo sub/* lists a folder, while IFS= read -r l; do printf '%s\\n' \"$l\"; done < FILE prints a file; programs run again once the user starts Codex with a PATH of folders outside the project only (no \".\", empty or relative entries, node_modules/.bin, an activated .venv or direnv's PATH_add)"
				}
				return ""
			},
		},
		// The words of path-lookup when the PATH could not be read at all
		// (policy.PathUnknown): the PATH is not known to search the
		// project, and no PATH the user starts with helps until what the
		// refusal names is fixed (review FI4).
		"path-unknown": {
			why: "the PATH your commands run with comes from Claude Code's snapshots of your shell, which could not be read, so plansmith cannot tell whether it searches a folder the project decides the contents of, where a file the project carries could run in place of this program or of one it starts",
			whyFor: func() string {
				if templates.Codex() {
					return "the PATH your commands run with comes from Codex's snapshots of your shell, which could not be read, so plansmith cannot tell whether it searches a folder the project decides the contents of, where a file the project carries could run in place of this program or of one it starts"
				}
				return ""
			},
			alt: "use the Read, Grep and Glob tools, which need no PATH, and the shell's builtins (echo, printf, pwd, test); programs run again once the user fixes what the Refused line names",
			altFor: func() string {
				if templates.Codex() {
					return "read with the shell's builtins alone: echo sub/* lists a folder, while IFS= read -r l; do printf '%s\\n' \"$l\"; done < FILE prints a file; programs run again once the user fixes what the Refused line names"
				}
				return ""
			},
		},
		"not-installed": {
			why: "the program is not installed (found in no folder of PATH), and the shell would then run the command-not-found handler the user's shell startup defines, which can install and run a tool the project names (mise installs what .tool-versions asks for)",
			alt: "do without it: the Read, Grep and Glob tools, and the commands that are installed (ls -R or find . -name PATTERN for a tree, grep -rn PATTERN . for a search); command -v NAME tells whether a program is there",
			altFor: func() string {
				if templates.Codex() {
					return "do without it: use the commands that are installed (ls -R or find . -name PATTERN for a tree, grep -rn PATTERN . for a search); command -v NAME tells whether a program is there"
				}
				return ""
			},
		},
		"version-shim": {
			why: "a version manager's shim (mise, asdf, pyenv, nodenv, rbenv, Volta, Corepack) runs the version a file of the folder it starts in names, and a project can name a program it carries there (node path:./x in .tool-versions; Volta runs the bin hooks of the project's .volta/hooks.json; Corepack takes the registry from its .corepack.env), so no program found first as such a shim runs while planning, nor one that starts such a program by name (npm starts node)",
			alt: "read which version the project asks for (cat .tool-versions .python-version .nvmrc mise.toml) and which packages it uses from its files (package.json, package-lock.json and node_modules/*/package.json; requirements*.txt, pyproject.toml, poetry.lock or uv.lock, and ls .venv/lib/python*/site-packages); the system's own copy, where there is one, runs by its full path (/usr/bin/python3 --version)",
		},
		"plansmith-cancel": {
			why: "only the user ends a planning loop: plansmith cancel runs when their own last message was the cancel command, never on the strength of something read along the way",
			altFor: func() string {
				return "if the user wants the loop ended, ask them to type " + templates.Slash("cancel") + "; otherwise go on with the current phase"
			},
		},
		"unreadable": {
			why: "plansmith could not read the hook input or the loop's state while a planning loop may be running, so it refuses edits and shell commands rather than let them through unchecked",
			altFor: func() string {
				if templates.Codex() {
					// Every read is a shell command there (review DA4).
					return "stop and ask the user to run " + templates.CLI("status") + " (or " + templates.CLI("cancel") +
						" to end the loop) in a terminal if this persists: every shell command is refused until then, and Codex has no other tool that reads files"
				}
				return "use the Read, Grep and Glob tools meanwhile (every shell command is refused until then), and ask the user to run " + templates.CLI("status") +
					" (or " + templates.Slash("cancel") + " to end the loop) if this persists"
			},
		},
		"unjudged": {
			why: "plansmith could not finish judging this call (it ran out of time or failed), and while a planning loop may be running a call that was not judged does not run",
			altFor: func() string {
				return "try the call again; if it was a long command, split it into shorter ones; if every call is refused so, ask the user to run " + templates.CLI("status") + " (or " + templates.Slash("cancel") + " to end the loop)"
			},
		},
		"internal": {
			why: "the policy failed while judging the command, so it refuses to be safe",
			alt: "write the command more simply",
		},
	}
})
