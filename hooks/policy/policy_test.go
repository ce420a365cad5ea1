package policy

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"

	"github.com/plansmith/plansmith/templates"
)

func TestTool(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		input string
		allow bool
		rule  string
	}{
		{"edit denied", "Edit", `{"file_path":"/p/a.go","old_string":"a","new_string":"b"}`, false, "edit-tool"},
		{"multiedit denied", "MultiEdit", `{"file_path":"/p/a.go"}`, false, "edit-tool"},
		{"write denied", "Write", `{"file_path":"/p/a.go","content":"x"}`, false, "edit-tool"},
		{"notebook edit denied", "NotebookEdit", `{"notebook_path":"/p/a.ipynb"}`, false, "edit-tool"},
		{"edit with bad input still denied", "Write", `not json`, false, "edit-tool"},
		{"read-only bash allowed", "Bash", `{"command":"grep -rn foo src | head -20","description":"search"}`, true, ""},
		{"destructive bash denied", "Bash", `{"command":"rm -rf build"}`, false, "unknown-command"},
		{"bash without command", "Bash", `{"description":"x"}`, false, "bad-input"},
		{"bash with empty command", "Bash", `{"command":"  "}`, false, "bad-input"},
		{"bash with non-string command", "Bash", `{"command":5}`, false, "bad-input"},
		{"bash with bad json", "Bash", `{"command":`, false, "bad-input"},
		{"bash with a second command field in other case", "Bash", `{"command":"touch x","COMMAND":"ls"}`, false, "bad-input"},
		{"bash with a null command", "Bash", `{"command":null}`, false, "bad-input"},
		{"bash input that is not an object", "Bash", `["ls"]`, false, "bad-input"},
		{"plans show with the name on a quoted heredoc allowed", "Bash", `{"command":"\"${CLAUDE_PLUGIN_ROOT}/bin/plansmith\" plans show --name-from-stdin <<'PLANSMITH_PLAN_NAME'\nadd caching; rm -rf /\nPLANSMITH_PLAN_NAME\n"}`, true, ""},
		{"plans show with an option refused", "Bash", `{"command":"plansmith plans show --output x"}`, false, "plansmith"},
		{"read allowed", "Read", `{"file_path":"/p/a.go"}`, true, ""},
		{"grep allowed", "Grep", `{"pattern":"x"}`, true, ""},
		{"glob allowed", "Glob", `{"pattern":"*.go"}`, true, ""},
		{"agent allowed", "Agent", `{"prompt":"x"}`, true, ""},
		{"agent without isolation allowed", "Agent", `{"prompt":"x","isolation":null,"run_in_background":true}`, true, ""},
		{"agent in a worktree refused", "Agent", `{"prompt":"x","subagent_type":"general-purpose","isolation":"worktree"}`, false, "unknown-tool"},
		{"task in a worktree refused", "Task", `{"prompt":"x","isolation":"worktree"}`, false, "unknown-tool"},
		{"remote agent refused", "Agent", `{"prompt":"x","ISOLATION":"remote"}`, false, "unknown-tool"},
		{"agent with input that is not an object refused", "Agent", `["x"]`, false, "unknown-tool"},
		{"task allowed", "Task", `{"prompt":"x"}`, true, ""},
		{"webfetch allowed", "WebFetch", `{"url":"https://x"}`, true, ""},
		{"todo tool allowed", "TaskCreate", `{}`, true, ""},
		// The sixth review: tools other than Bash that write or run commands.
		{"skill refused (its ! lines run shell unjudged)", "Skill", `{"skill":"evilcmd"}`, false, "unknown-tool"},
		{"slash command refused", "SlashCommand", `{"command":"/evilcmd"}`, false, "unknown-tool"},
		{"MCP tool refused", "mcp__fs__write_file", `{"path":"/p/x","content":"x"}`, false, "unknown-tool"},
		{"worktree refused", "EnterWorktree", `{"name":"wt1"}`, false, "unknown-tool"},
		{"schedule refused", "CronCreate", `{"cron":"*/5 * * * *","prompt":"x","durable":true}`, false, "unknown-tool"},
		{"PowerShell refused", "PowerShell", `{"command":"Remove-Item x"}`, false, "unknown-tool"},
		{"a tool never heard of refused", "Frobnicate", `{}`, false, "unknown-tool"},
		{"Monitor of a writing command refused", "Monitor", `{"description":"w","timeout_ms":20000,"command":"touch monitor-ran"}`, false, "unknown-command"},
		{"Monitor of a read-only command allowed", "Monitor", `{"description":"w","command":"tail -f build.log"}`, true, ""},
		{"Monitor without a command", "Monitor", `{"description":"w"}`, false, "bad-input"},
		{"tool search allowed", "ToolSearch", `{"query":"select:Monitor"}`, true, ""},
		// Brief mode (claude --brief, 2.1.330): the agent's answers reach the
		// user only through SendUserMessage (alias Brief); refused, the client
		// and the loop fought and the user saw nothing (review CO).
		{"a message to the user allowed", "SendUserMessage", `{"message":"## Goal\nCache the lookups.","status":"normal"}`, true, ""},
		{"a message to the user by its alias allowed", "Brief", `{"message":"done"}`, true, ""},
		{"a file sent to the user refused (not judged)", "SendUserFile", `{"path":"/p/x"}`, false, "unknown-tool"},
		{"Codex plan update allowed", "update_plan", `{"plan":[]}`, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Tool(tc.tool, json.RawMessage(tc.input), Config{})
			assert.Equal(t, tc.allow, d.Allow, d.Reason)
			assert.Equal(t, tc.rule, d.Rule)
			if !tc.allow {
				assert.NotEmpty(t, d.Reason)
			}
		})
	}
}

func TestUnreadable(t *testing.T) {
	for _, tool := range []string{"Bash", "Edit", "MultiEdit", "Write", "NotebookEdit", "", "Monitor", "Skill", "mcp__fs__write_file", "PowerShell"} {
		assert.True(t, Guarded(tool), tool)
	}
	for _, tool := range []string{"Read", "Grep", "Glob", "Agent", "ExitPlanMode"} {
		assert.False(t, Guarded(tool), tool)
	}
	d := Unreadable("Bash", "locking .claude/plansmith.lock: is a directory")
	assert.False(t, d.Allow)
	assert.Equal(t, "unreadable", d.Rule)
	assert.Contains(t, d.Reason, "is a directory")
	assert.Contains(t, d.Reason, "refuses edits and shell commands")
	assert.Contains(t, Unreadable("", "x").Reason, "a tool call")
}

func TestDenialText(t *testing.T) {
	d := Bash("sed -i 's/a/b/' main.go", Config{})
	require.False(t, d.Allow)
	assert.Contains(t, d.Reason, "sed -i 's/a/b/' main.go", "names what was refused")
	assert.Contains(t, d.Reason, "sed-in-place", "names the rule")
	assert.Contains(t, d.Reason, "edits files in place", "says why")
	assert.Contains(t, d.Reason, "without -i", "offers a read-only alternative")

	d = Tool("Write", json.RawMessage(`{"file_path":"/p/plan.md"}`), Config{})
	assert.Contains(t, d.Reason, "Write /p/plan.md")

	// A computed argument is refused with advice that works: the same
	// command with the advised spelling is allowed.
	for refused, advised := range map[string]string{
		`git log --oneline -- "$f"`: `git log --oneline -- "./$f"`,
		`rg -n TODO "$f"`:           `rg -n TODO "./$f"`,
		`wc -l < "$f"`:              `wc -l < "./$f"`,
	} {
		d = Bash(refused, Config{})
		require.False(t, d.Allow, refused)
		assert.Contains(t, d.Reason, `"./$f"`, refused)
		assert.True(t, Bash(advised, Config{}).Allow, advised)
	}
}

// TestAdviceIsAllowed holds refusals whose advice names a command: that
// command must itself pass (review CK).
func TestAdviceIsAllowed(t *testing.T) {
	for _, tc := range []struct{ refused, says, runs string }{
		{`git remote show origin`, `git remote show -n NAME`, `git remote show -n origin`},
		{`x='%H'; git log --format="$x"`, `git log --format='%H %an %s'`, `git log --format='%H %an %s'`},
		{`git verify-commit HEAD`, `git cat-file commit REV`, `git cat-file commit HEAD`},
		{`tar --list -f x.tar --to-command=sh`, `tar --list --file=FILE`, `tar --list --file=x.tar`},
		{`tar -xf x.tar`, `tar -tzf FILE`, `tar -tzf x.tgz`},
		{`sh -V`, `bash --version`, `bash --version`},
		{`x=1; echo $((x+1))`, `expr "$n" + 1`, `n=3; expr "$n" + 1`},
		{`echo $(( $(cat f) + 1 ))`, `$(( $(wc -l < FILE) + 1 ))`, `echo $(( $(wc -l < f) + 1 ))`},
		{`for f in pkg/*.go; do wc -l < "$f"; done`, `wc -l "$f"`, `for f in pkg/*.go; do wc -l "$f"; done`},
		{`while read -r l; do echo "$l"; done < "$f"`, `cat "$f" | while read -r l`, `cat "$f" | while read -r l; do echo "$l"; done`},
		{`ruby -v`, `python3 -V`, `python3 -V`},
		{`git whatchanged -3`, `git log --raw`, `git log --raw -3`},
		{`go test ./...`, `go list, go doc`, `go list ./...`},
		{`go mod tidy`, `go mod tidy builds, runs or edits`, `go mod graph`},
		{`npm install`, `npm ls, npm view`, `npm ls`},
	} {
		d := Bash(tc.refused, Config{})
		require.False(t, d.Allow, tc.refused)
		assert.Contains(t, d.Reason, tc.says, tc.refused)
		assert.True(t, Bash(tc.runs, Config{}).Allow, tc.runs)
	}
	assert.Contains(t, Bash(`sh -V`, Config{}).Reason, "sh -V is not a version option to sh")
	// A computed argument's refusal names the word (review CK).
	assert.Contains(t, Bash(`git log "$opt"`, Config{}).Reason, `("$opt" is computed at run time)`)
	assert.Contains(t, Bash(`sort *.txt`, Config{}).Reason, `(*.txt expands to file names`)
	assert.True(t, Bash(`sort ./*.txt`, Config{}).Allow)
	// A program that is not installed (review CN4): the advice works
	// without it.
	missing := Config{PathLookup: func(name string) string {
		if name == "fd" {
			return NotInstalled("fd is found in no folder of PATH")
		}
		return ""
	}}
	d := Bash(`fd -e go`, missing)
	require.Equal(t, "not-installed", d.Rule)
	for _, advised := range []string{"ls -R", "find . -name PATTERN", "grep -rn PATTERN .", "command -v NAME"} {
		assert.Contains(t, d.Reason, advised)
	}
	for _, runs := range []string{"ls -R", "find . -name '*.go'", "grep -rn TODO .", "command -v fd"} {
		assert.True(t, Bash(runs, missing).Allow, runs)
	}
}

func TestEveryRuleHasText(t *testing.T) {
	for name, r := range rules() {
		assert.NotEmpty(t, r.why, name)
		assert.True(t, r.alt != "" || (r.altFor != nil && r.altFor() != ""), name)
		assert.False(t, strings.HasSuffix(r.why, "."), "%s: the template adds the full stop", name)
	}
}

