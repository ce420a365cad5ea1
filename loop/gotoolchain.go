package loop

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// goToolchain says why go, run in cwd (the session's folder), would fetch
// and run a toolchain other than the one installed, or "". Since Go 1.21 a
// go.mod or go.work asks for the Go it needs (its go and toolchain lines),
// and with GOTOOLCHAIN=auto, Go's default, an older go downloads that
// version into the module cache and runs it for every subcommand, go
// version included. A repository chooses those lines, so go is refused
// where they ask for more than the go here has, unless the user keeps go
// to its own toolchain (GOTOOLCHAIN=local in the environment or in go's
// env file). local names the installed go's version ("go1.26.8"); an
// answer it cannot give, or a file it cannot read, counts against.
func goToolchain(env Env, cwd string, local func() (string, error)) string {
	if !switches(goSetting(env, "GOTOOLCHAIN")) {
		return ""
	}
	dir, err := workingFolder(env, cwd)
	if err != nil {
		return "go's folder cannot be found (" + err.Error() + ")"
	}
	var files []string
	switch work := goSetting(env, "GOWORK"); work {
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
	have, err := local()
	if errors.Is(err, exec.ErrNotFound) {
		return "" // no go to run
	}
	if err != nil {
		return fmt.Sprintf("the version of the go here cannot be told (%v), and %s may ask for a newer one, which go would download and run", Plain(err), files[0])
	}
	for _, f := range files {
		want, err := goWants(f)
		if err != nil {
			return fmt.Sprintf("%s cannot be read (%v): it may ask for a Go that go would download and run", f, Plain(err))
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

// goSetting is go's setting name as go reads it: the environment, else the
// user's go env file ($GOENV, else go/env in the user's config folder);
// "" when neither sets it (the installed go.env's default applies: auto
// in Go's own distributions).
func goSetting(env Env, name string) string {
	if v := env.Getenv(name); v != "" {
		return v
	}
	file := env.Getenv("GOENV")
	if file == "off" {
		return ""
	}
	if file == "" {
		config := env.Getenv("XDG_CONFIG_HOME")
		if config == "" {
			if home := env.Getenv("HOME"); home != "" {
				config = filepath.Join(home, ".config")
			}
		}
		if config == "" {
			return ""
		}
		file = filepath.Join(config, "go", "env")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	v := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok && strings.TrimSpace(k) == name {
			v = strings.TrimSpace(val)
		}
	}
	return v
}

// nearest is the file name in dir or the nearest folder above it, or "".
func nearest(dir, name string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if f := filepath.Join(d, name); present(f) {
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
	info, err := os.Stat(file)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() || info.Size() > 16<<20 {
		return "", errors.New("not a plain file of a plausible size")
	}
	data, err := os.ReadFile(file)
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

// localGo is the version of the go the Bash tool would run: the first on
// the PATH, its GOROOT's VERSION file ("go1.26.8"), without the prefix.
func localGo() (string, error) {
	bin, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(bin)), "VERSION"))
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(string(data), "\n")
	v, ok := strings.CutPrefix(strings.TrimSpace(first), "go")
	if _, good := parseGoVersion(v); !ok || !good {
		return "", fmt.Errorf("its VERSION file says %q", first)
	}
	return v, nil
}
