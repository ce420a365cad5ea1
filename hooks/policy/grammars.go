package policy

import "sync"

// The option grammars of the commands whose options decide whether they
// write or run something: which options take a value and how, which the
// tool lets you abbreviate, which GNU and BSD/macOS spellings exist, and
// which options are refused and by what rule. The interpreter is options.go;
// the rules that also look at operands, scripts or subcommands are in
// forms.go, git.go, sed.go and awk.go.
//
// Rows list every option that takes a value (so that the interpreter knows
// what its value swallows), every refused option, and for strict grammars
// every option at all.

func flags(rule string, names ...string) []option {
	out := make([]option, len(names))
	for i, n := range names {
		out[i] = opt(n, flag, rule)
	}
	return out
}

func valued(names ...string) []option {
	out := make([]option, len(names))
	for i, n := range names {
		out[i] = opt(n, required, "")
	}
	return out
}

func rows(parts ...[]option) []option {
	var out []option
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func digits() []option {
	var out []option
	for c := byte('0'); c <= '9'; c++ {
		out = append(out, option{short: c})
	}
	return out
}

// grammarBuilders make each command's grammar. A grammar is built and
// indexed the first time its command is judged (grammarOf), so a hook call
// pays only for the grammars of the commands it judges: building all of them
// took a sixth of a PreToolUse hook call that judged one git command.
var grammarBuilders = sync.OnceValue(func() map[string]func() *grammar {
	return map[string]func() *grammar{
		// GNU sort and the BSD sort of macOS (both getopt_long, both permute).
		"sort": func() *grammar {
			return &grammar{abbrev: true, options: rows(
				[]option{
					opt("-o --output", required, "sort-output"),
					opt("--compress-program", required, "exec-option"),
					// Its temporary files go there, and stay when sort is killed.
					opt("-T --temporary-directory", required, "sort-output"),
					opt("--check", optional, ""),
				},
				valued("-k --key", "-S --buffer-size", "-t --field-separator",
					"--random-source", "--sort", "--batch-size", "--files0-from", "--parallel"),
				flags("", "-b --ignore-leading-blanks", "-d --dictionary-order", "-f --ignore-case", "-g --general-numeric-sort",
					"-i --ignore-nonprinting", "-M --month-sort", "-h --human-numeric-sort", "-n --numeric-sort",
					"-R --random-sort", "-r --reverse", "-V --version-sort", "-c", "-C", "-m --merge", "-s --stable",
					"-u --unique", "-z --zero-terminated", "--debug", "--help", "--version"),
			)}
		},

		// uniq writes its second operand. BSD uniq stops at the first operand,
		// so "uniq in.txt -c" writes a file named -c on macOS.
		"uniq": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "uniq-output", bsdStop: true, options: rows(
				flags("", "-c --count", "-d --repeated", "-i --ignore-case", "-u --unique", "-z --zero-terminated", "--help", "--version"),
				[]option{opt("-D --all-repeated", optional, ""), opt("--group", optional, "")},
				valued("-f --skip-fields", "-s --skip-chars", "-w --check-chars"),
				digits(), // the obsolete -N for -f N
			)}
		},

		// tee writes every operand.
		"tee": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "tee", bsdStop: true, options: rows(
				flags("", "-a --append", "-i --ignore-interrupts", "-p", "--help", "--version"),
				[]option{opt("--output-error", optional, "")},
			)}
		},

		// date sets the clock with -s or an operand other than +FORMAT; BSD date
		// adds -j, -n, -v and -z.
		"date": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "date-set", bsdStop: true, options: rows(
				[]option{
					opt("-s --set", required, "date-set"),
					opt("-I --iso-8601", optional, ""),
					opt("-j", flag, "").bsd(), opt("-n", flag, "").bsd(),
					opt("-v", required, "").bsd(), opt("-z", required, "").bsd(),
				},
				valued("-d --date", "-f --file", "-r --reference", "--rfc-3339"),
				flags("", "--debug", "--resolution", "-R --rfc-email", "-u --utc", "--universal", "--help", "--version"),
			)}
		},

		// hostname prints with these options and sets the name otherwise.
		"hostname": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "hostname-set", options: rows(
				flags("", "-f --fqdn", "--long", "-s --short", "-i --ip-address", "-I --all-ip-addresses", "-d --domain",
					"-a --alias", "-A --all-fqdns", "-y --yp", "--nis"),
				[]option{opt("-F --file", required, "hostname-set"), opt("-b --boot", flag, "hostname-set")},
			)}
		},

		// tree reads its own options: a value is always the next word and the
		// cluster goes on ("-Po PATTERN FILE").
		"tree": func() *grammar {
			return &grammar{abbrev: true, nextValues: true, options: rows(
				[]option{opt("-o --output", required, "tree-output"), opt("-R", flag, "tree-output")},
				valued("-P", "-I", "-L", "-H", "-T", "--charset", "--filelimit", "--timefmt", "--sort", "--infofile", "--hintro", "--houtro",
					"--gitfile"),
				flags("", "-a", "-d", "-f", "-F", "-l", "-x", "-s", "-h", "-D", "-C", "-n", "-p", "-u", "-g", "-i", "-q", "-N", "-Q",
					"-r", "-t", "-v", "-U", "--du", "--dirsfirst", "--noreport", "--prune", "--gitignore"),
			)}
		},

		// getent -s names the NSS service whose libnss_SERVICE.so.2 glibc
		// loads: "./x" loads libnss_./x.so.2, which a project can carry.
		"getent": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "exec-option", options: rows(
				[]option{opt("-s --service", required, "exec-option")},
				flags("", "-i --no-idn", "-A --no-addrconfig", "--help", "--usage", "-V --version"),
			)}
		},

		// file -C compiles a magic file and writes NAME.mgc.
		"file": func() *grammar {
			return &grammar{abbrev: true, options: rows(
				[]option{
					opt("-C --compile", flag, "write-option"),
					// -z and -Z run decompressors found on PATH, as rg -z does.
					opt("-z --uncompress", flag, "exec-option"), opt("-Z --uncompress-noreport", flag, "exec-option"),
				},
				valued("-e --exclude", "-F --separator", "-f --files-from", "-m --magic-file", "-P --parameter", "--exclude-quiet"),
				flags("", "-b --brief", "-i --mime", "-L --dereference", "-h --no-dereference", "-k --keep-going",
					"-s --special-files", "-N --no-pad", "--mime-type", "--mime-encoding", "-r --raw", "-0 --print0"),
			)}
		},

		// fd (clap: no abbreviations).
		"fd": func() *grammar {
			return &grammar{options: rows(
				[]option{opt("-x --exec", required, "exec-option"), opt("-X --exec-batch", required, "exec-option"),
					opt("-l --list-details", flag, "exec-option")}, // runs ls, found on PATH
				valued("-d --max-depth", "-t --type", "-e --extension", "-E --exclude", "-c --color", "-j --threads",
					"-S --size", "-o --owner", "--changed-within", "--changed-before", "--base-directory",
					"--path-separator", "--search-path", "--max-results", "--batch-size", "--ignore-file", "--format", "--min-depth", "--exact-depth",
					"--and", "--ignore-contain"),
			)}
		},

		// ripgrep: --pre and --hostname-bin run programs, and --search-zip runs
		// decompressors found on PATH. No abbreviations.
		"rg": func() *grammar {
			return &grammar{options: rows(
				[]option{
					opt("--pre", required, "exec-option"), opt("--hostname-bin", required, "exec-option"),
					opt("-z --search-zip", flag, "exec-option"),
				},
				valued("-A --after-context", "-B --before-context", "-C --context", "-e --regexp", "-f --file", "-g --glob",
					"-j --threads", "-m --max-count", "-M --max-columns", "-r --replace", "-t --type", "-T --type-not",
					"-E --encoding", "-d --max-depth", "--pre-glob", "--iglob", "--type-add", "--colors", "--sort", "--sortr",
					// rg 14 and later take the next word as the value whatever it
					// is, "--" included (review AT1).
					"--context-separator", "--color", "--path-separator", "--max-filesize", "--engine", "--dfa-size-limit",
					"--regex-size-limit", "--ignore-file", "--type-clear", "--field-context-separator", "--field-match-separator",
					"--hyperlink-format", "--generate"),
				flags("", "-n --line-number", "-N --no-line-number", "-i --ignore-case", "-s --case-sensitive", "-S --smart-case",
					"-l --files-with-matches", "-w --word-regexp", "-x --line-regexp", "-F --fixed-strings", "-c --count",
					"-v --invert-match", "-o --only-matching", "-u --unrestricted", "-L --follow", "-H --with-filename",
					"-I --no-filename", "--hidden", "--files", "--no-heading", "--heading", "--no-ignore"),
			)}
		},

		// The Silver Searcher (getopt_long: abbreviations).
		"ag": func() *grammar {
			return &grammar{abbrev: true, options: rows(
				[]option{opt("--pager", required, "exec-option")},
				valued("-A --after", "-B --before", "-C --context", "-G --file-search-regex", "-g", "-m --max-count",
					"-p --path-to-ignore", "-W --width", "--depth", "--ignore", "--ignore-dir",
					"--color-match", "--color-path", "--color-line-number", "--workers", "--ackmate-dir-filter"),
			)}
		},

		// yq: mikefarah's (pflag) and kislyuk's (argparse, which abbreviates).
		"yq": func() *grammar {
			return &grammar{abbrev: true, options: rows(
				[]option{
					opt("-i --inplace", flag, "write-option"), opt("--in-place", flag, "write-option"),
					opt("-s --split-exp", required, "write-option"), opt("--split-exp-file", required, "write-option"),
				},
				valued("-I --indent", "-p --input-format", "-o --output-format", "--expression", "--from-file"),
			)}
		},

		// base64: GNU's -i ignores garbage and -w wraps; the BSD/macOS base64
		// reads -i FILE and writes -o FILE.
		"base64": func() *grammar {
			return &grammar{abbrev: true, options: []option{
				opt("-d --decode", flag, ""),
				opt("-i --ignore-garbage", flag, "").gnu(), opt("-w --wrap", required, "").gnu(),
				opt("-i --input", required, "").bsd(), opt("-b --break", required, "").bsd(), opt("-D", flag, "").bsd(),
				opt("-o --output", required, "write-option").bsd(),
			}}
		},

		// bash's jobs lists jobs, but "jobs -x COMMAND" runs COMMAND.
		"jobs": func() *grammar {
			return &grammar{strict: true, rule: "exec-option", stopAtOperand: true, options: rows(
				flags("", "-l", "-n", "-p", "-r", "-s"),
				[]option{opt("-x", flag, "exec-option")},
			)}
		},

		// GNU diff3 runs --diff-program to compare the files (getopt_long:
		// "--diff-prog" and even "--d" abbreviate it).
		"diff3": func() *grammar {
			return &grammar{abbrev: true, options: rows(
				[]option{opt("--diff-program", required, "exec-option")},
				valued("-L --label"),
			)}
		},

		// man only with page names: its options pick pagers, browsers and
		// formatters, or local files to format.
		"man": func() *grammar { return &grammar{strict: true, rule: "man-option"} },

		// find's primaries are single-dash words, like Go flags. -exec and
		// -execdir are judged by the command they run (checkFind); -ok and
		// -okdir ask on the terminal, which a planning session cannot answer.
		// Claude Code's Bash tool runs find as the bfs built into the CLI,
		// whose -rm is -delete (review CN6).
		"find": func() *grammar {
			return &grammar{goFlags: true, noDashDash: true, options: flags("find-action",
				"--delete", "--rm", "--ok", "--okdir", "--fprint", "--fprint0", "--fprintf", "--fls")}
		},

		// go doc -http downloads and runs pkgsite's doc server and opens a
		// browser on it.
		"go doc": func() *grammar { return &grammar{goFlags: true, options: []option{opt("--http", flag, "exec-option")}} },

		// gofmt prints: the files it would change (-l), the change as a diff
		// (-d), or the formatted source. -w rewrites the files and
		// -cpuprofile writes a profile; strict, for any flag a later Go
		// adds. A word after the first file is still read as a flag here,
		// though gofmt takes it as a file: refusing -w there costs nothing.
		"gofmt": func() *grammar {
			return &grammar{goFlags: true, strict: true, rule: "write-option", options: rows(
				flags("", "--l", "--d", "--s", "--e"),
				valued("--r"),
				flags("write-option", "--w"),
				[]option{opt("--cpuprofile", required, "write-option")},
			)}
		},

		// go mod graph and go mod why: their flags only, no build flags.
		"go mod graph": func() *grammar {
			return &grammar{goFlags: true, strict: true, rule: "write-option", options: rows(
				flags("", "--x"), valued("--go"),
			)}
		},
		"go mod why": func() *grammar {
			return &grammar{goFlags: true, strict: true, rule: "write-option", options: flags("", "--m", "--vendor")}
		},

		// go env -w and -u change the Go environment file.
		"go env": func() *grammar {
			return &grammar{goFlags: true, options: rows(
				flags("write-option", "--w", "--u"),
				flags("", "--json", "--changed"),
			)}
		},

		// go list: the build flags that run programs or write files. Strict:
		// go's hidden flags write files too (review AX1: -debug-trace=FILE).
		"go list": func() *grammar {
			return &grammar{goFlags: true, strict: true, rule: "write-option", options: rows(
				[]option{
					opt("--toolexec", required, "exec-option"), opt("--exec", required, "exec-option"),
					opt("--overlay", required, "exec-option"), opt("--o", required, "write-option"),
					opt("--modfile", required, "write-option"), opt("--pkgdir", required, "write-option"),
					opt("--gcflags", required, "exec-option"), opt("--asmflags", required, "exec-option"),
					opt("--gccgoflags", required, "exec-option"), opt("--ldflags", required, "exec-option"),
					{long: "mod", value: required, rule: "write-option", writesIf: "mod"},
					// -export and -compiled build the packages, as go build does
					// (the compiler, cgo and the C compiler run; the build cache is
					// written); so do -json and -f when they ask for Stale (checkGo).
					opt("--export", flag, "write-option"), opt("--compiled", flag, "write-option"),
					opt("--json", optional, ""), opt("--m", flag, ""), opt("--buildvcs", optional, ""), opt("--test", flag, ""),
				},
				[]option{
					opt("--debug-trace", required, "write-option"), opt("--debug-runtime-trace", required, "write-option"),
					opt("--debug-actiongraph", required, "write-option"),
					// -work keeps the build's temporary folder instead of removing it.
					opt("--work", flag, "write-option"),
					// -asan and -msan ask the C compiler ($CC) for its version,
					// and -compiler=gccgo runs gccgo (review AZ5).
					opt("--asan", flag, "exec-option"), opt("--msan", flag, "exec-option"),
					opt("--compiler", required, "exec-option"),
				},
				valued("--f", "--tags", "--C", "--p", "--reuse", "--buildmode", "--installsuffix", "--pgo",
					"--covermode", "--coverpkg"),
				flags("", "--e", "--deps", "--find", "--u", "--versions", "--retracted", "--a", "--n", "--x", "--v",
					"--race", "--cover", "--linkshared", "--modcacherw", "--trimpath"),
			)}
		},

		// npm's reading subcommands: a positive list, since --cache, --prefix,
		// --logs-dir and friends make even "npm ls" write there.
		"npm": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "write-option", options: rows(
				flags("", "--json", "--long", "-l", "--all", "-a", "--parseable", "-p", "--global", "-g", "--production",
					"--dev", "--link", "--workspaces", "--ws", "--offline"),
				valued("--depth", "--omit", "--include", "-w --workspace"),
			)}
		},

		// sed: GNU permutes and takes -i[SUFFIX] and -l N; BSD stops at the
		// first operand, takes -i SUFFIX, -I SUFFIX and a bare -l.
		"sed": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "sed-script", bsdStop: true, options: rows(
				flags("", "-n --quiet", "--silent", "-E --regexp-extended", "-r", "-u --unbuffered", "--posix",
					"--debug", "--sandbox", "--follow-symlinks", "--help", "--version"),
				[]option{
					opt("-e --expression", required, ""),
					opt("-f --file", required, "sed-script"),
					opt("-i --in-place", optional, "sed-in-place").gnu(), opt("-i", required, "sed-in-place").bsd(),
					opt("-I", required, "sed-in-place").bsd(),
					opt("-s --separate", flag, "").gnu(), opt("-z --null-data", flag, "").gnu(), opt("--zero-terminated", flag, "").gnu(),
					opt("-l --line-length", required, "").gnu(), opt("-l", flag, "").bsd(), opt("-a", flag, "").bsd(),
				},
			)}
		},

		// awk: gawk, mawk and BSD awk stop at the program. Only -F and -v (and a
		// few gawk switches) are allowed: -f and -E load programs, -i and -l load
		// code, -o, -p and -d write files, mawk's -W does several of these.
		"awk": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "awk-option", stopAtOperand: true, options: rows(
				valued("-F --field-separator", "-v --assign"),
				flags("", "--posix", "--re-interval", "--characters-as-bytes", "--traditional", "--sandbox", "--version"),
			)}
		},

		// git's own options, before the subcommand (git.c: exact names only).
		"git": func() *grammar {
			return &grammar{strict: true, rule: "git-option", stopAtOperand: true, noDashDash: true, options: rows(
				valued("-C"),
				flags("", "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects",
					"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--version",
					"--html-path", "--man-path", "--info-path"), // print a folder and exit
				[]option{opt("-c", required, "git-option"), opt("--config-env", required, "git-option")},
			)}
		},

		// Every git subcommand (parse-options: abbreviations and --no-).
		"git *": func() *grammar { return &grammar{abbrev: true, negate: true, options: gitCommon()} },
		// git notes takes --ref NOTES-REF before its subcommand.
		"git notes": func() *grammar {
			return &grammar{abbrev: true, negate: true, options: rows(gitCommon(), valued("--ref"))}
		},
		"git grep": func() *grammar { return &grammar{abbrev: true, negate: true, options: rows(gitCommon(), gitGrep())} },
		"git branch": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "git-branch", options: rows(gitListOptions(),
				flags("", "-a --all", "-r --remotes", "-v --verbose", "--show-current", "-q --quiet"))}
		},
		"git tag": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "git-branch", options: rows(gitListOptions(),
				[]option{opt("-n", optional, ""), opt("-v --verify", flag, "signature")})}
		},
		"git config": func() *grammar {
			return &grammar{abbrev: true, strict: true, rule: "git-config", stopAtOperand: true, options: rows(
				flags("", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l --list", "--get-color", "--get-colorbool",
					"--global", "--system", "--local", "--worktree", "--includes", "--no-includes", "--show-origin",
					"--show-scope", "-z --null", "--name-only", "--bool", "--int", "--path", "--bool-or-int",
					"--expiry-date", "--fixed-value", "--all"),
				valued("-t --type", "--default", "--value", "--url", "-f --file", "--blob", "--regexp"),
				flags("git-config", "--add", "--replace-all", "--unset", "--unset-all", "--rename-section",
					"--remove-section", "-e --edit"),
			)}
		},
	}
})