// TestEveryRuleNamedHasText reads the package's source for the rules its
// refusals name: a name missing from the table was shown to the agent as
// the internal failure ("the policy failed while judging the command"),
// which it cannot act on (review CK: tar).
func TestEveryRuleNamedHasText(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	named := regexp.MustCompile(`\b(?:deny\([a-zA-Z.]+, |fail\()"([a-z-]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range named.FindAllStringSubmatch(string(src), -1) {
			seen++
			_, ok := rules()[m[1]]
			assert.True(t, ok, "%s: rule %q has no text", f, m[1])
		}
	}
	assert.Greater(t, seen, 100, "the pattern still finds the refusals")
}

// TestBashRules holds cases beyond the corpus: tricky spellings and the
// edges of each rule.
func TestBashRules(t *testing.T) {
	tests := []struct {
		name    string
		command string
		rule    string // "" means allowed
	}{
		{"ifs only for read", "while IFS= read -r line; do echo \"$line\"; done < f", ""},
		{"ifs before another command", "IFS=/ echo x", "env-var"},
		{"ifs assigned alone", "IFS=,", "env-var"},
		{"awk print to stderr allowed", `awk '{print > "/dev/stderr"}' f`, ""},
		{"awk concatenated target", `awk '{print > "/dev/null" "x"}' f`, "awk-program"},
		{"awk postfix increment then division hides nothing", `awk '{ x++ / 1; system("rm x"); y = 1 / 1 }' f`, "awk-program"},
		{"awk regex after else hides nothing", `awk '{ if (a) b; else /#/; system("rm x") }' f`, "awk-program"},
		{"awk bracket slash in regex", `awk '/[/]/ { print }' f`, ""},
		{"awk bracket close first", `awk '/[]/"]/; { system("x") }' f`, "awk-program"},
		{"awk comparison in condition", `awk '$3 > 100 { print $1 }' f`, ""},
		{"awk parenthesised comparison in print", `awk '{ print ($1 > 2) }' f`, ""},
		{"awk or operator", `awk '$1 == "a" || $2 == "b"' f`, ""},
		{"sed label then write", `sed ':a;N;$!ba;w out' f`, "sed-script"},
		{"sed a text is only text", `sed '1a hello; w out' f`, ""},
		{"sed unknown command", `sed 'k' f`, "sed-script"},
		{"sed s with w flag after g", `sed 's/a/b/gw out' f`, "sed-script"},
		{"sed in place after the file", `sed p f -i`, "sed-in-place"},
		{"sed escaped delimiter", `sed 's/\//|/g' f`, ""},
		{"sed tac idiom", `sed '1!G;h;$!d' f`, ""},
		{"sort glued -t then o is a separator", `sort -to f`, ""},
		{"git diff output indicator", `git diff --output-indicator-new=+ HEAD`, ""},
		{"git out abbreviation", `git diff --out=x`, "git-option"},
		{"git grep O bundled", `git grep -nO foo`, "git-option"},
		{"git help", `git log --help`, "git-option"},
		{"git tag verify", `git tag -v v1.0`, "signature"},
		{"git branch with -a and a name", `git branch -a foo`, "git-branch"},
		{"git config one name reads", `git config core.editor`, ""},
		{"git config new get", `git config get user.name`, ""},
		{"git notes add", `git notes add -m x`, "git"},
		{"git stash show", `git stash show -p`, ""},
		{"plugin root without braces", `"$CLAUDE_PLUGIN_ROOT/bin/plansmith" status`, "dynamic-command"},
		{"plugin root reassigned", `CLAUDE_PLUGIN_ROOT=/tmp; "${CLAUDE_PLUGIN_ROOT}/bin/plansmith" status`, "env-var"},
		{"plansmith gate with unquoted expansion", `plansmith gate leakage $f`, "plansmith"},
		{"plansmith gate with quoted expansion", `plansmith gate leakage "$f"`, ""},
		{"plansmith under xargs", `echo x | xargs plansmith gate leakage`, "plansmith"},
		{"ansi c command name", `$'\x72\x6d' x`, "dynamic-command"},
		{"glob command name", `/bin/r* x`, "dynamic-command"},
		{"command -v prints", `command -v rm`, ""},
		{"xargs without command echoes", `ls | xargs`, ""},
		{"xargs with inert command", `git ls-files | xargs wc -l`, ""},
		{"xargs replace into inert command", `ls | xargs -I{} grep -n foo {}`, ""},
		{"timeout with signal", `timeout -s KILL 5 rm x`, "unknown-command"},
		{"nice numeric", `nice -10 ls`, ""},
		{"test computed operands in a row", `[ "$a" "$b" ]`, "dynamic-arg"},
		{"test file check on computed path", `[ -f "$f" ]`, ""},
		{"printf computed format", `printf "$fmt" x`, "dynamic-arg"},
		{"arithmetic on literals", `echo $(( (3 + 4) * 2 ))`, ""},
		{"arithmetic base literal", `echo $((16#ff))`, ""},
		{"array keys", `echo "${!arr[@]}"`, ""},
		{"names by prefix", `echo "${!BASH@}"`, ""},
		{"dev stdout sink", `echo x > /dev/stdout`, ""},
		{"close descriptor", `ls >&-`, ""},
		{"redirect to descriptor variable", `ls >&$fd`, "redirect"},
		{"gawk ARGV through SYMTAB", `gawk 'BEGIN { SYMTAB["AR" "GV"][1] = "/in" "et4/tcp/0/127.0.0.1/18777"; SYMTAB["ARGC"] = 2 } { print }'`, "awk-program"},
		{"git abbreviation of --textconv", `git diff --textc HEAD~1`, "git-option"},
		{"git ambiguous abbreviation of --text and --textconv", `git log -p --tex`, "git-option"},
		{"stdout read from a file, number with a zero", `cat x 01<main.go >/dev/stdout`, "redirect"},
		{"stderr read from a file, number with zeros", `echo x 002<main.go 2>/dev/stderr`, "redirect"},
		{"stdout copied from a descriptor written with a zero", `echo x 3<f 1>&03`, "redirect"},
		{"env running a command in another folder", `env -C sub npm ls`, "wrapper-option"},
		{"env running a command in another folder, long", `env --chdir=sub npm view x`, "wrapper-option"},
		{"non-ASCII byte before a pipe", `find sub 両| echo -delete`, "parse"},
		{"non-ASCII byte before a pipe in a substitution in quotes", `echo "$(echo 両|cat)"`, "parse"},
		// The review of the eighth review's fixes: each row fails when one
		// line of those fixes is weakened (found by mutation).
		{"Big5 backslash in an ANSI-C string", `echo $'両\' ;touch pwnd #'`, "parse"},
		{"locale set as an array", `LC_ALL=(zh_TW.BIG5)`, "env-var"},
		{"Big5 locale with a modifier that looks like UTF-8", `LC_ALL=zh_TW.BIG5@x.utf8`, "env-var"},
		{"sed address with the delimiter in brackets", `sed -n '/[/a]/w out.txt' f`, "sed-script"},
		{"sed custom-delimiter address with brackets", `sed -n '1,\:[:a=]:w W1;w W1' in`, "sed-script"},
		{"sed negated bracket holding the delimiter", `sed -n 's#[^]#]#;#gw W1' in`, "sed-script"},
		{"sed bracket starting with ]", `sed -n '\#^#s#[]#];*:]#;#gw W1;p' in`, "sed-script"},
		{"sed class holding the delimiter", `sed -n 's#[[:#]#[:alpha:]:]^]##gw W1' in`, "sed-script"},
		{"sed class GNU sed reads in pairs", `sed -n 's/[[:::]]/x:]]y/g#/w main.go' in`, "sed-script"},
		{"sed e in the reading without brackets", `sed 's/[/x/e]/y/' f`, "sed-script"},
		{"sed w command in the reading without brackets", `sed -n '/[/w out.txt]/p' f`, "sed-script"},
		{"glob as a long option's value in the next word", `sort --key n* in.txt`, "dynamic-arg"},
		{"zsh name continued by a non-ASCII letter", `echo $xé['$(touch pwn)']`, "arithmetic"},
		{"zsh length of a name continued by a non-ASCII letter", `echo $#xé['$(touch pwn)']`, "arithmetic"},
		{"printf %q before a numeric conversion", `printf '%q %d\n' a 'path[$(touch pwn)]'`, "arithmetic"},
		{"printf conversion the policy does not know", `printf '%(%Y)T\n' x`, "arithmetic"},
		{"arch running a program (macOS)", `arch -x86_64 touch pwn`, "unknown-command"},
		{"sed delimiter in brackets then w", `sed 's/[/]/#/w out.txt' f`, "sed-script"},
		{"sed delimiter in brackets then e", `sed 's/a[/]/#/e' f`, "sed-script"},
		{"sed address with the delimiter in brackets", `sed -n '/x/s/[/]/#/w out.txt' f`, "sed-script"},
		{"sed w flag when brackets are not skipped", `sed 's/[/x/w out.txt]/y/' f`, "sed-script"},
		{"Big5 locale for a program's script", `LC_ALL=zh_TW.BIG5 sed -n 'soao両\ow main.go' f`, "env-var"},
		{"Big5 locale through env", `env LANG=zh_TW.BIG5 sed -n p f`, "env-var"},
		{"Big5 locale exported", `export LC_CTYPE=zh_CN.GBK`, "env-var"},
		{"computed locale", `LC_ALL="$x" sort f`, "env-var"},
		{"locale read from a file", `read LC_ALL < f`, "env-var"},
		{"locale as a loop variable", `for LANG in C; do ls; done`, "env-var"},
		{"unquoted PWD splits at blanks", `cd 'a -oout.txt' && sort $PWD`, "dynamic-arg"},
		{"array elements after a prefix in quotes", `a=(n.txt -o out.txt); sort "i${a[@]}"`, "dynamic-arg"},
		{"positional parameters after a prefix in quotes", `set -- '' -delete; find ".$@" -name junk`, "dynamic-arg"},
		{"array keys after a prefix in quotes", `sort -k "1${!a[@]}" in.txt`, "dynamic-arg"},
		{"positional parameters in a default", `sort -k "1${x:-$@}" in.txt`, "dynamic-arg"},
		{"glob as a wrapper option's value", `env -u x* echo sh -c 'touch pwn'`, "dynamic-arg"},
		{"glob as a long wrapper option's value", `env --unset x* echo sh -c 'touch pwn'`, "dynamic-arg"},
		{"glob as a ruled command's option value", `awk -v x* a=1 'BEGIN { system("touch pwn") }'`, "dynamic-arg"},
		{"quoted positional parameters as a wrapper value", `env -u "x$@" true`, "dynamic-arg"},
		{"sort temporary files in the project", `sort -T . -S 1k big.txt`, "sort-output"},
		{"sort temporary directory spelled out", `sort --temporary-directory=.git big.txt`, "sort-output"},
		{"BSD date setting the clock from a second operand", `date -f +%s +x +1600000000`, "date-set"},
		{"zsh mapfile writes the files it names", `mapfile=(out.txt hi)`, "env-var"},
		{"zsh float attribute", `typeset -F x='path[$(touch pwn)]'`, "eval"},
		{"zsh float attribute on an existing value", `y='path[$(touch pwn)]'; declare -E y`, "eval"},
		{"zsh float attribute in a bundle", `export -xF y`, "eval"},
		{"zsh tie", `typeset -T X x`, "eval"},
		{"non-ASCII byte before a backslash", "echo 両\\;touch pwn", "parse"},
		{"non-ASCII byte before a backslash in double quotes", `echo "両\"; touch pwn; echo \""`, "parse"},
		{"non-ASCII byte before a backquote", "echo 両`echo x`", "parse"},
		{"non-ASCII byte before a closing brace", `echo ${x:-両}`, "parse"},
		{"translated string", `TEXTDOMAINDIR=po TEXTDOMAIN=demo; echo $"hello"`, "eval"},
		{"stdout read from a file", `cat x 1<main.go >/dev/stdout`, "redirect"},
		{"stderr read from a file", `ls 2<main.go`, "redirect"},
		{"stdout copied from a file's descriptor", `tee /dev/stdout 3<main.go >&3`, "redirect"},
		{"stdout moved from a file's descriptor", `tee /dev/stdout 3<main.go 1>&3-`, "redirect"},
		{"stdout copied from stdin", `tee /dev/stdout <main.go 1<&0`, "redirect"},
		{"export printing", `export -p`, ""},
		{"local lower-case", `x=1; readonly x`, ""},
		{"uppercase plain shell variable", `COUNT=0; echo $COUNT`, ""},
		{"uppercase exported", `COUNT=0 ls`, "env-var"},
		{"set positional parameters", `set -- a b c`, ""},
		{"set bundled o with bad option", `set -eo allexport`, "shell-option"},
		{"interpreter version", `python3 --version`, ""},
		{"node's short version", `node -v`, ""},
		{"tar lists", `tar -tvzf x.tgz docs/a.md`, ""},
		{"tar old-style list", `tar tf x.tar`, ""},
		{"tar extracts", `tar -xf x.tar`, "tar"},
		{"tar f not last takes the rest", `tar -tfz x.tgz`, "tar"},
		{"tar option after the archive", `tar -tf x.tar --to-command=sh`, "tar"},
		{"tar member like an option", `tar -tf x.tar -C`, "tar"},
		{"tar remote archive", `tar -tf host:x.tar`, "tar"},
		{"tar computed archive", `tar -tf "$a"`, "dynamic-arg"},
		{"ruby -v runs its input", `ruby -v`, "interpreter"},
		{"python -v runs its input", `python3 -v`, "interpreter"},
		{"node -v with more", `node -v -e 'x'`, "interpreter"},
		{"computed operands after --", `file -- *`, ""},
		{"computed operands after -- in quotes", `rg -n foo -- "$dir" *.go`, ""},
		{"-- taken as a value", `sort -k -- *`, "dynamic-arg"},
		{"computed operand after a known one", `sort in.txt *`, "dynamic-arg"},
		{"computed operand of a command that writes its operand", `uniq -- in *`, "dynamic-arg"},
		{"an option the table lacks before --", `rg --zz -- *`, "dynamic-arg"},
		{"a valued option takes the --", `rg --context-separator -- '' "$x"`, "dynamic-arg"},
		{"known flags before --", `rg -n -i foo -- *`, ""},
		{"go test", `go test ./...`, "unknown-command"},
		{"npm ci", `npm ci`, "unknown-command"},
		{"tail of xargs into sort", `ls | xargs sort`, "dynamic-arg"},
		{"git long option with computed value", `git log --since="$(date +%F)" --oneline`, ""},
		{"git output with computed value", `git diff --output="$f"`, "git-option"},
		{"git computed positional", `git show "$rev"`, "dynamic-arg"},
		{"wait can assign", `wait -p PATH`, "unknown-command"},
		{"xargs input naming env's command", `echo "PATH=/tmp rm x" | xargs env`, "dynamic-command"},
		{"xargs into nice without command", `ls | xargs nice`, "dynamic-command"},
		{"xargs into xargs", `ls | xargs xargs`, "dynamic-command"},
		{"xargs into wrapper with command", `ls | xargs timeout 5 grep foo`, ""},
		{"npm help opens a viewer", `npm help ls`, "unknown-command"},
		{"sed script after double dash", `sed -- 'w out' file`, "sed-script"},
		{"sed read-only script after double dash", `sed -n -- '1p' file`, ""},
		{"tree bundled output", `tree -ao out`, "tree-output"},
		{"tree pattern holding o", `tree -P '*.go'`, ""},
		{"go env double-dash w", `go env --w GOFLAGS=x`, "write-option"},
		{"go env w with value", `go env -w=true GOFLAGS=x`, "write-option"},
		{"go list double-dash toolexec", `go list --toolexec=x ./...`, "exec-option"},
		{"unknown xargs option", `xargs --process-slot-var=PATH ls`, "wrapper-option"},
		{"sort value swallows double dash", `sort -T -- -o out.txt in.txt`, "sort-output"},
		{"sort key swallows double dash", `sort -k -- --compress-program=sh in`, "exec-option"},
		{"sort file after double dash named like an option", `sort -n -- -o`, "sort-output"},
		{"git grep pattern swallows double dash", `git grep -e -- -O'prog' -e foo`, "git-option"},
		{"git grep pager long", `git grep --open-files-in-pager=prog foo`, "git-option"},
		{"git grep pager abbreviated", `git grep --open-files=prog foo`, "git-option"},
		{"git grep pager after -C", `git -C . grep -e -- -Oprog foo`, "git-option"},
		{"git grep or is not open", `git grep -e a --or -e b`, ""},
		{"git range-diff pickaxe swallows double dash", `git range-diff -S -- --output=x a...b`, "git-option"},
		{"git global -c", `git -c core.pager=x log`, "git-option"},
		{"git global double dash", `git -- log`, "git-option"},
		{"git branch format swallows list", `git branch --format -l foo`, "git-branch"},
		{"git tag sort swallows list", `git tag --sort -l v9`, "git-branch"},
		{"git branch list negated", `git branch --list --no-list foo`, "git-branch"},
		{"git branch contains takes a dash word", `git branch --contains -D main`, ""},
		{"git branch format with list", `git branch --format='%(refname)' -l 'f*'`, ""},
		{"git stash double dash pushes", `git stash -- list`, "git"},
		{"git stash option first pushes", `git stash -q list`, "git"},
		{"git config abbreviated unset", `git config --unset-a x`, "git-config"},
		{"git config get abbreviated", `git config --get-reg 'user.*'`, ""},
		{"base64 bsd output", `base64 -o out.txt in.txt`, "write-option"},
		{"base64 bsd output long", `base64 --output=out.txt in.txt`, "write-option"},
		{"base64 bsd output clustered", `base64 -Do out.txt in.txt`, "write-option"},
		{"base64 gnu ignore garbage", `base64 -d -i in.txt`, ""},
		{"uniq bsd reads a late dash word as output", `uniq in.txt -c`, "uniq-output"},
		{"uniq skip swallows double dash", `uniq -f -- in.txt out.txt`, "uniq-output"},
		{"uniq count", `uniq -c in.txt`, ""},
		{"tee bsd reads a late dash word as a file", `tee /dev/null -a`, "tee"},
		{"tee unknown option", `tee --x /dev/null`, "tee"},
		{"date relative", `date -d '-1 day' +%F`, ""},
		{"date bsd adjust", `date -v -1d +%F`, ""},
		{"date set abbreviated", `date --se 2020-01-01`, "date-set"},
		{"man page", `man ls`, ""},
		{"man section page piped", `man 3 printf | grep -n return`, ""},
		{"man pager option", `man -P 'sh -c x' ls`, "man-option"},
		{"man local file", `man ./evil.1`, "man-option"},
		{"man computed page", `man "$p"`, "dynamic-arg"},
		{"rg regexp swallows double dash", `rg -e -- --pre=sh foo`, "exec-option"},
		{"rg search zip", `rg -z foo`, "exec-option"},
		{"go list format swallows double dash", `go list -f -- -toolexec=x ./...`, "exec-option"},
		{"go list gcflags profile", `go list -gcflags=-cpuprofile=out ./...`, "exec-option"},
		{"go list mod readonly", `go list -mod=readonly ./...`, ""},
		// The tenth review (a hostile repository): go list builds the
		// packages for -export, -compiled and Stale.
		{"go list export", `go list -export ./...`, "write-option"},
		{"go list compiled", `go list -compiled -json=ImportPath .`, "write-option"},
		{"go list json every field", `go list -json ./...`, "write-option"},
		{"go list json true", `go list -json=true .`, "write-option"},
		{"go list json stale", `go list -json=ImportPath,Stale ./...`, "write-option"},
		{"go list template stale", `go list -f '{{.Stale}}' ./...`, "write-option"},
		{"go list json fields", `go list -json=ImportPath,Dir,GoFiles ./...`, ""},
		{"go list json one", `go list -json=1 .`, "write-option"},
		{"go list json T", `go list -json=T .`, "write-option"},
		{"go list json stale reason", `go list -json=Dir,StaleReason .`, "write-option"},
		{"go list template computed", `go list -f "{{$x}}" .`, "write-option"},
		{"go list template", `go list -f '{{.ImportPath}} {{.Dir}}' ./...`, ""},
		{"go list modules json", `go list -m -json all`, ""},
		// go runs the toolchain the go.mod where it runs asks for: only
		// where the caller looked (Config.GoToolchain).
		{"go list elsewhere", `go list -C evil ./...`, "go-toolchain"},
		{"go doc elsewhere", `go doc --C=evil fmt`, "go-toolchain"},
		{"go elsewhere", `go -C evil version`, "go-toolchain"},
		{"go after cd", `cd tools && go list ./...`, "go-toolchain"},
		// getent -s loads libnss_SERVICE.so.2: "./x" is a file the project
		// can carry.
		{"getent service path", `getent -s ./evil passwd root`, "exec-option"},
		{"getent service abbreviated", `getent --serv=files passwd`, "exec-option"},
		{"getent service in a bundle", `getent -is./e passwd`, "exec-option"},
		{"getent lookup", `getent passwd root`, ""},
		// env -u and -i drop what a user set to keep tools in check.
		{"env unset toolchain", `env -u GOTOOLCHAIN go version`, "env-var"},
		{"env unset long", `env --unset=GIT_CONFIG_NOSYSTEM git status`, "env-var"},
		{"env unset next word", `env --unset LESSSECURE ls`, "env-var"},
		{"env unset computed", `env -u "$x" cat x`, "env-var"},
		{"env unset glued partly computed", `env -uG"$x" cat x`, "dynamic-arg"},
		{"env ignore environment", `env -i go version`, "wrapper-option"},
		{"env unset harmless", `env -u FOO cat x`, ""},
		// Message catalogues and locale data from a path the project holds.
		{"language path", `LANGUAGE=../../x grep --bogus`, "env-var"},
		{"lc messages path", `LC_MESSAGES=/p/x ls`, "env-var"},
		{"language appended", `LANGUAGE+=/x ls`, "env-var"},
		{"language exported", `export LANGUAGE=../x`, "env-var"},
		{"language list", `LANGUAGE=de:fr ls`, ""},
		{"lc messages name", `LC_MESSAGES=de_DE.UTF-8 ls`, ""},
		// Signature checks run the program the signature names.
		{"git show signature", `git log --show-signature -1`, "signature"},
		{"git show signature abbreviated", `git show --show-sig HEAD`, "signature"},
		{"git verify commit", `git verify-commit HEAD`, "signature"},
		{"git verify tag", `git verify-tag v1`, "signature"},
		{"git format signature", `git log '--format=%G? %h'`, "signature"},
		{"git format signature modifier", `git log --pretty=format:%h%+GS`, "signature"},
		{"git format computed", `git log --format="$f"`, "signature"},
		{"git format plain", `git log --format='%H %an %s' -3`, ""},
		// ref-filter's signature atom (git 2.44 and later) checks too.
		{"git for-each-ref signature atom", `git for-each-ref --format='%(signature)'`, "signature"},
		{"git branch signature atom", `git branch --format='%(signature:signer)'`, "signature"},
		{"git tag signature sort", `git tag -l --sort=signature:trustlevel`, "signature"},
		{"git for-each-ref signature sort word", `git for-each-ref --sort signature:grade`, "signature"},
		{"git branch signature sort abbreviated", `git branch --sor=-signature`, "signature"},
		{"git for-each-ref sort", `git for-each-ref --sort=-committerdate --format='%(refname:short)'`, ""},
		{"git log grep signature", `git log --grep=signature -3`, ""},
		{"go list mod mod", `go list -mod=mod ./...`, "write-option"},
		{"npm depth swallows double dash", `npm ls --depth -- --cache=/tmp/x`, "write-option"},
		{"awk separator swallows double dash", `awk -F -- '{print $1}' f`, ""},
		{"awk computed program", `awk "$prog" f`, "dynamic-arg"},
		{"sed bsd reads -i after operand as a file", `sed -n p f -i`, "sed-in-place"},
		{"sed gnu line length then script", `sed -l 5 'w x' f`, "sed-script"},
		{"sed bsd in-place capital", `sed -I '' 's/a/b/' f`, "sed-in-place"},
		{"sed computed expression", `sed -e "p;$x" f`, "sed-script"},
		{"tree pattern swallows double dash", `tree -P -- -o out`, "tree-output"},
		{"find double dash is not special", `find -- . -delete`, "find-action"},
		{"find exec read-only command", `find . -name '*.go' -exec grep -l foo {} +`, ""},
		{"find exec read-only command per file", `find . -type f -exec wc -l {} \;`, ""},
		{"find exec writing command", `find . -name x -exec rm {} \;`, "unknown-command"},
		{"find exec batch into uniq", `find . -name '*.txt' -exec uniq {} +`, "dynamic-arg"},
		{"find exec sed script from path", `find . -exec sed {} \;`, "sed-script"},
		{"find exec without terminator", `find . -exec grep x {}`, "find-action"},
		{"find execdir into sh", `find . -execdir sh -c 'rm x' \;`, "interpreter"},
		{"find ok asks", `find . -ok rm {} \;`, "find-action"},
		{"find plus not after braces is an argument", `find . -exec sed -n 1p + -i {} \;`, "sed-in-place"},
		{"find plus after braces ends the command", `find . -exec grep -l x {} + -print`, ""},
		// Paths that may start with a dash (review AC1): read from a file,
		// given by BSD's -f, or bare names from BSD's -execdir.
		{"find files0-from path is sort's output", `find -files0-from list -exec sort {} /home/u/.bashrc in.txt \;`, "dynamic-arg"},
		{"find files0-from late", `find -exec sort {} out in.txt \; -files0-from list`, "dynamic-arg"},
		{"find files0-from path is sed in place", `find -files0-from <(printf '%s\0' -i) -exec sed s/a/b/ {} README.md ';'`, "dynamic-arg"},
		{"find bsd -f path", `find -f -o -exec sort {} in.txt \;`, "dynamic-arg"},
		{"find bsd -f bundled", `find -sf -o -exec sort {} in.txt \;`, "dynamic-arg"},
		{"find bsd -f with its path attached", `find -f-o -exec sort {} in.txt \;`, "dynamic-arg"},
		{"find bsd -f after other flags", `find -xdf -o -exec sort {} in.txt \;`, "dynamic-arg"},
		// A substitution inside double quotes is unquoted again (review AJ1).
		{"zsh glob qualifier in a substitution in double quotes", `echo "$(ls -d -- ${x:-*(e:"touch pwn":)})"`, "glob-qualifier"},
		{"zsh glob qualifier in a substitution in a here-document", "cat <<EOF\n$(ls -d -- ${x:-*(e:\"touch pwn\":)})\nEOF", "glob-qualifier"},
		{"quotes in a word in a substitution in double quotes", `echo "$(printf %s ${x:-'$HOME'})"`, ""},
		// Review AI: subscripts with blanks or |&;<>, a $ brace expansion
		// joins, quotes ending a double-quoted ${...}, POSIX mode.
		{"declaration subscript split by bash", `declare a[ 1|~1 ]=1`, "parse"},
		{"assignment subscript split by zsh", `a[1|1]=1`, "parse"},
		{"brace expansion makes a parameter expansion", `x='$(touch pwn)'; echo {$,}{x@P}`, "eval"},
		{"a quote ends a double-quoted expansion", `echo "${x:-'}" ; touch pwn ; : "'}"`, "eval"},
		{"posix mode", `POSIXLY_CORRECT=1; echo hi`, "env-var"},
		{"a plain subscript", `a[1]=x; echo ${a[1]}`, ""},
		// zsh's integer parameters evaluate what they are given (review AM1).
		{"zsh integer parameter", `SECONDS='path[$(touch pwn)1]'`, "env-var"},
		{"zsh integer parameter read", `read SECONDS < notes.txt`, "env-var"},
		{"a literal width", `COLUMNS=200 git log -1`, ""},
		// Review AO: a conversion spelled \u0025 (zsh), a computed test
		// operator, zsh/watch's LOGCHECK.
		{"printf conversion spelled as an escape", `printf '\u0025d\n' 'path[$(touch pwn)1]'`, "arithmetic"},
		{"printf colours", `printf '\033[1m%s\033[0m\n' x`, ""},
		{"computed test operator", `o=-v; [ "$o" 'a[$(touch pwn)]' ]`, "arithmetic"},
		{"computed test operand compared", `[ "$x" != main ] && echo y`, ""},
		{"zsh watch's integer", `echo $WATCH; LOGCHECK='path[$(touch pwn)1]'`, "env-var"},
		// Review AP: a computed word may end find's -exec; a computed sort key.
		{"find exec ended by a computed word", `find . -exec true ";$x" -exec sh -c "id > pwn" ";"`, "find-action"},
		{"find exec ended by a computed word, then delete", `find . -exec true ";$x" -delete ";"`, "find-action"},
		{"git sort key computed", `x=signature; git for-each-ref "--sort=$x"`, "signature"},
		{"git sort key written out", `git for-each-ref --sort=-committerdate`, ""},
		// Review AK: no brace expansion in [[ ]]; plain text in quotes in ${...}.
		{"a regular expression with a count", `[[ "$v" =~ ^[0-9]{1,3}$ ]] && echo y`, ""},
		{"a quoted default", `echo "${EDITOR:-'vim'}"`, ""},
		{"a quoted suffix", `echo "${f%'.go'}"`, ""},
		{"a quote holding a double quote", `echo "${x:-'a\"b'}"`, "eval"},
		{"a dollar at the end of a pattern", `grep foo$ f`, ""},
		{"find gnu follow is no -f", `find . -follow -exec sort {} \;`, ""},
		{"find computed starting point", `find $dirs -exec sort {} out in.txt \;`, "dynamic-arg"},
		{"find execdir bare name", `find . -name '-o*' -execdir sort {} in.txt \;`, "dynamic-arg"},
		{"find files0-from with a read-only command", `find -files0-from list -exec grep -l foo {} +`, ""},
		{"find starting points as operands", `find src docs -exec sort {} \;`, ""},
		{"jobs lists", `jobs -l`, ""},
		{"jobs runs a command", `jobs -x rm -rf build`, "exec-option"},
		// Here-documents bash could end elsewhere than the parser does.
		{"heredoc with a plain delimiter", "cat <<EOF\nsome $HOME text\nEOF", ""},
		{"heredoc with a quoted delimiter", "cat <<'END_OF_TEXT'\n$(not run)\nEND_OF_TEXT\nwc -l f", ""},
		{"heredoc with a backslash delimiter", "cat <<\\EOF\nx\nEOF", ""},
		{"heredoc with tabs stripped", "cat <<-EOF\n\tx\n\tEOF", ""},
		{"heredoc body line ending in a backslash, quoted delimiter", "cat <<'EOF'\na \\\nb\nEOF", ""},
		{"heredoc delimiter split by a backslash-newline", "cat <<EOF\nEO\\\nF\ntouch x\nEOF", "heredoc"},
		{"heredoc delimiter after tab stripping", "cat <<-EOF\n\tEO\\\nF\ntouch x\nEOF", "heredoc"},
		{"heredoc delimiter in ANSI-C quotes", "cat <<$'E\\x4fF'\nx\nEOF\ntouch x\nE\\x4fF", "heredoc"},
		{"heredoc delimiter with an expansion", "cat <<E$x\nx\nE$x", "parse"},
		{"heredoc line starting with the delimiter", "cat <<EOF\nEOF)\ntouch x\nEOF", "heredoc"},
		{"heredoc inside a command substitution", "x=$(cat <<EOF\nEOF)\ntouch x\n: <<true\nEOF\n)", "heredoc"},
		{"heredoc inside a process substitution", "cat <(cat <<EOF\nx\nEOF\n)", "heredoc"},
		{"heredoc inside backquotes", "echo `cat <<EOF\nx\nEOF\n`", "heredoc"},
		{"here-string inside a command substitution", `echo "$(cat <<< x)"`, ""},
		// Variable names computed at run time.
		{"read into a computed name", `x='[$(touch p)]'; read -r "a$x" <<< 1`, "env-var"},
		{"read -a into a computed name", `read -r -a "a$x" <<< 1`, "env-var"},
		{"read with a computed option", `read "$o" line <<< 1`, "dynamic-arg"},
		{"printf -v into a computed name", `printf -v "a$x" %s 1`, "env-var"},
		{"printf -v NAME as one word", `printf -vname %s 1`, ""},
		{"unset a computed name", `a=(1 2); unset "a$x"`, "env-var"},
		{"unset a plain name", `unset -v name`, ""},
		{"read into PS4", `read -r PS4 <<< x`, "env-var"},
		// Redirects bash gives a meaning of its own.
		{"redirect assigning PATH", `: {PATH}>/dev/null; ls`, "env-var"},
		{"redirect assigning IFS", `cat {IFS}<f`, "env-var"},
		{"read from a TCP socket", `cat < /dev/tcp/127.0.0.1/80`, "network"},
		{"TCP socket on a descriptor", `{ cat <&3; } 3</dev/tcp/127.0.0.1/80`, "network"},
		{"UDP socket", `cat <&3 3</dev/udp/127.0.0.1/53`, "network"},
		// Sending through it copies the socket to standard output, which
		// the redirect rule refuses before the socket is reached.
		{"TCP socket written through stdout", `{ printf x >&3; } 3</dev/tcp/127.0.0.1/80`, "redirect"},
		{"socket path built at run time", `cat < "/dev/$proto/127.0.0.1/80"`, "network"},
		{"input from a computed path", `while read -r l; do echo "$l"; done < "$f"`, "network"},
		{"input from a path under HOME", `cat < "$HOME/notes.txt"`, ""},
		{"input from a plain file", `wc -l < go.mod`, ""},
		{"input from another device", `head -c 8 < /dev/urandom`, ""},
		// zsh glob qualifiers run code; bash reads them as extended globs.
		{"zsh glob qualifier", `ls *(e:'touch p':)`, "glob-qualifier"},
		{"extended glob", `ls !(*.go)`, "glob-qualifier"},
		// A word's known start is not the word: subcommands must be literal.
		{"git subcommand completed at run time", `x=tool; git "diff$x" -y --extcmd='touch p' HEAD~1 HEAD`, "dynamic-arg"},
		{"git subcommand from xargs", `echo tool | xargs -I{} git diff{} -y --extcmd='touch p'`, "dynamic-arg"},
		{"git reflog subcommand completed at run time", `x=xpire; git reflog "e$x" --expire=now --all`, "dynamic-arg"},
		{"git stash subcommand completed at run time", `git stash "list$x"`, "dynamic-arg"},
		{"git config name completed at run time", `x=.y; git config "get$x" val`, "dynamic-arg"},
		{"npm subcommand completed at run time", `x=ersion; npm "v$x" patch`, "dynamic-arg"},
		{"npm config subcommand completed at run time", `npm config "get$x" foo`, "dynamic-arg"},
		// A computed package may name a git repository (pkg-@github:o/r#sha).
		{"npm view of a computed package", `npm view "pkg-$v" version`, "dynamic-arg"},
		{"npm view of a registry package", `npm view '@types/node@^20' version`, ""},
		// Review AY1: unquoted, ^ and # are globs to zsh's EXTENDED_GLOB.
		{"npm view with an unquoted caret", `npm view @types/node@^20 version`, "dynamic-arg"},
		{"zsh negation glob", `sort ^x`, "dynamic-arg"},
		{"zsh repetition glob", `sed -n p -#`, "dynamic-arg"},
		{"a caret in an inert command", `grep -n ^func main.go`, ""},
		// Review AY2: zsh modifiers after an unbraced $PWD or $HOME.
		{"zsh modifiers after $PWD", `sort "$PWD:h:s,/,-opwn," f`, "dynamic-arg"},
		{"zsh modifiers after $HOME, unquoted", `git diff $HOME:h:s,/,--output=pwn,`, "dynamic-arg"},
		{"a braced $PWD then text", `sort "${PWD}:h"`, ""},
		{"a zsh modifier anywhere", `echo "$x:h"`, "eval"},
		{"a colon then a path after an expansion", `echo "$HOME:/usr/bin"`, ""},
		// Review AZ: zsh's numeric glob, x# after quoting, BRACE_CCL, =NAME.
		{"zsh numeric glob read as redirects", `git log -1 <1-9>&- sh -c id`, "redirect"},
		{"a file named like a range", `cat < 1-9`, ""},
		{"x# after a quoted x", `sort 'x'#-oout.txt f`, "dynamic-arg"},
		{"x# after an escaped x", `sed s/a/b/ \q#-i f`, "dynamic-arg"},
		{"a brace class at the start", `find . {-}delete`, "dynamic-arg"},
		{"a brace after text", `git show stash@{0}`, ""},
		{"find's {}", `find . -name x -exec grep -l y {} +`, ""},
		{"zsh =NAME", `sort =-oout.txt f`, "dynamic-arg"},
		// Review BB: BRACE_CCL anywhere in a word, =NAME however spelled.
		{"a brace class inside an option", `find . -delet{e}`, "dynamic-arg"},
		{"a brace class after an empty quote", `find . ''{-}delete`, "dynamic-arg"},
		{"a brace class of two splits", `sort {ab} f`, "dynamic-arg"},
		{"a reflog brace", `git log --oneline @{u}..HEAD`, ""},
		{"zsh =NAME quoted", `sort ='-oout.txt' f`, "dynamic-arg"},
		{"a test of equality", `[ "$a" = "$b" ]`, ""},
		{"a quoted = is text", `rg '=>' .`, ""},
		{"zsh =NAME after empty quotes", `sort ''=-oout.txt f`, "dynamic-arg"},
		{"npm view of a range", `npm view react@">=17 <19" version`, ""},
		{"npm view of the project's own package", `npm view`, "npm-package"},
		{"npm view of the project's own package, with a field", `npm view . version`, "npm-package"},
		{"npm info of the project's own package at a version", `npm info .@1.2.0`, "npm-package"},
		{"npm show of a folder", `npm show ./vendor/x`, "npm-package"},
		{"npm view of a tarball", `npm view x-1.0.0.tgz`, "npm-package"},
		{"npm view of an alias", `npm view x@npm:y`, "npm-package"},
		{"npm view of a folder as a version", `npm view foo@.`, "npm-package"},
		{"npm view of a tarball as a version", `npm view foo@x.tgz`, "npm-package"},
		{"npm view of a tilde range", `npm view foo@~1.2 version`, ""},
		{"go subcommand completed at run time", `go "env$x"`, "dynamic-arg"},
		{"git subcommand written out", `git diff HEAD~1 -- "src/$f"`, ""},
		// Claude Code's path variables may be empty in the Bash tool.
		{"empty plugin root before an option", `find . "$CLAUDE_PLUGIN_ROOT"-delete`, "dynamic-arg"},
		{"empty project dir before an option", `sort "$CLAUDE_PROJECT_DIR"-oout.txt f`, "dynamic-arg"},
		{"project dir alone", `find "${CLAUDE_PROJECT_DIR}" -name '*.go'`, ""},
		{"project dir then a slash", `ls "$CLAUDE_PROJECT_DIR"/src`, ""},
		{"home before an option is still a path", `find . "$HOME"-x -print`, ""},
		// sed ends a label at a blank; awk continues a print past a newline.
		{"sed label then w", `sed -n ':a w out.txt' f`, "sed-script"},
		{"sed branch then w", `sed -n 'b end w out.txt' f`, "sed-script"},
		{"sed version then w", `sed -n 'v 4.2 w out.txt' f`, "sed-script"},
		{"sed label then a command", `sed -n ':a;N;$!ba;p' f`, ""},
		{"awk print continued after a comma", "awk '{ print $0,\n$1 > \"out.txt\" }' f", "awk-program"},
		{"awk printf continued after a comma", "awk 'BEGIN { printf(\"%s\",\n\"b\") > \"out.txt\" }'", "awk-program"},
		{"awk print continued after &&", "awk '{ print $1 &&\n$2 > \"out.txt\" }' f", "awk-program"},
		{"awk print then a new statement", "awk '{ print $1\n x = $2 > 3 }' f", ""},
		{"awk slash after getline", "awk 'BEGIN { x = getline / 2; system(\"touch p\") #/\n}'", "awk-program"},
		{"awk getline from a file", `awk 'BEGIN { while ((getline line < "f") > 0) print line }'`, ""},
		// zsh, the Bash tool's shell on macOS, reads some of bash's text as code.
		{"zsh NULLCMD", `NULLCMD=sh; <<< 'touch p'`, "env-var"},
		{"zsh READNULLCMD", `READNULLCMD=sh; < f`, "env-var"},
		{"redirects with no command", `<<< 'touch p'`, "eval"},
		{"redirect to null with no command", `> /dev/null <<< x`, "eval"},
		{"assignment with a redirect and no command", `x=1 < f`, "eval"},
		{"zsh path array", `path=(. $path); ls`, "env-var"},
		{"zsh path from read", `read path <<< ./bin; ls`, "env-var"},
		{"zsh path from printf -v", `printf -v path %s ./bin; ls`, "env-var"},
		{"zsh functions array", `functions=(ls 'touch p'); ls`, "env-var"},
		{"zsh commands array", `commands=(ls ./evil); ls`, "env-var"},
		{"zsh options array", `options=(globsubst on); ls $x`, "env-var"},
		{"zsh PROMPT4", `PROMPT4='$(touch p)'; set -x; ls`, "env-var"},
		{"zsh typeset path", `typeset path=(./bin)`, "env-var"},
		{"zsh shift evaluates", `shift 'path[$(touch p)]'`, "arithmetic"},
		{"zsh exit evaluates", `exit 'path[$(touch p)]'`, "arithmetic"},
		{"zsh break evaluates", `for i in 1; do break "$n"; done`, "dynamic-arg"},
		{"shift by a number", `shift 2`, ""},
		{"exit with a status", `exit 1`, ""},
		{"zsh printf %d evaluates", `printf %d 'path[$(touch p)]'`, "arithmetic"},
		{"zsh printf star width evaluates", `printf '%*s' "$w" x`, "arithmetic"},
		{"printf a computed format with arguments", `printf "$fmt" x`, "dynamic-arg"},
		{"printf %d of numbers", `printf '%d items, %.2f%%\n' 3 4.5`, ""},
		{"printf %s of anything", `printf '%s\n' "$HOME" x`, ""},
		{"zsh read -t evaluates", `read -t 'path[$(touch p)]' x`, "arithmetic"},
		{"read with a timeout", `read -r -t 0.5 line <<< x`, ""},
		{"zsh test -t evaluates", `test -t 'path[$(touch p)]'`, "arithmetic"},
		{"zsh [[ -t ]] evaluates", `[[ -t 'path[$(touch p)]' ]]`, "arithmetic"},
		{"terminal test", `[ -t 1 ] && echo tty`, ""},
		{"zsh subscript after an expansion", `echo $HOME['$(touch p)']`, "arithmetic"},
		{"zsh subscript after a braced expansion", `x='path[$(touch p)]'; echo "${HOME}[x]"`, "arithmetic"},
		{"zsh glob substitution", `x='*(e:touch p:)'; ls $~x`, "eval"},
		{"zsh word splitting", `x=-delete; find . $=x`, "eval"},
		{"dollar before other text", `echo "cost: $5" '$~x'`, ""},
		// The third review: ways around the rules above.
		{"comment ending in a backslash", "git status # \\\ntouch pwn", "parse"},
		{"own-line comment ending in a backslash", "# note \\\nls", "parse"},
		{"comment", "git status # show what changed\nls", ""},
		{"heredoc delimiter with an escaped quote in double quotes", "cat <<\"E\\\"OF\"\nx\nE\"OF\ntouch pwn\nE\\\"OF", "heredoc"},
		{"heredoc delimiter with an escaped backslash in double quotes", "cat <<\"E\\\\OF\"\nE\\OF\ntouch pwn\nE\\\\OF", "heredoc"},
		{"heredoc delimiter quoted in parts", "cat <<E'O'F\nx\nEOF", "heredoc"},
		{"heredoc ended by an expansion and the delimiter", "cat <<EOF\n${x}EOF\necho '\nEOF\ntouch pwn\n: '", "heredoc"},
		{"heredoc with a double-quoted delimiter", "cat <<\"EOF\"\n$x\nEOF", ""},
		{"socket under $PWD", `cd /dev && cat 3<"$PWD/tcp/127.0.0.1/80"`, "network"},
		{"socket under ~+", `cd /dev; cat 3<~+/tcp/127.0.0.1/80`, "network"},
		{"socket under ~-", `cat < ~-/tcp/127.0.0.1/80`, "network"},
		{"input under ~", `cat < ~/notes.txt`, ""},
		{"input from a relative computed path", `cat < "src/$f"`, ""},
		{"input from ./ and a computed name, as the refusal suggests", `for f in *.go; do wc -l < "./$f"; done`, ""},
		{"awk regex after an if condition hides code", `awk 'BEGIN { if (1) /#/; system("touch pwn") }'`, "awk-program"},
		{"awk regex after a while condition", `awk '{ while (0) /#/; system("x") }'`, "awk-program"},
		{"awk division after parentheses", `awk '{ print ($1 + $2) / 2 }' f`, ""},
		{"awk print continued past a comment", "awk '{ print $0, # c\n$1 > \"out.txt\" }' f", "awk-program"},
		{"awk print continued after ?", "awk '{ print $0 ?\n\"a\" : \"b\" > \"out.txt\" }' f", "awk-program"},
		{"awk print continued inside parentheses", "awk '{ print($0\n) > \"out.txt\" }' f", "awk-program"},
		// Every awk rejects a string or regular expression that runs into a
		// newline or the end of the program: one that does was misread.
		{"awk regex runs into a newline", "awk '{ n = $0 ~ /a system(\"touch pwn\")\n }' f", "awk-program"},
		{"awk regex runs to the end", `awk '{ n = $1 / 2; m = n ~ /system("touch pwn") }' f`, "awk-program"},
		{"awk string runs into a newline", "awk '{ x = \"a\n system(\\\"touch pwn\\\") \" }' f", "awk-program"},
		{"awk string runs to the end", `awk '{ x = "a; system(1) }' f`, "awk-program"},
		{"awk string continued with a backslash", "awk '{ print \"a \\\nb\" }' f", ""},
		// The fourth review: where the parser and bash split a line apart.
		{"carriage return before a comment", "echo x\r# ; touch pwn", "parse"},
		{"backslash, carriage return, newline", "echo hi \\\r\ntouch pwn", "parse"},
		{"carriage return in a quoted here-document body", "cat <<'EOF'\na\r\nEOF", ""},
		{"backslash-newline inside $(", "echo \"$\\\n(touch pwn)\"", "parse"},
		{"backslash-newline inside ${", "x='$(touch pwn)'; echo $\\\n{x@P}", "eval"}, // a $ kept as text before a {
		{"backslash-newline inside ((", "(\\\n(echo '$(touch pwn)'))", "parse"},
		{"backslash-newline inside <<-", "cat <<\\\n-EOF\nEOF\ntouch pwn\n-EOF", "parse"},
		{"backslash-newline in an unquoted here-document", "cat <<EOF\n$\\\n(touch pwn)\nEOF", "parse"},
		{"backslash-newline after a blank", "find . -name '*.go' \\\n  -print", ""},
		{"backslash-newline in a quoted here-document body", "cat <<'EOF'\nsome\\\ntext\nEOF", ""},
		{"single quotes inside backquotes", "echo `echo '`; touch pwn; echo '` #'", "eval"},
		{"backquotes without quotes", "echo `pwd`", ""},
		{"comment inside $(...)", "echo \"$(echo a # '\n)\" ; echo ')\" ; touch pwn ; echo ' #'", "parse"},
		{"process substitution inside ${...}", `echo ${x:-<(touch pwn)}`, "eval"},
		{"process substitution inside a =~ group", `[[ x =~ (<(touch pwn)) ]]`, "eval"},
		{"output process substitution inside a =~ group", `[[ x =~ (a|>(touch pwn)) ]]`, "eval"},
		// ... and where an option reaches further than its grammar said.
		{"xargs -I then -L appends the input", `echo 'touch pwn' | xargs -I{} -L1 env`, "dynamic-command"},
		{"xargs -I then -n appends the input", `echo '-opwn f' | xargs -I{} -n2 sort`, "dynamic-arg"},
		{"xargs -I then --max-args", `echo x | xargs -I{} --max-args=2 git`, "dynamic-arg"},
		{"xargs -I alone replaces", `ls | xargs -I{} wc -l {}`, ""},
		{"gawk network file", `gawk 'BEGIN { getline x < "/inet/tcp/0/127.0.0.1/80"; print x }'`, "awk-program"},
		{"awk getline from a computed file", `awk 'BEGIN { f = "x"; getline line < f; print line }'`, "awk-program"},
		{"awk getline from a concatenated file", `awk 'BEGIN { getline line < "/in" "et/tcp/0/h/80" }'`, "awk-program"},
		{"awk getline from a file", `awk 'BEGIN { while ((getline line < "f") > 0) n++; print n }'`, ""},
		{"file -z runs decompressors", `file -z archive.gz`, "exec-option"},
		{"file of a plain file", `file go.mod`, ""},
		{"yq cluster with i", `yq -Iyi '.a=2' y.yaml`, "write-option"},
		{"yq query", `yq -I 2 '.a' y.yaml`, ""},
		{"plansmith by a relative path", `./plansmith status`, "script"},
		{"plansmith by an absolute path not ours", `/x/y/bin/plansmith status`, "script"},
		{"plansmith by name", `plansmith status`, ""},
		// The fifth review: variants of the fourth's.
		{"zsh printf with a length modifier", `printf '%ld\n' 'path[$(touch pwn)]'`, "arithmetic"},
		{"zsh printf with a numbered argument", `printf '%1$d\n' 'path[$(touch pwn)]'`, "arithmetic"},
		{"zsh printf %n assigns", `printf 'xx%n' PATH; ls`, "env-var"},
		{"printf string and number side by side", `printf '%-10s %5d\n' foo 3`, ""},
		{"printf string where the number goes", `printf '%-10s %5d\n' 3 foo`, "arithmetic"},
		{"printf percent sign", `printf '100%%\n'`, ""},
		{"zsh exponent with no digits", `e5='path[$(touch pwn)]'; shift e5`, "arithmetic"},
		{"zsh =( ) inside ${...}", `echo ${x:-=(touch pwn)}`, "eval"},
		{"<( as text in double quotes", `grep -n "<(" run.sh`, ""},
		{"<( as text in a quoted here-document", "cat <<'EOF'\ndiff <(a) <(b)\nEOF", ""},
		{"comment inside <(...)", "cat <(echo a # '\n) ; echo ') ; touch pwn ; echo ' #'", "parse"},
		{"case inside $(...)", `echo "$(case x in a) echo '" ; touch pwn ; echo "' ;; esac)"`, "parse"},
		{"gawk /inet spelt with an escape", `gawk 'BEGIN { getline x < "/\inet4/tcp/0/127.0.0.1/80"; print x }'`, "awk-program"},
		{"gawk /inet spelt in octal", `gawk 'BEGIN { getline x < "/\151net4/tcp/0/127.0.0.1/80" }'`, "awk-program"},
		{"gawk getline into a subscript", `gawk -v f=x 'BEGIN { getline a[";"] < f }'`, "awk-program"},
		{"gawk -v names a socket", `gawk -v f=/inet4/tcp/0/127.0.0.1/80 'BEGIN { print f }'`, "awk-program"},
		{"gawk file operand is a socket", `gawk 1 /inet4/tcp/0/127.0.0.1/80`, "awk-program"},
		{"awk computed file operand", `awk 1 "$f"`, "awk-program"},
		{"awk ARGV grows", `gawk 'BEGIN { ARGV[ARGC++] = "/in" "et4/tcp/0/h/80" } { print }'`, "awk-program"},
		{"awk over a glob", `awk 'length($0) > 80' *.go`, ""},
		{"awk getline into a variable", `awk '{ getline line; print line }' f`, ""},
		// The seventh review.
		{"zsh length of a subscripted name", `e5='path[$(touch pwn)]'; echo $#HOME[e5]`, "arithmetic"},
		{"zsh length of a subscripted name in quotes", `echo "$#HOME[e5]"`, "arithmetic"},
		{"number of arguments then text", `echo "$# args"`, ""},
		{"gawk /inet spelt in hex", `gawk 'BEGIN { getline x < "/\x69net4/tcp/0/127.0.0.1/80" }'`, "awk-program"},
		{"gawk /inet spelt as a code point", `gawk 'BEGIN { getline x < "/\u0069net4/tcp/0/127.0.0.1/80" }'`, "awk-program"},
		{"awk colour escapes", `awk '{ print "\033[1m" $1 "\033[0m" }' f`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Bash(tc.command, Config{})
			if tc.rule == "" {
				assert.True(t, d.Allow, d.Reason)
				return
			}
			assert.False(t, d.Allow)
			assert.Equal(t, tc.rule, d.Rule, d.Reason)
		})
	}
}

func TestConfigAllows(t *testing.T) {
	cfg := Config{Allow: []string{"make -n", "kubectl get", "bazel"}}
	tests := []struct {
		name    string
		command string
		allow   bool
	}{
		{"entry with prefix", "make -n all", true},
		{"entry without its prefix", "make all", false},
		{"entry name only", "bazel query //...", true},
		{"other subcommand", "kubectl delete pod x", false},
		{"listed subcommand", "kubectl get pods -o wide", true},
		{"redirect still refused", "make -n > out", false},
		{"substitution still judged", "make -n $(rm x)", false},
		{"looked through wrappers", "timeout 5 kubectl get pods", true},
		{"computed prefix word", `kubectl "$verb" pods`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Bash(tc.command, cfg)
			assert.Equal(t, tc.allow, d.Allow, d.Reason)
		})
	}
	assert.False(t, Bash("make -n all", Config{}).Allow, "without the config")
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name    string
		content string // "" means no file
		want    []string
		tools   []string
		errs    []string
	}{
		{name: "missing file", want: nil},
		{name: "list", content: "allow:\n  - make -n\n  - kubectl get\n", want: []string{"make -n", "kubectl get"}},
		{name: "flow list", content: `allow: ["bazel query"]`, want: []string{"bazel query"}},
		{name: "empty document", content: "# nothing\n", want: nil},
		{name: "bad yaml", content: "allow: [a\n", errs: []string{"plansmith-policy.yaml", "line"}},
		{name: "unknown key", content: "alow:\n  - x\n", errs: []string{"plansmith-policy.yaml", "line 1", "alow"}},
		{name: "non-string entry", content: "allow:\n  - make\n  - {a: b}\n", errs: []string{"plansmith-policy.yaml", "line 3"}},
		{name: "empty entry", content: "allow:\n  - \"\"\n", errs: []string{"line 2"}},
		{name: "not a list", content: "allow: make\n", errs: []string{"plansmith-policy.yaml", "line 1"}},
		{name: "tools", content: "tools:\n  - mcp__docs__*\n  - Skill\n", tools: []string{"mcp__docs__*", "Skill"}},
		{name: "tools and allow", content: "allow: [make -n]\ntools: [WebFetch]\n", want: []string{"make -n"}, tools: []string{"WebFetch"}},
		{name: "empty tool", content: "tools:\n  - \"\"\n", errs: []string{"line 2", "tools entries"}},
		{name: "tool with a blank", content: "tools: [\"mcp x\"]\n", errs: []string{"line 1", "tools entries"}},
		{name: "terminal escape", content: "allow:\n  - tokei\n  - \"bash\\e[1A\\e[2K\"\n", errs: []string{"line 3", "control character"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.content != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, ConfigFile), []byte(tc.content), 0o644))
			}
			home := t.TempDir()
			if tc.content != "" && tc.errs == nil {
				_, err := Trust(dir, home)
				require.NoError(t, err)
			}
			cfg, err := LoadConfig(dir, home)
			if tc.errs != nil {
				require.Error(t, err)
				for _, e := range tc.errs {
					assert.Contains(t, err.Error(), e)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.Allow)
			assert.Equal(t, tc.tools, cfg.Tools)
		})
	}
}

