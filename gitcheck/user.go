package gitcheck

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// The user's own git configuration (their ~/.gitconfig, the XDG one, the
// system's /etc/gitconfig, a GIT_CONFIG_GLOBAL or GIT_CONFIG_SYSTEM file,
// GIT_CONFIG_COUNT pairs) is theirs: the programs it names are theirs, and
// the project's .gitattributes choosing one of its diff or filter drivers
// only picks among them. But a value that is a relative path is read from
// the folder git runs in, which is the project's (review CJ1):
//
//   - a relative core.hooksPath is read from the working tree's top, so
//     the project's folder of that name supplies the hooks, and git status
//     fires its post-index-change;
//   - a program named by a relative path (core.fsmonitor =
//     .git/hooks/fsmonitor-watchman, git's own example; a textconv
//     ./tools/conv) runs the project's file of that name.
//
// So the user's configuration is read too: a relative hooksPath is looked
// into as the repository's own is (configTrouble), and a program setting
// whose command names a relative path refuses git. Keys that are not
// commands (include paths, read from the including file's folder; the
// attributes and excludes files, which only choose among the user's
// drivers and ignore files) are left alone.

// User is what the user's and the system's git configuration, as the
// hook's environment names it, tell the checks: the relative hooksPaths it
// sets, whether it turns on log.showSignature, and why git would run a
// program the project carries ("" when it would not). One reading serves
// every check of a hook call.
type User struct {
	hooksPaths    []string
	showSignature bool
	why           string
}

// ReadUser reads the user's and the system's git configuration as getenv
// (the hook's environment; nil for none) names it.
func ReadUser(getenv func(string) string) User {
	u, why := readUserGitConfig(getenv)
	return User{hooksPaths: u.hooksPaths, showSignature: u.showSignature, why: why}
}

// ShowsSignatures reports whether the user's configuration turns on
// log.showSignature in any file it reads (which file wins depends on the
// environment of the Bash tool's shell), or cannot be read.
func (u User) ShowsSignatures() bool {
	return u.why != "" || u.showSignature
}

func readUserGitConfig(getenv func(string) string) (u userConfigReader, why string) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if p := getenv("GIT_CONFIG_PARAMETERS"); p != "" {
		return u, "GIT_CONFIG_PARAMETERS is set, configuration git reads that plansmith does not"
	}
	// The default files are read even where GIT_CONFIG_GLOBAL,
	// GIT_CONFIG_SYSTEM or GIT_CONFIG_NOSYSTEM set others aside: the Bash
	// tool's shell may not have them (a user's shell start-up files set
	// what the hook, started without them, does not see), and reading more
	// than git does only refuses more.
	home := getenv("HOME")
	files := []string{systemGitConfig}
	if sys := getenv("GIT_CONFIG_SYSTEM"); sys != "" {
		files = append(files, sys)
	}
	if global := getenv("GIT_CONFIG_GLOBAL"); global != "" {
		files = append(files, expandHome(global, home))
	}
	if xdg := getenv("XDG_CONFIG_HOME"); xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".config", "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	u.home = home
	for _, f := range files {
		if f == "/dev/null" || !filepath.IsAbs(f) {
			continue // a relative GIT_CONFIG_GLOBAL: git reads it from where it runs; refused below
		}
		if why := u.file(f, 0); why != "" {
			return u, why
		}
	}
	for _, f := range files {
		if f != "/dev/null" && !filepath.IsAbs(f) {
			return u, fmt.Sprintf("the user's git configuration file %s is a relative path, read from the folder git runs in, which the project's files fill", f)
		}
	}
	if count := getenv("GIT_CONFIG_COUNT"); count != "" {
		n, err := strconv.Atoi(count)
		if err != nil || n < 0 || n > 1000 {
			return u, "GIT_CONFIG_COUNT is set to " + count + ", which plansmith does not read"
		}
		for i := 0; i < n; i++ {
			name := getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			e := gitEntry{value: getenv("GIT_CONFIG_VALUE_" + strconv.Itoa(i)), hasValue: true}
			first, last := strings.IndexByte(name, '.'), strings.LastIndexByte(name, '.')
			if first < 0 {
				return u, "GIT_CONFIG_KEY_" + strconv.Itoa(i) + " is no key git reads"
			}
			e.section, e.key = strings.ToLower(name[:first]), strings.ToLower(name[last+1:])
			if last > first {
				e.sub = name[first+1 : last]
			}
			if why := u.entry(e, "GIT_CONFIG_KEY_"+strconv.Itoa(i), "", 0); why != "" {
				return u, why
			}
		}
	}
	return u, ""
}

// systemGitConfig is git's system-wide configuration file (a variable so
// that a test can stand another in for it).
var systemGitConfig = "/etc/gitconfig"

// userIncludeDepth is how deep git follows includes.
const userIncludeDepth = 10

type userConfigReader struct {
	home          string
	hooksPaths    []string
	showSignature bool
}

