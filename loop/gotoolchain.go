package loop

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// goToolchain says why go, run in cwd (the session's folder), would fetch
// and run a toolchain other than the one installed, or "". Since Go 1.21 a
// go.mod or go.work asks for the Go it needs (its go and toolchain lines),
// and with GOTOOLCHAIN=auto, Go's default, an older go downloads that
// version into the module cache and runs it for every subcommand, go
// version included. A repository chooses those lines, so go is refused
// where they ask for more than the go here has, unless go is kept to its
// own toolchain (GOTOOLCHAIN=local: in the environment, the user's go env
// file or the installed go's go.env, as go reads them). local tells the
// installed go: its version ("1.26.8") and GOROOT. What cannot be told,
// or a file that cannot be read, counts against.
func goToolchain(env Env, cwd string, local func() (version, goroot string, err error)) string {
	dir, err := workingFolder(env, cwd)
	if err != nil {
		return "go's folder cannot be found (" + err.Error() + ")"
	}
	var files []string
	switch work := env.Getenv("GOWORK"); work {
	case "off":
	case "":
		if f := nearest(dir, "go.work"); f != "" {
			files = append(files, f)
		}
	default:
		files = append(files, work)
	}
	if f := nearest(dir, "go.mod"); f != "" {
		files = append(files, f)
	}
	if len(files) == 0 {
		return ""
	}
	have, goroot, err := local()
	if err != nil {
		// The hook's PATH may not be the Bash tool's: not finding go here
		// does not mean the shell has none.
		return fmt.Sprintf("which Go the shell would run, and its version, cannot be told (%v), and %s may ask for a newer one, which go would download and run", plainfile.Message(err), files[0])
	}
	if !switches(goSetting(env, "GOTOOLCHAIN", goroot)) {
		return ""
	}
	for _, f := range files {
		want, err := goWants(f)
		if err != nil {
			return fmt.Sprintf("%s cannot be read (%v): it may ask for a Go that go would download and run", f, plainfile.Message(err))
		}
		if want != "" && goCompare(want, have) > 0 {
			return fmt.Sprintf("%s asks for go%s, newer than the go%s here: go would download it and run it", f, want, have)
		}
	}
	return ""
}

// switches reports whether GOTOOLCHAIN (setting; "" is Go's default, auto)
// lets a go.mod choose the toolchain: auto, path, or a name with +auto or
// +path. local, or one toolchain named alone, is the user's own choice.
func switches(setting string) bool {
	if setting == "" {
		return true
	}
	_, mode, plus := strings.Cut(setting, "+")
	return setting == "auto" || setting == "path" || plus && (mode == "auto" || mode == "path")
}

// goSetting is go's setting name as cmd/go reads it: the environment, else
// the user's go env file ($GOENV unless off, else go/env in the user's
// config folder), else goroot's go.env; "" when none sets it.
func goSetting(env Env, name, goroot string) string {
	if v := env.Getenv(name); v != "" {
		return v
	}
	file := env.Getenv("GOENV")
	if file == "" {
		if config := userConfigDir(env); config != "" {
			file = filepath.Join(config, "go", "env")
		}
	}
	if file != "" && file != "off" {
		if v, ok := envFileValue(file, name); ok {
			return v
		}
	}
	if goroot != "" {
		v, _ := envFileValue(filepath.Join(goroot, "go.env"), name)
		return v
	}
	return ""
}