// A project's policy file counts only once the user approved it, for that
// project and that content: a repository can carry one (allow: [bash]).
func TestConfigTrust(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	file := filepath.Join(project, ConfigFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte("allow:\n  - bash\n"), 0o644))

	cfg, err := LoadConfig(project, home)
	var untrusted *UntrustedError
	require.ErrorAs(t, err, &untrusted)
	assert.Equal(t, file, untrusted.Path)
	assert.Contains(t, err.Error(), "plansmith policy trust")
	assert.Empty(t, cfg.Allow, "not used")
	assert.False(t, Bash("bash -c 'touch x'", cfg).Allow)

	got, err := Trust(project, home)
	require.NoError(t, err)
	assert.Equal(t, []string{"bash"}, got.Allow)
	cfg, err = LoadConfig(project, home)
	require.NoError(t, err)
	assert.Equal(t, []string{"bash"}, cfg.Allow)
	list, err := os.ReadFile(filepath.Join(home, TrustFile))
	require.NoError(t, err)
	assert.Contains(t, string(list), project)
	_, err = Trust(project, home)
	require.NoError(t, err)
	again, err := os.ReadFile(filepath.Join(home, TrustFile))
	require.NoError(t, err)
	assert.Equal(t, string(list), string(again), "approved once")

	// An edit needs a new approval; so does the same content elsewhere.
	require.NoError(t, os.WriteFile(file, []byte("allow:\n  - bash\n  - python3\n"), 0o644))
	_, err = LoadConfig(project, home)
	require.ErrorAs(t, err, &untrusted)
	other := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(other, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, ConfigFile), []byte("allow:\n  - bash\n"), 0o644))
	_, err = LoadConfig(other, home)
	require.ErrorAs(t, err, &untrusted, "approved for another project")
	_, err = LoadConfig(project, "")
	require.ErrorAs(t, err, &untrusted, "no $HOME: nothing is approved")

	_, err = Trust(t.TempDir(), home)
	assert.ErrorContains(t, err, "nothing to trust")
	_, err = Trust(project, "relative/home")
	assert.ErrorContains(t, err, "$HOME", "no absolute $HOME: nowhere to keep the approval")
	odd := filepath.Join(t.TempDir(), "a\nb")
	require.NoError(t, os.MkdirAll(filepath.Join(odd, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(odd, ConfigFile), []byte("allow: [tokei]\n"), 0o644))
	_, err = Trust(odd, home)
	assert.ErrorContains(t, err, "line break", "a folder name the list cannot hold")
	require.NoError(t, os.WriteFile(file, []byte("allow: [a\n"), 0o644))
	_, err = Trust(project, home)
	assert.ErrorContains(t, err, "line", "a malformed file is not approved")
}

