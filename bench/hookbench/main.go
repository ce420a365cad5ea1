// Command hookbench times plansmith's hooks the way Claude Code runs them:
// `sh -c '<command from hooks/hooks.json>'` with CLAUDE_PLUGIN_ROOT set, in
// the project directory, the hook input on stdin. It runs every variant once
// per round, in a fresh random order each round, so that load on a shared
// machine falls on all variants alike, and prints each variant's median and
// its ratio to the floor (`sh -c /bin/true`) and to the bash original
// (bench/original, on the same inputs).
//
//	go run ./bench/hookbench [-n ROUNDS] [-only REGEXP]
//
// `make bench` runs it after `make build`. Fixtures are made in a temporary
// folder with the binary itself (plan, posttooluse), so they are what a
// user's session holds.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("n", 101, "rounds (every variant runs once per round)")
	only := flag.String("only", "", "run only the variants whose name matches this regexp (the floor and the two do-nothing Go programs always run)")
	root := flag.String("root", ".", "the repository root")
	plugin := flag.String("plugin", "", "the plugin folder whose hooks/hooks.json is timed (default: the repository root; `make dist` makes dist/plansmith). A plugin tree (no go.mod) is first copied, as Claude Code's plugin install copies it, and its launcher places bin/native/ afresh")
	var extra extraFlag
	flag.Var(&extra, "cmd", "also time `NAME=COMMAND` (sh -c COMMAND in a project with no loop, stdin a PreToolUse input); repeatable")
	flag.Parse()
	if err := run(*root, *plugin, *rounds, *only, extra); err != nil {
		fmt.Fprintf(os.Stderr, "hookbench: %v\n", err)
		os.Exit(1)
	}
}

// variant is one way of making a hook call, timed start to exit.
type variant struct {
	name  string
	cmd   string // run as sh -c cmd
	dir   string
	env   []string
	stdin []byte
	reset func() error // restores the fixture before each call (untimed)
	// check validates one call's stdout before timing starts, so that no
	// variant measures a hook that did nothing or failed.
	check func(stdout string) error
	times []time.Duration
}

// extraFlag collects -cmd NAME=COMMAND pairs.
type extraFlag [][2]string

func (e *extraFlag) String() string { return fmt.Sprint(*e) }

func (e *extraFlag) Set(v string) error {
	name, cmd, ok := strings.Cut(v, "=")
	if !ok || name == "" || cmd == "" {
		return errors.New("want NAME=COMMAND")
	}
	*e = append(*e, [2]string{name, cmd})
	return nil
}

func run(root, plugin string, rounds int, only string, extra extraFlag) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if plugin == "" {
		plugin = root
	}
	if plugin, err = filepath.Abs(plugin); err != nil {
		return err
	}
	bin := filepath.Join(root, "build", "plansmith")
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s is missing: run make build first: %w", bin, err)
	}
	commands, err := hookCommands(filepath.Join(plugin, "hooks", "hooks.json"))
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "hookbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	shown := plugin
	if _, err := os.Stat(filepath.Join(plugin, "go.mod")); errors.Is(err, fs.ErrNotExist) {
		if plugin, err = installCopy(plugin, filepath.Join(work, "plugin")); err != nil {
			return err
		}
		shown += " (an installed copy)"
	}
	fx, err := newFixtures(work, root, bin)
	fx.plugin = plugin
	if err != nil {
		return err
	}
	vs, err := fx.variants(commands)
	if err != nil {
		return err
	}
	// The smallest Go program, for scale: what any Go hook pays to start,
	// started as hooks.json starts plansmith (exec, GOMAXPROCS=1); and one
	// that links plansmith's libraries and does nothing either.
	hello, err := buildHello(work)
	if err != nil {
		return err
	}
	libraries, err := buildLibraries(work, root)
	if err != nil {
		return err
	}
	scale := []*variant{
		{name: "minimal Go program", cmd: "GOMAXPROCS=1 exec " + shellQuote(hello), dir: fx.noLoop, env: vs[0].env, check: silent},
		{name: librariesOnly, cmd: "GOMAXPROCS=1 exec " + shellQuote(libraries), dir: fx.noLoop, env: vs[0].env, check: silent},
	}
	vs = append(vs[:1], append(scale, vs[1:]...)...)
	for _, x := range extra {
		vs = append(vs, &variant{name: x[0], cmd: x[1], dir: fx.noLoop,
			env:   append(fx.env(fx.noLoop, fx.home10), "CLAUDE_PLUGIN_ROOT="+plugin),
			stdin: hookInput(fx.noLoop, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]string{"command": readOnlyCommand}})})
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return fmt.Errorf("-only: %w", err)
		}
		vs = slices.DeleteFunc(vs, func(v *variant) bool {
			return v.name != "floor" && v.name != "minimal Go program" && v.name != librariesOnly && !re.MatchString(v.name) && !slices.ContainsFunc(extra, func(x [2]string) bool { return x[0] == v.name })
		})
	}
	for _, v := range vs {
		if err := v.warm(); err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
	}
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	for r := 0; r < rounds; r++ {
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			if _, err := vs[i].call(); err != nil {
				return fmt.Errorf("%s: %w", vs[i].name, err)
			}
		}
	}
	report(os.Stdout, vs, rounds, shown, commands)
	return nil
}

