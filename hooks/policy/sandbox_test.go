package policy

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adversarialCase is one entry of testdata/policy/adversarial.txt: a
// command the policy must refuse, where the idea came from, and how a real
// run in a sandbox shows that it writes or runs something.
type adversarialCase struct {
	line     int
	command  string
	source   string
	proof    string // "run", "write FILE" or "change"
	setup    string // shell run in the sandbox before the command
	unproven string // why the command is not run here (another platform)
	shell    string // the shell that runs it: bash, or zsh (@shell zsh)
	rule     string
}

// loadAdversarial reads adversarial.txt. Besides the corpus format of
// allow.txt and deny.txt it has "@source TEXT" (kept until the next
// @source), and per command "@proof", "@setup" and "@unproven".
func loadAdversarial(t testing.TB) []adversarialCase {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "policy", "adversarial.txt"))
	require.NoError(t, err)
	defer f.Close()
	var cases []adversarialCase
	var next adversarialCase
	var block []string
	inBlock, start := false, 0
	add := func(line int, command string) {
		next.line, next.command = line, command
		cases = append(cases, next)
		next = adversarialCase{source: next.source}
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		directive := func(name string) (string, bool) {
			v, ok := strings.CutPrefix(line, "@"+name+" ")
			return strings.TrimSpace(v), ok
		}
		switch {
		case inBlock && line == ">>":
			add(start, strings.Join(block, "\n"))
			inBlock, block = false, nil
		case inBlock:
			block = append(block, line)
		case line == "<<":
			inBlock, start = true, n
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "@"):
			if v, ok := directive("source"); ok {
				next.source = v
			} else if v, ok := directive("proof"); ok {
				next.proof = v
			} else if v, ok := directive("setup"); ok {
				next.setup = v
			} else if v, ok := directive("unproven"); ok {
				next.unproven = v
			} else if v, ok := directive("shell"); ok {
				next.shell = v
			} else if v, ok := directive("rule"); ok {
				next.rule = v
			} else {
				t.Fatalf("adversarial.txt:%d: unknown directive %q", n, line)
			}
		default:
			add(n, line)
		}
	}
	require.NoError(t, sc.Err())
	require.False(t, inBlock, "adversarial.txt: unterminated << block at line %d", start)
	return cases
}

func TestAdversarialCorpusDenied(t *testing.T) {
	cases := loadAdversarial(t)
	require.GreaterOrEqual(t, len(cases), 100)
	for _, tc := range cases {
		assert.NotEmpty(t, tc.source, "adversarial.txt:%d has no @source", tc.line)
		assert.True(t, (tc.proof == "") != (tc.unproven == ""),
			"adversarial.txt:%d needs exactly one of @proof and @unproven", tc.line)
		d := Bash(tc.command, Config{})
		if !assert.False(t, d.Allow, "adversarial.txt:%d escapes the policy: %s", tc.line, tc.command) {
			continue
		}
		if tc.rule != "" {
			assert.Equal(t, tc.rule, d.Rule, "adversarial.txt:%d rule for %s\n%s", tc.line, tc.command, d.Reason)
		}
	}
}

// TestAdversarialCorpusProven runs every proven entry for real, with the
// tools of this machine, in a throwaway copy of a small project (a git
// repository with a branch, a tag, a stash-able change and an untracked
// file), and checks the effect its @proof names: "run" means the program
// "mark" on PATH ran (it records itself in MARKED), "write FILE" that FILE
// was created or changed, "change" that any file in the sandbox changed.
func TestAdversarialCorpusProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every dangerous command in a sandbox")
	}
	for _, tool := range []string{"bash", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	template := sandboxTemplate(t)
	for _, tc := range loadAdversarial(t) {
		if tc.unproven != "" {
			continue
		}
		t.Run(fmt.Sprintf("line%d", tc.line), func(t *testing.T) {
			t.Parallel()
			shell := "bash"
			if tc.shell != "" {
				shell = tc.shell
				if _, err := exec.LookPath(shell); err != nil {
					t.Skipf("adversarial.txt:%d needs %s, which is not installed", tc.line, shell)
				}
			}
			var before, after map[string]string
			var out string
			var err error
			// A copy of bin/mark that another test's fork still holds open
			// for writing cannot be run ("Text file busy", as the Go runtime
			// forks while other goroutines write files): run the entry again
			// in a fresh copy.
			for attempt := 1; ; attempt++ {
				dir := filepath.Join(t.TempDir(), "project")
				require.NoError(t, os.CopyFS(dir, os.DirFS(template)))
				if tc.setup != "" {
					out, err := sandboxRun("bash", dir, tc.setup)
					require.NoError(t, err, "setup of adversarial.txt:%d: %s", tc.line, out)
				}
				before = snapshot(t, dir)
				// Failing is fine, the effect is what counts; running until
				// the timeout is not (a proof that loops proves nothing well).
				out, err = sandboxRun(shell, dir, tc.command)
				require.False(t, errors.Is(err, context.DeadlineExceeded), "adversarial.txt:%d: %v", tc.line, err)
				after = snapshot(t, dir)
				if !strings.Contains(out, "Text file busy") || attempt == 3 {
					break
				}
			}
			if tool := missingProgram(out); tool != "" && tool != "mark" {
				t.Skipf("adversarial.txt:%d runs %s, which is not installed (.ci/run installs it)", tc.line, tool)
			}
			kind, file, _ := strings.Cut(tc.proof, " ")
			switch kind {
			case "run":
				_, ran := after["MARKED"]
				assert.True(t, ran, "adversarial.txt:%d ran no program: %s\n%s", tc.line, tc.command, out)
			case "write":
				assert.True(t, after[file] != "" && after[file] != before[file],
					"adversarial.txt:%d did not write %s: %s\n%s", tc.line, file, tc.command, out)
			case "change":
				assert.False(t, maps.Equal(before, after), "adversarial.txt:%d changed nothing: %s\n%s", tc.line, tc.command, out)
			default:
				t.Fatalf("adversarial.txt:%d: unknown proof %q", tc.line, tc.proof)
			}
		})
	}
}