// An approval a full disk cut short leaves a line with no newline; the
// next one must not be glued to it, or `plansmith policy trust` says the
// file is trusted and every hook still finds it untrusted (as review DD1
// found for the provenance record).
func TestConfigTrustAfterATornApproval(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	file := filepath.Join(project, ConfigFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte("allow:\n  - tokei\n"), 0o644))
	list := filepath.Join(home, TrustFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(list), 0o700))
	require.NoError(t, os.WriteFile(list, []byte("3f2a9c"), 0o600))

	_, err := Trust(project, home)
	require.NoError(t, err)
	cfg, err := LoadConfig(project, home)
	require.NoError(t, err, "the approval after the torn line is not found")
	assert.Equal(t, []string{"tokei"}, cfg.Allow)
}

func FuzzBash(f *testing.F) {
	for _, name := range []string{"allow.txt", "deny.txt"} {
		for _, tc := range loadCorpus(f, name) {
			f.Add(tc.command)
		}
	}
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f.Fuzz(func(t *testing.T, command string) {
		d := Bash(command, Config{})
		if !d.Allow {
			if d.Reason == "" || d.Rule == "" {
				t.Fatalf("denial without reason or rule for %q", command)
			}
			if d.Rule == "internal" {
				t.Fatalf("the policy panicked on %q: %s", command, d.Reason)
			}
			return
		}
		if _, err := parser.Parse(strings.NewReader(command), ""); err != nil {
			t.Fatalf("unparseable command allowed: %q", command)
		}
	})
}