// built holds the grammars built so far, by name.
var built sync.Map

// grammarOf returns the grammar named key, building it on first use; nil
// when there is none.
func grammarOf(key string) *grammar {
	if g, ok := built.Load(key); ok {
		return g.(*grammar)
	}
	build := grammarBuilders()[key]
	if build == nil {
		return nil
	}
	g, _ := built.LoadOrStore(key, build().index())
	return g.(*grammar)
}

// gitCommon are options refused for every git subcommand, and the harmless
// options that share their prefixes (so --output-indicator-new is not
// taken for an abbreviation of --output).
var gitCommon = sync.OnceValue(func() []option {
	return []option{
		opt("--output", required, "git-option"),
		opt("--output-indicator-new", required, ""), opt("--output-indicator-old", required, ""),
		opt("--output-indicator-context", required, ""),
		opt("--ext-diff", flag, "git-option"),
		opt("--textconv", flag, "git-option"),
		// cat-file --filters runs the filter drivers the project's
		// .gitattributes selects, from the user's own config: git-lfs
		// writes .git/lfs and fetches from the project's .lfsconfig URL
		// (review W2).
		opt("--filters", flag, "git-option"),
		opt("--text", flag, ""), // an exact name before an abbreviation, as git reads it
		opt("--help", flag, "git-option"),
		opt("--exec", required, "git-option"),
		opt("--upload-pack", required, "git-option"), opt("--receive-pack", required, "git-option"),
		opt("--show-signature", flag, "signature"),
		// --submodule=diff runs git diff in each submodule, with that
		// repository's own config (diff.external); the recursing options
		// open every submodule's repository.
		opt("--submodule", optional, "git-option"),
		opt("--recurse-submodules", optional, "git-option"),
	}
})

// gitGrep: -O[PAGER] opens the matching files in a program.
var gitGrep = sync.OnceValue(func() []option {
	return rows(
		[]option{opt("-O --open-files-in-pager", optional, "git-option"), opt("--color", optional, "")},
		valued("-e", "-f", "-A --after-context", "-B --before-context", "-C --context", "-m --max-count",
			"--threads", "--max-depth"),
	)
})

// gitListOptions: the options git branch and git tag share for listing.
var gitListOptions = sync.OnceValue(func() []option {
	return rows(
		flags("", "-l --list", "-i --ignore-case", "--no-color", "--no-column", "--omit-empty", "--no-abbrev"),
		[]option{
			opt("--color", optional, ""), opt("--column", optional, ""), opt("--abbrev", optional, ""),
			opt("--contains", lastArg, ""), opt("--no-contains", lastArg, ""),
			opt("--merged", lastArg, ""), opt("--no-merged", lastArg, ""),
		},
		valued("--points-at", "--sort", "--format"),
	)
})