// sandboxTemplate builds the project every entry runs in once; each entry
// gets its own copy.
func sandboxTemplate(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "template")
	files := map[string]string{
		"in.txt":     "b\na\nb\n",
		"f":          "foo\nbar\n",
		"notes.md":   "# notes\nfoo\n",
		"go.mod":     "module example.com/sandbox\n\ngo 1.21\n",
		"main.go":    "package main\n\nfunc main() {}\n",
		"magic":      "0\tstring\tfoo\tFOO text\n",
		"prog.awk":   "BEGIN { system(\"mark awk-file\") }\n",
		"home/.keep": "",
		// Go's telemetry off in the sandbox's config folder: in its default
		// mode the go command writes counters there, and a process it
		// leaves behind can write them again after the test removed the
		// sandbox.
		"home/.config/go/telemetry/mode": "off\n",
		// mark passes its input on with the system's cat: a proof that
		// sets PATH to a folder holding a copy of mark named cat would
		// otherwise have it exec itself until the run's timeout.
		"bin/mark":    "#!/bin/sh\necho \"$*\" >> \"$SANDBOX/MARKED\"\nPATH=/usr/bin:/bin\nexec cat\n",
		"bin/.keep":   "",
		"sub/in2.txt": "x\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasPrefix(name, "bin/") {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(p, []byte(content), mode))
	}
	steps := []string{
		"git init -q -b master",
		"git add in.txt f notes.md go.mod main.go magic prog.awk sub",
		"git commit -qm first",
		"git branch feature && git tag v1",
		"echo baz >> f && git commit -qam second",
		"echo changed >> f",    // a change to stash, restore or reset
		"echo junk > junk.tmp", // an untracked file to clean
		// Every entry copies this project, and most of the copy's cost is
		// making folders and files: pack git's loose objects (a folder
		// each) and drop git init's sample hooks.
		"git gc -q && rm .git/hooks/*.sample",
	}
	for _, s := range steps {
		out, err := sandboxRun("bash", dir, s)
		require.NoError(t, err, "%s: %s", s, out)
	}
	return dir
}

// sandboxRun runs a command line with shell (bash or zsh) in dir, with an
// environment that keeps git, Go and editors inside the sandbox and puts
// "mark" first on PATH.
func sandboxRun(shell, dir, command string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	cmd.Dir = dir
	home := filepath.Join(dir, "home")
	cmd.Env = []string{
		"PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH"),
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "SANDBOX=" + dir,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_EDITOR=mark", "EDITOR=mark", "VISUAL=mark", "LC_ALL=C",
		"GOCACHE=" + filepath.Join(dir, ".gocache"), "GOPATH=" + filepath.Join(dir, ".gopath"),
		"GOFLAGS=", "GOTOOLCHAIN=local", "GOTELEMETRY=off", "GOPROXY=off", "GOWORK=off", "GOENV=" + filepath.Join(home, ".config", "go", "env"),
		"npm_config_cache=" + filepath.Join(home, ".npm"), "npm_config_update_notifier=false",
	}
	cmd.Stdin = nil
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("not finished within 60 s: %w", ctx.Err())
	}
	return string(out), err
}

// missingProgram names the program the shell said it could not find, as
// bash ("bash: line 1: rg: command not found") and zsh ("zsh:1: command not
// found: rg") say it, or "" when the output says no such thing.
func missingProgram(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutSuffix(line, ": command not found"); ok && strings.HasPrefix(line, "bash: ") {
			return name[strings.LastIndex(name, ": ")+2:]
		}
		if _, name, ok := strings.Cut(line, ": command not found: "); ok && strings.HasPrefix(line, "zsh:") {
			return name
		}
	}
	return ""
}

// snapshot maps each file below dir (git's index aside, which reading
// commands refresh) to a hash of its mode and content.
func snapshot(t *testing.T, dir string) map[string]string {
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == filepath.Join(".git", "index") || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := sha256.New()
		fmt.Fprint(h, info.Mode())
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		m[rel] = fmt.Sprintf("%x", h.Sum(nil))
		return nil
	})
	require.NoError(t, err)
	return m
}

func TestMissingProgram(t *testing.T) {
	assert.Equal(t, "rg", missingProgram("bash: line 1: rg: command not found\n"))
	assert.Equal(t, "tree", missingProgram("x\nzsh:1: command not found: tree\n"))
	assert.Equal(t, "", missingProgram("rg: foo: No such file or directory\n"))
}