func BenchmarkBash(b *testing.B) {
	var commands []string
	for _, name := range []string{"allow.txt", "deny.txt"} {
		for _, tc := range loadCorpus(b, name) {
			commands = append(commands, tc.command)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Bash(commands[i%len(commands)], Config{})
	}
}

func TestPlansmithAtItsOwnPath(t *testing.T) {
	ours := func(p string) bool { return p == "/opt/plansmith/bin/plansmith" }
	cfg := Config{Ours: ours}
	assert.True(t, Bash("/opt/plansmith/bin/plansmith status", cfg).Allow)
	assert.True(t, Bash(`"/opt/plansmith/bin/plansmith" gate leakage plan.md`, cfg).Allow)
	assert.False(t, Bash("/opt/plansmith/bin/plansmith plan x", cfg).Allow, "plan is not read-only")
	assert.False(t, Bash("/work/project/plansmith status", cfg).Allow)
	assert.False(t, Bash("/opt/plansmith/bin/../bin/plansmith-x status", cfg).Allow)
}

// plansmith cancel ends the loop, and with it the read-only session, so it
// runs only when the user's own last prompt asked for it.
func TestCancelOnlyWhenTheUserAsked(t *testing.T) {
	ours := func(p string) bool { return p == "/opt/plansmith/bin/plansmith" }
	for _, cmd := range []string{"plansmith cancel", `"/opt/plansmith/bin/plansmith" cancel`, `"${CLAUDE_PLUGIN_ROOT}/bin/plansmith" cancel`} {
		d := Bash(cmd, Config{Ours: ours})
		assert.False(t, d.Allow, cmd)
		assert.Contains(t, d.Reason, "plansmith-cancel", cmd)
		assert.Contains(t, d.Reason, "/plansmith:cancel", "the refusal says what the user types")
		assert.True(t, Bash(cmd, Config{Ours: ours, CancelAsked: true}).Allow, cmd)
	}
	asked := Config{CancelAsked: true}
	assert.False(t, Bash("plansmith cancel && touch x", asked).Allow, "the rest of the line is judged")
	assert.False(t, Bash("plansmith cancel --all", asked).Allow, "only the exact form")
	assert.False(t, Bash("plansmith plan x", asked).Allow)
	assert.True(t, Bash("plansmith status", Config{}).Allow, "the read-only commands need no request")
}

// With a relative PATH entry before the folder a program is found in, a name
// could run a file the project carries: every name the shell looks up is
// judged by Config.PathLookup, builtins only when a wrapper runs them.
func TestPathLookup(t *testing.T) {
	var asked []string
	cfg := Config{PathLookup: func(name string) string {
		asked = append(asked, name)
		if name == "ls" || name == "plansmith" || name == "echo" {
			return "PATH searches . before /usr/bin"
		}
		return ""
	}}
	for _, cmd := range []string{"ls", "ls -la | head", "env ls", "xargs ls < list", "find . -exec ls {} +",
		"nice ls", "command ls", "plansmith status", "env echo hi", "find . -exec echo {} +", "cat x | ls"} {
		d := Bash(cmd, cfg)
		assert.False(t, d.Allow, cmd)
		assert.Contains(t, d.Reason, "path-lookup", cmd)
		assert.Contains(t, d.Reason, "PATH searches . before /usr/bin", cmd)
	}
	for _, cmd := range []string{"echo hi", "command echo hi", "builtin echo hi", "cat x | head", "pwd", "grep -r x ."} {
		assert.True(t, Bash(cmd, cfg).Allow, cmd)
	}
	asked = nil
	Bash("echo hi; printf x; cd src; test -f y", cfg)
	assert.Empty(t, asked, "the shell's builtins are never looked up")
	assert.True(t, Bash("ls", Config{}).Allow, "no lookup without the caller's")

	// A program named by its path is asked about too: it starts helpers
	// by name in the same PATH (zcat runs gzip, egrep grep, diff3 diff,
	// npm node, yq jq: review O). plansmith's own binary starts none.
	ours := func(p string) bool { return p == "/opt/plansmith/bin/plansmith" }
	every := Config{Ours: ours, PathLookup: func(name string) string { return "PATH holds \".\" (" + name + ")" }}
	for _, cmd := range []string{"/usr/bin/zcat x.gz", "/bin/egrep x f", "/bin/fgrep x f", "/usr/bin/diff3 a b c",
		"/usr/bin/npm ls", "/usr/bin/yq . f.yaml", "/usr/bin/git log -1", "/usr/bin/man ls", "env /usr/bin/ls",
		"find . -exec /bin/echo {} +", "xargs /usr/bin/wc < list", "cat x | /usr/bin/head"} {
		d := Bash(cmd, every)
		assert.False(t, d.Allow, cmd)
		assert.Contains(t, d.Reason, "path-lookup", cmd)
	}
	for _, cmd := range []string{"echo hi", "pwd", "cd src && test -f x", `"/opt/plansmith/bin/plansmith" status`} {
		assert.True(t, Bash(cmd, every).Allow, cmd)
	}
}

// After cd's to literal absolute or ./ paths, git is judged in every folder
// it may start in (each cd may or may not have taken effect): the common
// "cd /abs/checkout && git log" runs, a bare-looking folder is still
// refused, and any cd whose folder the text does not fix is refused.
func TestGitAfterACd(t *testing.T) {
	var asked []string
	cfg := Config{GitRepository: bareEvil(&asked)}
	for cmd, dirs := range map[string][]string{
		"cd /work/p && git log --oneline -3":      {"", "/work/p"},
		"cd ./sub && git status":                  {"", "./sub"},
		"cd ./sub\ngit diff":                      {"", "./sub"},
		"cd /x || exit 1; cd ./y && git -C z log": {"z", "/x/z", "./y/z", "/x/./y/z"},
		"cd /x && cd /y && git log -1":            {"", "/x", "/y"},
		"(cd /x) ; git status":                    {"", "/x"},
	} {
		asked = nil
		assert.True(t, Bash(cmd, cfg).Allow, cmd)
		assert.ElementsMatch(t, dirs, asked, cmd)
	}
	for _, cmd := range []string{"cd ./evil && git status", "cd /p/evil && git log", "cd /p && cd ./evil; git status",
		"cd ./src && git -C ../evil log"} {
		d := Bash(cmd, cfg)
		assert.Equal(t, "git-repository", d.Rule, cmd)
		assert.Contains(t, d.Reason, "bare repository", cmd)
	}
	for _, cmd := range []string{"cd sub && git status", "cd ../p && git log", "cd /p/../q && git log", "cd ~/p && git log",
		"cd - && git log", "cd && git log", "cd -P /p && git log", `cd "$d" && git log`, "cd /p* && git log",
		"cd {/a,/b} && git log", "builtin cd /p && git log", "pushd /p && git log", "cd /p; popd; git log",
		"cd 'C:/p' && git log", `cd '/p\x' && git log`, "for i in 1 2; do cd ./x; done; git log",
		"while cd ./x; do git log; done", "cd /a; cd /b; cd /c; cd /d; cd /e; git log",
		"CDPATH=/tmp cd ./x && git log", `find . -execdir git log \;`} {
		d := Bash(cmd, cfg)
		assert.False(t, d.Allow, cmd)
	}
	assert.Equal(t, "git-repository", Bash("cd /p && git log", Config{}).Rule, "without the caller's lookup nothing is looked at")
}

func TestConfigTools(t *testing.T) {
	cfg := Config{Tools: []string{"mcp__docs__*", "Skill", "*"}}
	assert.True(t, Tool("mcp__docs__search", json.RawMessage(`{}`), cfg).Allow, "a prefix entry")
	assert.True(t, Tool("Skill", json.RawMessage(`{}`), cfg).Allow, "an exact entry")
	assert.False(t, Tool("mcp__fs__write_file", json.RawMessage(`{}`), cfg).Allow, `a lone "*" names nothing`)
	assert.False(t, Tool("Write", json.RawMessage(`{"file_path":"x"}`), Config{Tools: []string{"Write"}}).Allow, "edits stay refused")
	assert.False(t, Tool("Bash", json.RawMessage(`{"command":"rm x"}`), Config{Tools: []string{"Bash"}}).Allow, "Bash stays judged")
}

// npm reads settings from a project's .npmrc that the command line does not
// show (the eighth review: logs-dir and cache sent its files into the
// project, git=./evil.sh ran a program for `npm view git+https://...`). The
// caller says whether there is one; it is asked only for npm.
func TestNpmConfig(t *testing.T) {
	asked := 0
	with := func(rc string) Config {
		return Config{NpmConfig: func() string { asked++; return rc }}
	}
	d := Bash("npm ls --depth=0", with("/p/.npmrc"))
	assert.False(t, d.Allow)
	assert.Equal(t, "npm-config", d.Rule)
	assert.Contains(t, d.Reason, "/p/.npmrc")
	assert.False(t, Bash("npm view git+https://example.invalid/x.git", with("/p/.npmrc")).Allow)
	assert.True(t, Bash("npm ls --depth=0", with("")).Allow, "no .npmrc: judged as before")
	assert.Equal(t, 3, asked)

	assert.True(t, Bash("grep -rn x src", with("/p/.npmrc")).Allow)
	assert.True(t, Bash("cd src && ls", with("/p/.npmrc")).Allow)
	assert.Equal(t, 3, asked, "only an npm command asks")

	for _, cmd := range []string{"cd web && npm ls", "pushd web; npm outdated; popd", "(cd web; npm view react version)",
		`c\d web && npm ls`, "c''d web && npm ls", `for d in a b; do npm ls; command cd "./$d"; done`,
		`find . -name package.json -execdir npm ls \;`} {
		d := Bash(cmd, with(""))
		assert.Equal(t, "npm-config", d.Rule, "%s: npm reads the .npmrc of the folder it runs in", cmd)
	}
	assert.True(t, Bash("npm ls", Config{Allow: []string{"npm ls"}, NpmConfig: func() string { return "/p/.npmrc" }}).Allow,
		"the project's own policy file can allow it")
}

// An Agent or Task call is refused when the definition of the sub-agent it
// names asks for isolation; the caller reads the definitions.
func TestAgentDefinitionIsolation(t *testing.T) {
	cfg := Config{AgentDefinition: func(agent string) string {
		if agent == "helper" {
			return "helper is defined with isolation: worktree"
		}
		return ""
	}}
	d := Tool("Agent", json.RawMessage(`{"prompt":"x","subagent_type":"helper"}`), cfg)
	assert.False(t, d.Allow)
	assert.Contains(t, d.Reason, "isolation: worktree")
	assert.False(t, Tool("Task", json.RawMessage(`{"prompt":"x","SUBAGENT_TYPE":"helper"}`), cfg).Allow, "the key in any case")
	assert.False(t, Tool("Agent", json.RawMessage(`{"prompt":"x","subagent_type":5}`), cfg).Allow, "a type that is not a string")
	assert.True(t, Tool("Agent", json.RawMessage(`{"prompt":"x","subagent_type":"reader"}`), cfg).Allow)
	assert.True(t, Tool("Agent", json.RawMessage(`{"prompt":"x"}`), cfg).Allow)
}

// go downloads and runs the Go a go.mod asks for when the one here is
// older; the caller says where that would happen, asked only for go.
func TestGoToolchain(t *testing.T) {
	asked := 0
	cfg := Config{GoToolchain: func() string { asked++; return "go.mod asks for go1.99" }}
	d := Bash("go version", cfg)
	assert.Equal(t, "go-toolchain", d.Rule)
	assert.Contains(t, d.Reason, "go1.99")
	assert.True(t, Bash("cat go.mod", cfg).Allow)
	assert.Equal(t, 1, asked)
	assert.True(t, Bash("go version", Config{GoToolchain: func() string { return "" }}).Allow)
}

// go list stamps a main package's build info from the repository go finds,
// running git (or hg, ...) there: judged as git is, unless it cannot
// stamp (review AQ1). The caller is asked only then.
func TestGoListVCS(t *testing.T) {
	asked := 0
	cfg := Config{GoVCS: func() string { asked++; return "git status where the repository has a hook" }}
	for _, c := range []struct {
		cmd    string
		stamps bool
	}{
		{"go list ./...", true},
		{"go list", true},
		{"go list -f '{{.Dir}}' ./...", true},
		{"go list -deps -test .", true},
		{"go list -buildvcs=false ./...", false},
		{"go list --buildvcs=0 -e ./...", false},
		{"go list -buildvcs=false -buildvcs=true ./...", true},
		{"go list -buildvcs=auto ./...", true},
		{"go list -buildvcs false ./...", true}, // a bool flag: "false" is a package
		{"go list ./... -buildvcs=false", true}, // after the first operand: a package
		{"go list -f '-buildvcs=false' ./...", true},
		{"go list -m all", false},
		{"go list -m=false ./...", true}, // review AT2: package mode
		{"go list --m=0 -f '{{.Dir}}' ./...", true},
		{"go list -m=true all", false},
		{"go list -test -buildvcs=true -json=Dir ./...", true}, // review AV1: test mains are stamped
		{"go list -e -test -buildvcs -json=ImportPath ./...", true},
		{"go list -test -buildvcs=false -json=Dir ./...", false},
		{"go list ./... -m", true},
		{"go list -json=Dir,ImportPath ./...", false},
		{"go list -json=Dir -f '{{.Dir}}' ./...", true},
	} {
		asked = 0
		d := Bash(c.cmd, cfg)
		if c.stamps {
			assert.Equal(t, "git-repository", d.Rule, c.cmd)
			assert.Contains(t, d.Reason, "-buildvcs=false", c.cmd)
			assert.Equal(t, 1, asked, c.cmd)
			continue
		}
		assert.True(t, d.Allow, "%s: %s", c.cmd, d.Reason)
		assert.Zero(t, asked, c.cmd)
	}
	assert.True(t, Bash("go list ./...", Config{GoVCS: func() string { return "" }}).Allow)
}

// A plain assignment to a name the shell already exports reaches the
// programs the command runs (review AQ2): judged as an export where the
// hook's environment holds the name, and version managers' variables
// always.
func TestInheritedVariables(t *testing.T) {
	cfg := Config{Inherited: func(name string) bool { return name == "FOO_HOME" }}
	for _, cmd := range []string{"FOO_HOME=$PWD/x; ls", "for FOO_HOME in a b; do ls; done", "read -r FOO_HOME < f; ls",
		"printf -v FOO_HOME x; ls", `: "${FOO_HOME:=x}"; ls`, "declare FOO_HOME=x; ls"} {
		assert.Equal(t, "env-var", Bash(cmd, cfg).Rule, cmd)
		assert.True(t, Bash(cmd, Config{}).Allow, "%s: allowed where the shell does not export it", cmd)
	}
	assert.True(t, Bash("BAR=1; echo $BAR", cfg).Allow, "a name the environment does not hold")
	assert.True(t, Bash("TERM=dumb; ls", Config{Inherited: func(string) bool { return true }}).Allow, "a harmless one")
	for _, cmd := range []string{"MANOPT=-Cx; man ls", "TAR_OPTIONS=--checkpoint-action=exec=x; tar -tf a.tar",
		"PYENV_VERSION=../../..$PWD/evil; python3 --version", "RBENV_VERSION=x; ruby --version",
		"VOLTA_HOME=$PWD/v; node --version", "ASDF_DATA_DIR=$PWD; node -v", "MISE_DATA_DIR=x; ls"} {
		assert.Equal(t, "env-var", Bash(cmd, Config{}).Rule, cmd)
	}
}

// Under Codex the hook is not told the workdir or tty the model asked for:
// git and npm may run in a folder nobody looked at, and a pager (git's,
// man's) runs what is typed into it (write_stdin reaches no hook).
func TestBlind(t *testing.T) {
	for _, cmd := range []string{"git log -1", "git -C src status", "npm ls", "man ls", "ls && git status", "go version"} {
		d := Bash(cmd, Config{Blind: true})
		assert.Equal(t, "blind", d.Rule, cmd)
		assert.True(t, Bash(cmd, Config{}).Allow, "%s: allowed where the hook sees where it runs", cmd)
	}
	assert.True(t, Bash("grep -rn x src | head", Config{Blind: true}).Allow)
}

// Codex runs a command with the shell its model names, /bin/sh for one it
// does not know, and does not tell the hook which: under Blind a line must
// be read-only to sh as well as to bash (review BK1).
func TestBlindShell(t *testing.T) {
	for _, cmd := range []string{"[[ x > victim.go ]]", "cat <<< x", "echo a |& cat", "ls &> /dev/null"} {
		assert.True(t, Bash(cmd, Config{}).Allow, "%s: bash reads it as read-only", cmd)
		d := Bash(cmd, Config{Blind: true})
		assert.Equal(t, "blind-shell", d.Rule, cmd)
		assert.Contains(t, d.Reason, "sh (dash)", cmd)
	}
	for _, cmd := range []string{"grep -rn x src | head", "[ -f go.mod ] && cat go.mod", "echo $((1+2)) ${x:-a}"} {
		assert.True(t, Bash(cmd, Config{Blind: true}).Allow, cmd)
	}
	// What the rule is for: dash runs `[[` with its output sent to the file.
	dash, err := exec.LookPath("dash")
	if err != nil {
		t.Skip("no dash here to show the write")
	}
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.go")
	require.NoError(t, os.WriteFile(victim, []byte("package main\n"), 0o644))
	cmd := exec.Command(dash, "-c", "[[ x > victim.go ]]")
	cmd.Dir = dir
	_ = cmd.Run()
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Empty(t, data, "dash truncates the file")
}

// git takes a folder holding HEAD and objects for a bare repository and
// runs what its config names (core.fsmonitor on git status); a clone can
// carry one as plain files. The caller looks where git starts: the
// session's folder, or where -C leads. A change of folder before git whose
// folder the text does not fix is refused (the others: TestGitAfterACd).
func TestGitRepository(t *testing.T) {
	var asked []string
	cfg := Config{GitRepository: bareEvil(&asked)}
	d := Bash("git -C evil status", cfg)
	assert.False(t, d.Allow)
	assert.Equal(t, "git-repository", d.Rule)
	assert.Contains(t, d.Reason, "git would take evil for a bare repository")
	for cmd, dir := range map[string]string{
		"git -C evil/refs log":             "evil/refs",
		"git -C src -C ../evil log":        "src/../evil",
		"git -C src -C /p/evil log":        "/p/evil",
		"git -C '' -C evil diff":           "evil",
		"git --no-pager -C evil show HEAD": "evil",
		"git -C evil":                      "evil",
	} {
		asked = nil
		assert.False(t, Bash(cmd, cfg).Allow, cmd)
		assert.Equal(t, []string{dir}, asked, "%s: -C joined as chdir takes them", cmd)
	}
	for cmd, dir := range map[string]string{"git status": "", "git -C src log -1": "src", "git -C src -C .. diff": "src/.."} {
		asked = nil
		assert.True(t, Bash(cmd, cfg).Allow, cmd)
		assert.Equal(t, []string{dir}, asked, cmd)
	}
	asked = nil
	assert.True(t, Bash("grep -rn x src && cd src && ls", cfg).Allow)
	assert.Empty(t, asked, "only a git command asks")

	for _, cmd := range []string{"cd evil && git status", "pushd evil; git log; popd", `c\d evil && git diff`,
		"for d in a b; do git status; cd \"./$d\"; done", "while git log -1; do cd evil; done", "(cd evil; git status)",
		`cd evil && find . -maxdepth 0 -exec git status \;`, "cd evil; timeout 5 git log",
		`find . -name HEAD -execdir git status \;`, `find . -execdir timeout 5 git log -1 \;`} {
		d := Bash(cmd, Config{})
		assert.Equal(t, "git-repository", d.Rule, "%s: git runs in a folder nobody looked at", cmd)
	}
	assert.Equal(t, "dynamic-arg", Bash(`git -C "$d" log`, cfg).Rule)
	// bash expands a tilde at the start of a word and after "=" or ":"
	// (the review of the fix: ~+/evil is $PWD/evil, which the lookup took
	// for a folder named "~+").
	for _, cmd := range []string{"git -C ~+/evil status", "git -C ~/code/p/evil status", "git -C src -C ~-/evil log",
		"git -C a=~+/evil status", "timeout 5 git -C ~+/evil status"} {
		assert.Equal(t, "dynamic-arg", Bash(cmd, cfg).Rule, cmd)
	}
	for _, cmd := range []string{`git -C src -C C:/evil log`, `git -C 'src\..\evil' log`, `git -C C:/x log`, `git -C 'a\b' log`} {
		assert.Equal(t, "git-repository", Bash(cmd, cfg).Rule, "%s: a Windows path", cmd)
	}
	// zsh: dirs evil pushes evil, popd goes there.
	assert.Equal(t, "git-repository", Bash("dirs evil; popd; git status", cfg).Rule)
	for _, cmd := range []string{`cd "$(git rev-parse --show-toplevel)" && ls`, "git log -1 && cd src && ls", "git status; cd src"} {
		assert.True(t, Bash(cmd, cfg).Allow, "%s: git runs before the change of folder", cmd)
	}
	// npm is judged by the same order: before a cd it runs where it starts.
	assert.True(t, Bash(`npm ls; cd src`, Config{}).Allow)
	assert.True(t, Bash(`find . -name '*.go' -exec git log -1 --format=%h -- {} \;`, cfg).Allow, "-exec runs where find started")
	// sudo -D, like env -C, runs a command in another folder.
	for _, cmd := range []string{"sudo -D evil git status", "sudo --chdir=web npm ls", "sudo -u me -Dweb npm ls"} {
		assert.Equal(t, "wrapper-option", Bash(cmd, Config{}).Rule, cmd)
	}
}

// BenchmarkBashManyGitInLoops judges a 10 KB line of 2,000 git commands in
// 100 nested loops ending in a write: each git asks where the line may have
// changed folder. Walking the line again for each (and again for each loop
// around it) took 83 s, past the hook's 60 s timeout, which lets the call
// through (eleventh review, A2); the line's changes of folder are now
// indexed once (folderIndex).
func BenchmarkBashManyGitInLoops(b *testing.B) {
	line := strings.Repeat("for a in 1; do ", 100) + strings.Repeat("git log;", 2000) + strings.Repeat(" done;", 100) + " touch pwned"
	for i := 0; i < b.N; i++ {
		if Bash(line, Config{}).Allow {
			b.Fatal("allowed")
		}
	}
}

// bareEvil is a Config.GitRepository that takes every folder whose path
// holds "evil" for a bare repository, and records each folder asked about.
func bareEvil(asked *[]string) func(dir string) string {
	return func(dir string) string {
		*asked = append(*asked, dir)
		if strings.Contains(dir, "evil") {
			return "git would take " + dir + " for a bare repository"
		}
		return ""
	}
}

// A program named through a link and ".." runs from where the link leads:
// /p/l/../../usr/bin/cat is the project's usr/bin/cat when l leads two
// folders into the project, though the text cleans to /usr/bin/cat
// (review BJ1).
func TestAProgramPathThroughDotDot(t *testing.T) {
	project := t.TempDir()
	// The link leads as deep into the project as the project is deep, so
	// the text's ".."s climb to / while the kernel's stop at the project.
	depth := strings.Count(project, "/") + 1
	deep := strings.TrimSuffix(strings.Repeat("a/", depth), "/")
	require.NoError(t, os.MkdirAll(filepath.Join(project, deep), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(project, "usr", "bin"), 0o755))
	require.NoError(t, os.Symlink(deep, filepath.Join(project, "l")))
	marker := filepath.Join(project, "ran")
	require.NoError(t, os.WriteFile(filepath.Join(project, "usr", "bin", "cat"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))

	cmd := project + "/l" + strings.Repeat("/..", depth) + "/usr/bin/cat f"
	require.Equal(t, "/usr/bin", filepath.Dir(filepath.Clean(strings.TrimSuffix(cmd, " f"))), "the text names /usr/bin/cat")
	for _, c := range []string{cmd, "env " + cmd, "xargs " + strings.TrimSuffix(cmd, " f") + " < list", "find . -exec " + strings.TrimSuffix(cmd, " f") + " {} +"} {
		d := Bash(c, Config{})
		assert.False(t, d.Allow, c)
		assert.Equal(t, "script", d.Rule, c)
	}
	for _, c := range []string{"/usr/bin/cat f", "/bin/ls -la"} {
		assert.True(t, Bash(c, Config{}).Allow, c)
	}

	// What the rule is for: the shell runs the project's file.
	run := exec.Command("sh", "-c", cmd)
	run.Dir = project
	_ = run.Run()
	assert.FileExists(t, marker, "the kernel followed the link before the ..")
}

// Where the user's own config sets log.showSignature (review CJ4), git log
// and git show need --no-show-signature first, and git range-diff is
// refused; without that config, or for other subcommands, nothing changes.
func TestGitShowsSignaturesFromTheUsersConfig(t *testing.T) {
	on := Config{GitShowsSignatures: func() bool { return true }}
	off := Config{GitShowsSignatures: func() bool { return false }}
	for _, cmd := range []string{"git log -1", "git show HEAD", "git log --grep --no-show-signature",
		"git log -1 --no-show-signature", "git range-diff a..b c..d", "git -C sub log",
		"git stash list", "git stash list -p --no-show-signature", "git reflog --format=%s", "git reflog show --pretty=medium",
		"git reflog HEAD --format=%H", "git reflog --pretty", "git reflog show HEAD --no-show-signature --pretty=medium",
		"git range-diff --no-show-signature a..b c..d"} {
		d := Bash(cmd, on)
		assert.False(t, d.Allow, cmd)
		assert.Equal(t, "signature", d.Rule, cmd)
		assert.True(t, Bash(cmd, off).Allow, cmd)
	}
	for _, cmd := range []string{"git log --no-show-signature -1", "git show --no-show-signature --stat HEAD",
		"git --no-pager log --no-show-signature", "git status", "git blame f", "git diff",
		"git stash list --no-show-signature", "git reflog", "git reflog show -5", "git reflog -p",
		"git reflog show --no-show-signature --pretty=medium", "git reflog --no-show-signature --format=%s"} {
		assert.True(t, Bash(cmd, on).Allow, cmd)
	}
}

// Codex runs a command with PowerShell when the model names pwsh as its
// shell (and pwsh is on PATH), and does not tell the hook: under Blind a
// line whose quoting PowerShell reads otherwise than bash is refused, since
// there it may run code where bash reads words (review CL2).
func TestBlindPowerShell(t *testing.T) {
	for _, cmd := range []string{
		`echo "\$(New-Item x)"`,               // \ escapes $ for bash, nothing for PowerShell
		`echo \' '(New-Item x)' \'`,           // \' is a quote's start to PowerShell
		"echo \"`echo`\" '\" (ni x) \"' # \"", // `" keeps PowerShell in the string
		"echo '\u2019 (New-Item x) \u2018'",   // ’ ends a PowerShell string
		"echo \"a\u201d (ni x) \u201c\"",      // ” ends a PowerShell string
		`grep -rn foo\|bar src`,
		`find . -name \*.go`,
	} {
		d := Bash(cmd, Config{Blind: true})
		assert.Equal(t, "blind-pwsh", d.Rule, cmd)
		assert.Contains(t, d.Reason, "PowerShell", cmd)
	}
	for _, cmd := range []string{`echo "\$(New-Item x)"`, `echo \' '(New-Item x)' \'`, "echo '\u2019 (New-Item x) \u2018'"} {
		assert.True(t, Bash(cmd, Config{}).Allow, "%s: bash reads it as read-only", cmd)
	}
	for _, cmd := range []string{`grep -rn 'foo\.bar\|baz' src | head`, `find . -name '*.go'`, `echo "$(ls) $HOME"`, "sed -n '1,5p' a.go", `rg 'a\\b' .`} {
		assert.True(t, Bash(cmd, Config{Blind: true}).Allow, cmd)
	}
}

// Claude Code restores the user's aliases and functions before every
// command (its shell snapshot): a name the shell startup defines runs
// that instead of the command judged, and zsh runs a chpwd function at
// every change of folder, non-interactive shells included (review CN5).
func TestShellDefines(t *testing.T) {
	defined := map[string]string{"cat": "cat is an alias of your shell, for bat", "chpwd": "chpwd is a function of your shell"}
	cfg := Config{ShellDefines: func(name string) string { return defined[name] }}
	for _, command := range []string{"cat go.mod", "ls && cat x", "cd sub && ls", "pushd sub", "popd", "command cd sub", "builtin cd sub",
		"echo $(cat f)", "ls | cat"} {
		d := Bash(command, cfg)
		assert.Equal(t, "shell-function", d.Rule, command)
		assert.Contains(t, d.Reason, "is ", command)
	}
	assert.Contains(t, Bash("cd sub", cfg).Reason, "which zsh runs at every change of folder")
	for _, command := range []string{"command cat go.mod", "ls sub", "grep -rn x sub", "env cat f", "find . -exec cat {} +", "git -C sub log"} {
		assert.True(t, Bash(command, cfg).Allow, command)
	}
	delete(defined, "chpwd")
	assert.True(t, Bash("cd sub && ls", cfg).Allow)
	defined["cd"] = "cd is an alias of your shell, for cdnvm"
	assert.Equal(t, "shell-function", Bash("cd sub && ls", cfg).Rule)
	assert.True(t, Bash("command cd sub && ls", cfg).Allow, "command skips the alias; no chpwd")
}

// bash's keyword option (set -k), which Claude Code's snapshot keeps, makes
// every argument written NAME=VALUE an assignment exported to the command:
// npm ls NODE_OPTIONS=--require=./x.js ran x.js (review CN8).
func TestKeywordOption(t *testing.T) {
	plain := Config{ShellDefines: func(string) string { return "" }}
	keyword := Config{ShellDefines: func(name string) string {
		if name == KeywordOption {
			return "set -k"
		}
		return ""
	}}
	// JAVA_TOOL_OPTIONS is refused only exported, which set -k makes it.
	for _, command := range []string{"npm ls NODE_OPTIONS=--require=./x.js", "ls LD_PRELOAD=./x.so", "cat f GROFF_BIN_PATH=x | head", "ls JAVA_TOOL_OPTIONS=-javaagent:x.jar"} {
		assert.True(t, Bash(command, plain).Allow, command)
		d := Bash(command, keyword)
		assert.Equal(t, "env-var", d.Rule, command)
		assert.Contains(t, d.Reason, "set -k", command)
	}
	for _, command := range []string{"npm ls lodash", "grep -rn x=1 .", "echo a=b", "ls --color=auto"} {
		assert.True(t, Bash(command, keyword).Allow, command)
	}
}

// zsh's command runs only programs found in PATH, never its builtins
// (unless POSIX_BUILTINS): "command cd sub" with no program cd installed
// runs the command-not-found handler of the user's shell startup with
// "cd sub", as zsh -c 'command_not_found_handler () { ... }; command cd
// sub' shows (review CR1). bash's command runs the builtin.
func TestZshCommandRunsOnlyPrograms(t *testing.T) {
	lookup := func(name string) string {
		if name == "ls" || name == "echo" {
			return ""
		}
		return NotInstalled(name + " is found in no folder of PATH")
	}
	bash := Config{PathLookup: lookup, ShellDefines: func(string) string { return "" }}
	zsh := Config{PathLookup: lookup, ShellDefines: func(name string) string {
		if name == CommandSkipsBuiltins {
			return "zsh"
		}
		return ""
	}}
	for _, command := range []string{"command cd sub", "command -p cd sub", "command pushd sub", "command type ls", "command dirs",
		"command command cd sub", "builtin command cd sub", "command builtin cd sub", "command -- cd sub && ls"} {
		assert.True(t, Bash(command, bash).Allow, command)
		d := Bash(command, zsh)
		assert.Equal(t, "not-installed", d.Rule, command)
		assert.Contains(t, d.Reason, "zsh's command runs only a program", command)
	}
	for _, command := range []string{"cd sub && ls", "builtin cd sub", "command ls", "command echo x", "command -v cd", "command -V type"} {
		assert.True(t, Bash(command, zsh).Allow, command)
	}
}

// TestCodexAlternativesNameWhatCodexHas: under Codex (the binary names its
// commands for a Codex hook) a refusal's alternative names no Read, Grep or
// Glob tool, which Codex lacks, and no git, which is refused there while
// planning (review DA4: an MCP call refused in Codex was told to use them).
func TestCodexAlternativesNameWhatCodexHas(t *testing.T) {
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	refusals := func() map[string]Decision {
		return map[string]Decision{
			"unknown-tool":    Tool("mcp__acme__deploy", json.RawMessage(`{}`), Config{Blind: true}),
			"unknown-command": Bash("make build", Config{Blind: true}),
			"unreadable":      Unreadable("Bash", "the state file is locked"),
			"path-lookup":     Bash("ls", Config{Blind: true, PathLookup: func(string) string { return "PATH has a relative entry" }}),
			"not-installed":   Bash("ls", Config{Blind: true, PathLookup: func(string) string { return NotInstalled("ls is not installed") }}),
			"shell-function":  Bash("cat go.mod", Config{Blind: true, ShellDefines: func(n string) string { return n + " is a function of your shell" }}),
		}
	}
	templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindCodex, CLI: "plansmith"} })
	for rule, d := range refusals() {
		require.Equal(t, rule, d.Rule)
		instead := d.Reason[strings.Index(d.Reason, "- Instead:"):]
		assert.NotContains(t, instead, "Read, Grep", rule)
		assert.NotContains(t, instead, "Glob", rule)
		assert.NotContains(t, instead, "git", rule)
		assert.NotContains(t, instead, "/plansmith:", rule)
		// Nor does the reason speak of Claude Code, whose shell does not
		// run the command (review FA1: "Claude Code restores them before
		// every command", to a Codex user).
		assert.NotContains(t, d.Reason, "Claude Code", rule)
	}
	fn := refusals()["shell-function"].Reason
	assert.Contains(t, fn, "Codex's snapshot of the user's shell lists it")
	assert.Contains(t, fn, "zsh reads ~/.zshenv before every command")
	// With no program to run, Codex reads through the builtins alone: the
	// path-lookup advice shows how, and what it shows passes (review EC5:
	// it named echo, printf, pwd and test, none of which reads a file).
	noPath := Config{Blind: true, PathLookup: func(string) string { return "PATH has a relative entry" }}
	instead := Bash("cat go.mod", noPath).Reason
	for _, advised := range []string{`echo sub/*`, `while IFS= read -r l; do printf '%s\n' "$l"; done < FILE`} {
		assert.Contains(t, instead, advised)
		line := strings.ReplaceAll(advised, "FILE", "go.mod")
		assert.True(t, Bash(line, noPath).Allow, "%s: %s", line, Bash(line, noPath).Reason)
	}
	templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	for rule, d := range refusals() {
		assert.Contains(t, d.Reason, "Read, Grep", "%s: Claude Code keeps its tools", rule)
	}
	assert.Contains(t, refusals()["shell-function"].Reason, "(Claude Code restores them before every command)", "Claude Code's words stay")
}

