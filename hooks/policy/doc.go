// Package policy decides which tool calls a planning session may make: it
// keeps the project read-only and cannot be argued out of it, because it
// judges what a command does, not what it says about itself.
//
// Tools that edit files (Edit, MultiEdit, Write, NotebookEdit) are refused,
// and so is every tool not known to leave the project as it is (readTools)
// unless the project's Config names it: MCP tools, Skill and slash commands
// (whose ! lines run shell no hook sees), worktrees, schedules, PowerShell,
// and whatever a newer CLI adds. Monitor's command is judged as Bash.
// Sub-agents (Agent, Task) are allowed, their own calls coming back here,
// unless the call or the agent's definition (Config.AgentDefinition) asks for
// an isolation (a worktree is a git branch in the project, remote runs where
// no hook sees) or the definition sets anything not known to start nothing
// and write nothing (its mcpServers, hooks and skills run programs).
// Bash commands are parsed with mvdan.cc/sh (bash dialect) and allowed only
// when every simple command anywhere in them (statements, pipelines, lists,
// subshells, blocks, loops, command and process substitutions, here-document
// bodies) is read-only, and every redirect goes to /dev/null, /dev/stdout or
// /dev/stderr or copies a descriptor. Reading redirects are fine, except
// into descriptors 1 and 2: on Linux /dev/stdout opens again, for writing,
// the file behind descriptor 1, so 1 and 2 may only ever be what they were
// or each other. Anything not understood is refused: this is an allow-list.
//
// The choices, in order of the code:
//
//   - Inert commands (cat, grep, ls, wc, head, diff, jq, stat, ...) read
//     whatever their arguments; see the inert table.
//   - Commands read-only only in some forms get a rule each: find, fd, sort,
//     uniq, sed, awk, tree, date, hostname, tee, git (refused where it
//     would take a folder the project carries for a bare repository,
//     Config.GitRepository, judged in every folder the cd's before it may
//     lead to when their paths are literal, refused after any other cd), rg, ag, file, yq, base64, man, go
//     (version, env, list, doc; refused after a cd, with -C, and where a
//     go.mod asks for a newer Go, which go would fetch and run,
//     Config.GoToolchain), npm (ls, view, outdated, ...; refused where
//     the project carries an .npmrc, Config.NpmConfig, or after a cd),
//     printf, read, unset, set, shopt, test, tar (listing only: -tf or
//     --list --file), xxd (one file to its output), gofmt (without -w).
//     Their arguments must be
//     literal or unable to become an option, since a value computed at run
//     time could be -delete.
//   - Their options are data: grammars.go gives each command's options (which
//     take a value and how, which may be abbreviated, GNU and BSD/macOS
//     spellings, which are refused), and one interpreter (options.go) reads
//     the arguments as the tool does, "--" taken as an option's value
//     included. A word that would be a refused option in any reading is
//     refused wherever it stands.
//   - Wrappers (env, xargs, nice, timeout, command, builtin, time, nohup, sudo,
//     stdbuf, ionice) are looked through after their own options; under
//     xargs the wrapped command gets unknown trailing arguments. env -C and
//     sudo -D, which run the command in another folder, are refused, and
//     so are env -i and env -u of a variable a command may not set.
//   - Refused outright: interpreters and shells (bash -c, python3 -c, node -e,
//     scripts), eval, exec, source, trap, alias, functions, coprocesses,
//     command names built from expansions or globs, and programs named by a
//     path outside the system directories. go test, go build and make write
//     files and are left to the project's Config; so is go list when it
//     builds (-export, -compiled, -json with Stale).
//   - Assignments to variables that change what runs (PATH, IFS, BASH_ENV,
//     ENV, LD_*, GIT_*, *PAGER, ...) are refused, and a variable exported to
//     a program (NAME=v cmd, env NAME=v, export) must be lower-case or on a
//     short list of harmless names (LC_*, LANG, TZ, NO_COLOR, ...); the
//     locale's (LANGUAGE, LC_*) only with a name, never a path, since
//     programs load their messages and locale data from it.
//   - git's signature checks are refused (--show-signature, verify-commit,
//     verify-tag, tag -v, %G in a format, a format or sort key computed at
//     run time however its option is abbreviated): git runs the verifier
//     the signature's armour names; where the user's own config sets
//     log.showSignature (Config.GitShowsSignatures), git log and git show
//     need --no-show-signature as their first word, so do git stash list
//     (after list) and a git reflog given a format, and git range-diff is
//     refused. So is git remote show NAME without -n,
//     which asks the remote with whatever credentials its URL carries, and
//     the user's credential helper keeps them.
//   - Arithmetic, [[ -eq ]], test -v, ${!x} and computed subscripts are
//     refused unless their operands are literal: bash evaluates array
//     subscripts inside such values, which runs command substitutions. The
//     one exception is a count, $(wc -l < FILE) or $(... | wc -l), whose
//     output holds no subscript. For
//     the same reason a variable name given to read, printf -v or unset, and
//     a subcommand or name a rule dispatches on (git, npm, go, git config),
//     must be written out in full.
//   - Where bash and the parser could disagree, the command is refused: a
//     carriage return, a backslash-newline that does not follow a blank
//     (outside quoted here-document bodies), a byte that means something to
//     bash right after a non-ASCII byte (\ ` } outside '...', also | { [ ] ^
//     ~ @ outside quotes: bash in a Big5, GBK or Shift-JIS locale reads it
//     as part of a character), $"..." (bash
//     expands a translation from a catalogue the project may ship), quotes
//     inside `...`, <( >( or
//     zsh's =( the parser kept as text outside quotes, a comment or a case
//     statement inside $(...) or <(...) (bash 3.2 scans for the closing
//     parenthesis), a comment ending in a backslash (the parser joins the
//     next line to it);
//     here-documents whose delimiter is not a plain word (WORD, \WORD,
//     'WORD' or "WORD"), whose body has a line bash could take as the end,
//     whose end is not the delimiter alone, or that sit inside a
//     substitution;
//     extended globs (zsh runs code in glob qualifiers); {NAME} redirects,
//     which assign NAME; and redirects from /dev/tcp or /dev/udp, which bash
//     turns into network connections.
//   - Claude Code runs the Bash tool in the user's shell, zsh by default on
//     macOS, so what zsh reads as code is refused too: its special names
//     (path, functions, commands, options, NULLCMD, PROMPT4, ...), $~x and
//     friends, a subscript right after an expansion ($HOME[x]), a line of
//     redirects with no command, and arguments zsh evaluates as arithmetic
//     (shift, exit, return, break, continue, read -t, test -t, printf's
//     numeric conversions) unless they are numbers written out.
//   - A name the shell looks up in PATH (every command but its builtins,
//     and every command a wrapper or find -exec runs) is refused when a
//     relative or empty PATH entry comes before the folder it is found in
//     (Config.PathLookup): a file the project carries would run instead;
//     or when it is found in no folder of PATH: the shell would run the
//     user's command-not-found handler, which may install what the project
//     names (mise), instead; or when it is a version manager's shim.
//   - Claude Code restores the user's aliases and functions before every
//     command (its shell snapshot): a command word the user's shell defines
//     as a function, or as an alias for another program, is refused, and
//     so are cd, pushd and popd while a chpwd function is defined, which
//     zsh runs at every change of folder (Config.ShellDefines); with
//     bash's keyword option on (set -k), an argument NAME=VALUE is judged
//     as the exported assignment it then is.
//   - plansmith's own read-only commands are allowed by exact form, and
//     cancel only when the user's last prompt asked for it
//     (Config.CancelAsked: words the agent read cannot end the loop); run
//     by name, as "${CLAUDE_PLUGIN_ROOT}/bin/plansmith", or at a
//     path Config.Ours says is plansmith itself, compared as written (a
//     project may carry a file, or a link, named plansmith).
//
// The package is pure: strings and bytes in, a Decision out. Reading the hook
// input and writing the hook's answer belong to the caller.
package policy