// installCopy copies a plugin tree to dst as a plugin install does (Claude
// Code copies a marketplace's plugin into its cache), leaving out bin/native/
// so that the launcher checks and places the binary there on the first call.
// It matters for the figures, not only for tidiness: on Linux a binary just
// written by the Go linker (through a memory map, as `make dist` leaves it)
// sits in the page cache in a way that makes every start of it cost about
// 0.4 floor more than the same bytes written by a copy (measured here:
// 2.12x against 1.64x the floor for one binary in one interleaved run), and
// an installed plugin's binary is a copy.
func installCopy(src, dst string) (string, error) {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel == filepath.Join("bin", "native") {
			return filepath.SkipDir
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case !info.Mode().IsRegular():
			return fmt.Errorf("%s: not a file or folder; a plugin tree holds none", path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, info.Mode().Perm())
	})
	if err != nil {
		return "", fmt.Errorf("copying the plugin %s: %w", src, err)
	}
	return dst, nil
}

// hookCommands reads the command registered for each event; for
// PreToolUse, the one Claude Code runs for Bash ("PreToolUse") and the one
// that judges ExitPlanMode ("PreToolUse:ExitPlanMode": the entry registered
// for that tool by name, when there is one).
func hookCommands(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]string{}
	for event, groups := range cfg.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				key := event
				switch {
				case event != "PreToolUse":
				case g.Matcher == "ExitPlanMode":
					key += ":ExitPlanMode"
				case !matches(g.Matcher, "Bash"):
					continue
				}
				if out[key] == "" {
					out[key] = h.Command
				}
			}
		}
	}
	if out["PreToolUse:ExitPlanMode"] == "" {
		out["PreToolUse:ExitPlanMode"] = out["PreToolUse"]
	}
	for _, e := range []string{"Stop", "PreToolUse", "PostToolUse"} {
		if out[e] == "" {
			return nil, fmt.Errorf("%s registers no %s command", path, e)
		}
	}
	return out, nil
}

// matches reports whether a hooks.json matcher (a tool name, names joined by
// "|", or "*" and "" for every tool) selects tool.
func matches(matcher, tool string) bool {
	return matcher == "" || matcher == "*" || slices.Contains(strings.Split(matcher, "|"), tool)
}

// warm runs the variant once untimed: it fills the page cache and checks
// that the call does what its name says.
func (v *variant) warm() error {
	out, err := v.call()
	if err != nil {
		return err
	}
	v.times = v.times[:0]
	if v.check != nil {
		if err := v.check(out); err != nil {
			return fmt.Errorf("unexpected answer (%w): %q", err, truncate(out, 300))
		}
	}
	return nil
}

func (v *variant) call() (string, error) {
	if v.reset != nil {
		if err := v.reset(); err != nil {
			return "", fmt.Errorf("resetting the fixture: %w", err)
		}
	}
	cmd := exec.Command("/bin/sh", "-c", v.cmd)
	cmd.Dir = v.dir
	cmd.Env = v.env
	cmd.Stdin = bytes.NewReader(v.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	v.times = append(v.times, time.Since(start))
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, truncate(stderr.String(), 300))
	}
	return stdout.String(), nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func wants(sub string) func(string) error {
	return func(out string) error {
		if !strings.Contains(out, sub) {
			return fmt.Errorf("want %q in the answer", sub)
		}
		return nil
	}
}

func silent(out string) error {
	if out != "" {
		return errors.New("want no answer")
	}
	return nil
}

// buildHello builds a Go program that only exits, as the binary is built
// (static, stripped).
func buildHello(work string) (string, error) {
	dir := filepath.Join(work, "hello")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return "", err
	}
	return buildCopy(dir, ".", filepath.Join(dir, "hello"), "GOFLAGS=")
}

// buildCopy builds the package pkg from dir and returns out, a copy of
// the binary: timed as a copy, like plansmith's installed binary, since
// the linker's own output costs more per start (see installCopy).
func buildCopy(dir, pkg, out string, env ...string) (string, error) {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out+".linked", pkg)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), env...)
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w: %s", pkg, err, output)
	}
	data, err := os.ReadFile(out + ".linked")
	if err != nil {
		return "", err
	}
	return out, os.WriteFile(out, data, 0o755)
}

// librariesOnly names the variant that runs bench/hookbench/libraries.
const librariesOnly = "Go program linking plansmith's libraries"

// buildLibraries builds bench/hookbench/libraries into work.
func buildLibraries(work, root string) (string, error) {
	return buildCopy(root, "./bench/hookbench/libraries", filepath.Join(work, "libraries"))
}