// TestSettingsEnvRefusesTheShell: while the project's Claude Code settings
// set variables for every Bash command (Config.SettingsEnv, review FD1),
// every shell command is refused, plansmith's own too, and the Read tool
// is not; the files are read only for a shell command.
func TestSettingsEnvRefusesTheShell(t *testing.T) {
	asked := 0
	cfg := Config{SettingsEnv: func() string {
		asked++
		return "/p/.claude/settings.json sets \"BASH_ENV\" under env"
	}}
	for _, command := range []string{"ls", "cat go.mod", "plansmith status"} {
		d := Tool("Bash", json.RawMessage(`{"command":"`+command+`"}`), cfg)
		assert.Equal(t, "settings-env", d.Rule, command)
		assert.Contains(t, d.Reason, "BASH_ENV", command)
		assert.Contains(t, d.Reason, "the Read tool", command)
	}
	assert.Equal(t, 3, asked)
	assert.True(t, Tool("Read", json.RawMessage(`{"file_path":"/p/a.go"}`), cfg).Allow)
	assert.Equal(t, 3, asked, "a Read call reads no settings")
	assert.True(t, Tool("Bash", json.RawMessage(`{"command":"ls"}`), Config{SettingsEnv: func() string { return "" }}).Allow)
}

// TestEnvRefusalsNameCancelAsInstalled: settings-env and shell-env refuse
// plansmith's own cancel too, so they send the user to a terminal; there
// the command is the one this install runs (a plugin's binary is on no
// PATH), not a bare "plansmith cancel" (review FI1).
func TestEnvRefusalsNameCancelAsInstalled(t *testing.T) {
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	const cli = `"/opt/plugin/bin/plansmith"`
	for _, kind := range []string{templates.KindPlugin, templates.KindCodex} {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: kind, CLI: cli} })
		for _, d := range []Decision{
			Tool("Bash", json.RawMessage(`{"command":"ls"}`), Config{SettingsEnv: func() string { return "x sets BASH_ENV" }}),
			Tool("Bash", json.RawMessage(`{"command":"ls"}`), Config{ShellEnv: "x sets BASH_ENV"}),
		} {
			assert.Contains(t, d.Reason, cli+" cancel in a terminal", d.Rule)
			assert.NotContains(t, d.Reason, "with plansmith cancel", d.Rule)
		}
	}
}