func (u *userConfigReader) file(path string, depth int) string {
	if depth > userIncludeDepth {
		return fmt.Sprintf("the user's git configuration includes files deeper than %d (%s)", userIncludeDepth, path)
	}
	data, err := plainfile.Read(path, gitConfigLimit)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return "" // git skips a file it cannot open
	}
	if err != nil {
		return fmt.Sprintf("the user's git configuration %s cannot be read (%v)", path, plainfile.Message(err))
	}
	entries, err := parseGitConfig(data)
	if err != nil {
		return fmt.Sprintf("the user's git configuration %s cannot be read as git reads it (%v)", path, err)
	}
	for _, e := range entries {
		if why := u.entry(e, path, filepath.Dir(path), depth); why != "" {
			return why
		}
	}
	return ""
}

// entry judges one setting of the user's configuration, read from where
// (a file, or an environment variable), whose includes are relative to dir
// ("" when there is no file).
func (u *userConfigReader) entry(e gitEntry, where, dir string, depth int) string {
	if e.key == "path" && (e.section == "include" || e.section == "includeif") && e.hasValue && e.value != "" {
		// Every include counts, its condition taken as met: git's may
		// depend on the repository (gitdir:, onbranch:).
		p := expandHome(e.value, u.home)
		if !filepath.IsAbs(p) {
			if dir == "" {
				return "" // git refuses a relative include outside a file
			}
			p = filepath.Join(dir, p)
		}
		return u.file(p, depth+1)
	}
	if e.section == "core" && e.key == "hookspath" && e.sub == "" && e.hasValue {
		if e.value != "" && !strings.HasPrefix(e.value, "~") && !filepath.IsAbs(e.value) {
			u.hooksPaths = append(u.hooksPaths, e.value)
		}
		return ""
	}
	if e.section == "log" && e.key == "showsignature" && e.sub == "" {
		u.showSignature = u.showSignature || !e.hasValue || !gitFalse(e.value)
		return ""
	}
	if e.section == "diff" && e.sub != "" && e.key == "cachetextconv" && (!e.hasValue || !gitFalse(e.value)) {
		// git log -p, git show and git diff then store each converted
		// text as a note: objects and a ref, refs/notes/textconv/NAME, in
		// the project's repository, for a driver the project's
		// .gitattributes picks (review CJ5).
		return fmt.Sprintf("the user's git configuration (%s) sets diff.%s.cachetextconv, which has git log -p, git show and git diff write the converted text into the repository (refs/notes/textconv/%s) for files the project's .gitattributes give that driver", where, e.sub, e.sub)
	}
	if !e.hasValue || !programKey(e.section, e.sub, e.key) {
		return ""
	}
	if e.section == "core" && e.key == "fsmonitor" && (gitTrue(e.value) || gitFalse(e.value)) {
		return "" // git's own daemon, or none
	}
	if w := relativeWord(e.value); w != "" {
		name := e.section + "."
		if e.sub != "" {
			name += e.sub + "."
		}
		return fmt.Sprintf("the user's git configuration (%s) sets %s%s to a command naming %s, a relative path git reads from the folder it runs in, where the project's files decide what runs", where, name, e.key, w)
	}
	return ""
}

// programKey reports whether a setting names a command git (or a program
// it starts) runs.
func programKey(section, sub, key string) bool {
	switch section {
	case "core":
		switch key {
		case "fsmonitor", "pager", "editor", "sshcommand", "askpass", "gitproxy", "alternaterefscommand":
			return sub == ""
		}
	case "pager":
		return true
	case "diff":
		return key == "external" && sub == "" || sub != "" && (key == "command" || key == "textconv")
	case "filter":
		return key == "clean" || key == "smudge" || key == "process"
	case "merge":
		return key == "driver"
	case "gpg":
		return key == "program" || key == "defaultkeycommand"
	case "credential":
		return key == "helper"
	case "sequence":
		return key == "editor"
	case "interactive":
		return key == "difffilter"
	case "uploadpack":
		return key == "packobjectshook"
	case "difftool", "mergetool", "browser", "man":
		return key == "cmd" || key == "path"
	case "web":
		return key == "browser"
	case "remote":
		return key == "uploadpack" || key == "receivepack"
	}
	return false
}