// userConfigDir is os.UserConfigDir read through env: "" where go would
// find none (a relative $XDG_CONFIG_HOME, no $HOME).
func userConfigDir(env Env) string {
	switch runtime.GOOS {
	case "windows":
		return env.Getenv("AppData")
	case "darwin", "ios":
		if home := env.Getenv("HOME"); home != "" {
			return filepath.Join(home, "Library", "Application Support")
		}
		return ""
	case "plan9":
		if home := env.Getenv("home"); home != "" {
			return filepath.Join(home, "lib")
		}
		return ""
	}
	if config := env.Getenv("XDG_CONFIG_HOME"); config != "" {
		if !filepath.IsAbs(config) {
			return ""
		}
		return config
	}
	if home := env.Getenv("HOME"); home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// envFileValue reads name from a go env file as cmd/go does: lines
// KEY=VALUE whose first byte is an upper-case letter, taken as they stand
// (no blanks trimmed), the last one winning.
func envFileValue(file, name string) (string, bool) {
	data, err := plainfile.Read(file, 1<<20)
	if err != nil {
		return "", false
	}
	v, found := "", false
	for _, line := range strings.Split(string(data), "\n") {
		key, val, ok := strings.Cut(line, "=")
		if !ok || line[0] < 'A' || line[0] > 'Z' {
			continue
		}
		if key == name {
			v, found = val, true
		}
	}
	return v, found
}

// nearest is the file name in dir or the nearest folder above it, or "".
func nearest(dir, name string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if f := filepath.Join(d, name); plainfile.Present(f) {
			return f
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// goWants is the newest Go a go.mod or go.work asks for, by its go and
// toolchain lines ("" when it names none), without the "go" prefix.
func goWants(file string) (string, error) {
	data, err := plainfile.Read(file, 16<<20)
	if err != nil {
		return "", err
	}
	want := ""
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimSpace(strings.SplitN(line, "//", 2)[0]))
		if len(f) < 2 || f[0] != "go" && f[0] != "toolchain" {
			continue
		}
		v := strings.Trim(f[1], `"`)
		if f[0] == "toolchain" {
			if v == "default" || v == "local" {
				continue
			}
			var ok bool
			if v, ok = strings.CutPrefix(v, "go"); !ok {
				return "", fmt.Errorf("its toolchain line names %q", f[1])
			}
		}
		if _, ok := parseGoVersion(v); !ok {
			// A custom toolchain name (go1.27.0-mine) is looked up on PATH.
			return "", fmt.Errorf("its %s line names %q, which is no Go release", f[0], f[1])
		}
		if want == "" || goCompare(v, want) > 0 {
			want = v
		}
	}
	return want, nil
}

// goVersion is a Go version: 1.21 (a language version), 1.21rc1, 1.21.3.
type goVersion struct {
	major, minor, patch int // patch -1: none given
	pre                 int // 0 a language version; 1 beta; 2 rc; 3 a release
	preN                int
}

func parseGoVersion(s string) (goVersion, bool) {
	var v goVersion
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0 && s != "" && s[0] != '+'
	}
	major, rest, ok := strings.Cut(s, ".")
	if !ok {
		return v, false
	}
	if v.major, ok = num(major); !ok {
		return v, false
	}
	v.patch, v.pre = -1, 0
	minor, patch, hasPatch := strings.Cut(rest, ".")
	for _, p := range []struct {
		tag  string
		kind int
	}{{"rc", 2}, {"beta", 1}} {
		if m, n, found := strings.Cut(minor, p.tag); found && !hasPatch {
			if v.preN, ok = num(n); !ok {
				return v, false
			}
			minor, v.pre = m, p.kind
		}
	}
	if v.minor, ok = num(minor); !ok {
		return v, false
	}
	if hasPatch {
		if v.patch, ok = num(patch); !ok {
			return v, false
		}
		v.pre = 3
	}
	return v, true
}

// goCompare orders Go versions as the go command does: 1.21 < 1.21rc1 <
// 1.21.0 < 1.21.1. A version that does not parse sorts above any other, so
// that it counts as newer than the go here.
func goCompare(a, b string) int {
	va, oka := parseGoVersion(a)
	vb, okb := parseGoVersion(b)
	switch {
	case !oka || !okb:
		if oka == okb {
			return strings.Compare(a, b)
		}
		if !oka {
			return 1
		}
		return -1
	}
	for _, d := range [][2]int{{va.major, vb.major}, {va.minor, vb.minor}, {va.pre, vb.pre}, {va.preN, vb.preN}, {va.patch, vb.patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// localGo tells the go the Bash tool would run, as far as the hook can:
// the first on the hook's PATH, its GOROOT, and the version its VERSION
// file gives ("1.26.8").
func localGo() (version, goroot string, err error) {
	bin, err := exec.LookPath("go")
	if err != nil {
		return "", "", err
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		return "", "", err
	}
	goroot = filepath.Dir(filepath.Dir(bin))
	data, err := plainfile.Read(filepath.Join(goroot, "VERSION"), 4096)
	if err != nil {
		return "", "", err
	}
	first, _, _ := strings.Cut(string(data), "\n")
	v, ok := strings.CutPrefix(strings.TrimSpace(first), "go")
	if _, good := parseGoVersion(v); !ok || !good {
		return "", "", fmt.Errorf("its VERSION file says %q", first)
	}
	return v, goroot, nil
}