// TestBlindCmdExe: where a program named cmd is on PATH (cmd.exe on
// Windows), Codex runs a command with it for the shell "cmd", its hook told
// the text alone. A line in which cmd.exe would read an & | < or > that bash
// reads as text is refused (review DA6); lines whose operators are bash's
// too, or whose text cmd.exe keeps in double quotes, are not.
func TestBlindCmdExe(t *testing.T) {
	cmd := Config{Blind: true, CmdExe: true}
	for _, line := range []string{
		`echo 'a & del x'`,          // no quote to cmd.exe
		`grep -E 'a|del x' f`,       // a pipe to cmd.exe
		`echo '"' "& del x"`,        // the single-quoted " opens cmd.exe's quotes
		`echo ^"& del x"`,           // ^ escapes the quote for cmd.exe
		`ls # & del x`,              // a comment to bash
		`echo 'a > x'`,              // a redirect to cmd.exe
		"cat <<'EOF'\n& del x\nEOF", // a here-document's text
		`echo "^" '& del x'`,        // ^ in cmd.exe's quotes escapes nothing (review EB)
		`grep 'a<b' f`,              // an input redirect to cmd.exe
		// Passed to cmd as \", the quote after ^ toggles (review EB).
		`echo ^"a" '& del x'`,
		`grep ^"x" 'a|del x' f`,
	} {
		d := Bash(line, cmd)
		assert.Equal(t, "blind-cmd", d.Rule, line)
		assert.Contains(t, d.Reason, "cmd.exe", line)
		assert.NotEqual(t, "blind-cmd", Bash(line, Config{Blind: true}).Rule, "%s: no cmd, no such rule", line)
	}
	for _, line := range []string{`grep -E "a|b" f`, `ls && cat go.mod`, `ls | head`, `ls 2>&1 | head`, `echo "a & b"`, `grep -rn '^func' .`, `ls 2>/dev/null`} {
		assert.True(t, Bash(line, cmd).Allow, "%s: %s", line, Bash(line, cmd).Reason)
	}
	// The advice leads out, not round: a backslash in the double quotes
	// it asks for is refused by blind-pwsh, whose advice is single quotes
	// (review EC1: grep 'a\|b' went from one refusal to the other).
	d := Bash(`grep 'a\|b' f`, cmd)
	require.Equal(t, "blind-cmd", d.Rule)
	assert.Equal(t, "blind-pwsh", Bash(`grep "a\|b" f`, cmd).Rule, "the case: a backslash in double quotes")
	assert.Contains(t, d.Reason, "no backslash")
	assert.Contains(t, d.Reason, `grep -E "a|b"`)
	assert.True(t, Bash(`grep -E "a|b" f`, cmd).Allow)
}