// relativeWord returns a word of a command that names a file by a
// relative path, or "": the program itself when it holds a slash (not
// from the root, the home folder or a variable), any word starting with
// ./ or ../, and the script an interpreter is given (sh tools/conv.sh).
// Other words with a slash are left alone: sed s/a/b/ names no file.
func relativeWord(cmd string) string {
	words := strings.FieldsFunc(cmd, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || strings.ContainsRune(`;|&()<>'"!=`+"`", r)
	})
	relative := func(w string) bool {
		return strings.Contains(w, "/") && !strings.Contains(w, "://") &&
			!strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "~") && !strings.HasPrefix(w, "$")
	}
	script := false      // the word before named an interpreter or env
	interpreter := false // ... an interpreter, which reads a script from the folder
	for i, w := range words {
		switch {
		case strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") || w == "." || w == "..":
			return w
		case (i == 0 || script) && relative(w):
			return w
		case script && (w == "-c" || w == "-e" || w == "-E"):
			script, interpreter = false, false // inline code follows, not a script
			continue
		case script && strings.HasPrefix(w, "-"):
			continue // an interpreter's option: the script comes later
		case interpreter && !strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "~") && !strings.HasPrefix(w, "$"):
			// sh conv.sh: an interpreter reads a script named without a
			// slash from the folder it runs in, the project (review CM).
			return w
		}
		interpreter = false
		switch filepath.Base(w) {
		case "sh", "bash", "dash", "zsh", "ksh", "python", "python3", "perl", "ruby", "node":
			script, interpreter = true, true
		case "env":
			script = true // env NAME finds NAME on PATH, not in the folder
		default:
			script = false
		}
	}
	return ""
}

// expandHome expands a leading ~/ (or a lone ~) as git does for paths.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

func gitTrue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func gitFalse(v string) bool {
	switch strings.ToLower(v) {
	case "0", "false", "no", "off", "":
		return true
	}
	return false
}

// gitEntry is one setting of a git config file.
type gitEntry struct {
	section, sub, key string // section and key lower case
	value             string
	hasValue          bool // "key" alone is a boolean true
}

// parseGitConfig reads a git config file as git does: sections
// ([section], [section "sub"], [section.sub]), keys with or without a
// value, quotes, escapes, comments and continued lines in values, and more
// on a line after a section header. Anything git would refuse is an error.
func parseGitConfig(data []byte) ([]gitEntry, error) {
	s := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	var out []gitEntry
	section, sub := "", ""
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '#' || c == ';':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '[':
			i++
			start := i
			for i < len(s) && (gitNameByte(s[i]) || s[i] == '.') {
				i++
			}
			name := s[start:i]
			sub = ""
			if j := strings.IndexByte(name, '.'); j >= 0 {
				name, sub = name[:j], strings.ToLower(name[j+1:])
			}
			if name == "" {
				return nil, errors.New("a section without a name")
			}
			if i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
					i++
				}
				if i >= len(s) || s[i] != '"' {
					return nil, errors.New("a section header git does not read")
				}
				var b strings.Builder
				for i++; i < len(s) && s[i] != '"'; i++ {
					if s[i] == '\n' {
						return nil, errors.New("a subsection cut by a line end")
					}
					if s[i] == '\\' {
						i++
						if i >= len(s) || s[i] == '\n' {
							return nil, errors.New("a subsection cut by a line end")
						}
					}
					b.WriteByte(s[i])
				}
				if i >= len(s) {
					return nil, errors.New("a subsection without its closing quote")
				}
				i++
				sub = b.String()
			}
			if i >= len(s) || s[i] != ']' {
				return nil, errors.New("a section header git does not read")
			}
			i++
			section = strings.ToLower(name)
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			start := i
			for i < len(s) && gitNameByte(s[i]) {
				i++
			}
			if section == "" {
				return nil, errors.New("a key outside any section")
			}
			e := gitEntry{section: section, sub: sub, key: strings.ToLower(s[start:i])}
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			switch {
			case i >= len(s) || s[i] == '\n' || s[i] == '#' || s[i] == ';':
				// A boolean true; the comment, if any, is skipped next.
			case s[i] == '=':
				v, next, err := gitValue(s, i+1)
				if err != nil {
					return nil, err
				}
				e.value, e.hasValue, i = v, true, next
			default:
				return nil, errors.New("a key line git does not read")
			}
			out = append(out, e)
		default:
			return nil, fmt.Errorf("a line starting with %q", c)
		}
	}
	return out, nil
}

// gitValue reads a value starting at s[i] up to its line's end (or its
// comment), and returns it and where reading goes on.
func gitValue(s string, i int) (string, int, error) {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var b strings.Builder
	quoted := false
	spaces := 0 // blanks seen outside quotes, kept only when more follows
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			if quoted {
				return "", 0, errors.New("a quote open at a line end")
			}
			return b.String(), i, nil
		case !quoted && (c == ' ' || c == '\t'):
			spaces++
			continue
		case !quoted && (c == '#' || c == ';'):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			return b.String(), i, nil
		}
		if spaces > 0 && b.Len() > 0 {
			b.WriteString(strings.Repeat(" ", spaces))
		}
		spaces = 0
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, errors.New("an escape at the end")
			}
			switch s[i] {
			case '\n':
				// A continued line.
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case '\\', '"':
				b.WriteByte(s[i])
			default:
				return "", 0, fmt.Errorf("an escape git does not read (\\%c)", s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", 0, errors.New("a quote open at the end")
	}
	return b.String(), i, nil
}