// The explore prompt tells the agent how to read the project; in Codex,
// which has no Read tool and whose commands are judged blind (git refused),
// every command it names must be one the policy lets through there, and it
// names no Claude Code tool (review DA: it said "Read for files" and
// suggested git log and git grep).
func TestExplorePromptNamesWhatThePolicyAllows(t *testing.T) {
	t.Cleanup(func() {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: templates.KindPlugin, CLI: "plansmith"} })
	})
	data := map[string]any{"Sections": []string{"Files"}, "ExploreRefs": "", "Memory": ""}
	for _, tc := range []struct {
		kind string
		cfg  Config
	}{
		{templates.KindPlugin, Config{}},
		{templates.KindCodex, Config{Blind: true}},
	} {
		templates.SetNames(func() templates.Names { return templates.Names{Kind: tc.kind, CLI: "plansmith"} })
		prompt := templates.Show("phases/explore.md", data)
		if tc.kind == templates.KindCodex {
			assert.NotContains(t, prompt, "Read for files", "Codex has no Read tool")
		}
		named := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prompt, -1)
		require.NotEmpty(t, named, tc.kind)
		for _, m := range named {
			cmd := m[1]
			switch cmd {
			case "grep -rn", "sed -n":
				cmd += " x ."
			case "git log", "cat", "find", "ls", "git grep":
				cmd += " x"
			default:
				if !strings.Contains(cmd, "/") {
					t.Errorf("%s: %q named in the explore prompt: add it to this test", tc.kind, cmd)
				}
				continue // a path given as an example
			}
			if cmd == "sed -n x ." {
				cmd = "sed -n 1,5p go.mod"
			}
			assert.True(t, Bash(cmd, tc.cfg).Allow, "%s: the explore prompt names %q, which the policy refuses there", tc.kind, m[1])
		}
	}
}
