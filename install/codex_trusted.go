package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// Whether Codex will run plansmith's hooks. Codex itself says best
// (CodexHookStatus, when a codex binary is at hand and can start: not in
// its own sandbox); else its config.toml tells as far as it can: each hook
// needs a trust entry (hooks.state."<key>".trusted_hash, written by the
// /hooks review or by install --trust), must not be turned off there
// (enabled = false), and the hooks feature must be on. Whether a recorded
// hash still matches the hook is Codex's to compute; a hook changed since
// it was trusted is not seen from the file (review BK4). A model running
// plan is told by the PreToolUse hook's note instead (loop/codexcalls.go).

// codexHookKeys returns the keys Codex may give plansmith's hooks in the
// hooks file at file (data, its contents), by event: "<file>:
// <event_snake_case>:<group>:<index>", with the file's path as given and
// with its links resolved.
func codexHookKeys(data []byte, file, self string) map[string][]string {
	paths := []string{file}
	if canon, err := filepath.EvalSymlinks(file); err == nil && canon != file {
		paths = append(paths, canon)
	}
	keys := map[string][]string{}
	eachHookEntry(data, self, func(event string, g, i int, ours bool) {
		if ours {
			for _, p := range paths {
				keys[event] = append(keys[event], fmt.Sprintf("%s:%s:%d:%d", p, snakeCase(event), g, i))
			}
		}
	})
	return keys
}

// snakeCase is Codex's name of an event in a hook's key: PreToolUse is
// pre_tool_use.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexConfigLimit bounds the read of config.toml.
const codexConfigLimit = 4 << 20

// codexUntrusted says why Codex would not run plansmith's hooks, from its
// config.toml (configFile, the user's) and the project's own layer
// (projectConfig, .codex/config.toml, which Codex reads in a trusted
// project: a repository can carry it, and its hooks switch counts, its
// hook trust does not): the hooks feature turned off, or the events
// (among keys) whose hook has no trust entry or is turned off. "" when
// nothing there stands in the way. Where a file may turn the feature off
// in a form not read here, it counts as off: in doubt, not checked
// (review BN2, BN3).
func codexUntrusted(configFile, projectConfig string, keys map[string][]string) string {
	for _, f := range []string{configFile, projectConfig} {
		if f == "" {
			continue
		}
		data, _ := plainfile.Read(f, codexConfigLimit)
		if hooksFeatureOff(tomlPairs(string(data))) {
			return "the hooks feature is turned off in " + f + " (features.hooks = false)"
		}
	}
	trusted, disabled := map[string]bool{}, map[string]bool{}
	data, _ := plainfile.Read(configFile, codexConfigLimit)
	for _, kv := range tomlPairs(string(data)) {
		rest, ok := strings.CutPrefix(kv.key, "hooks.state.")
		if !ok {
			continue
		}
		inline := strings.ReplaceAll(strings.ReplaceAll(kv.value, " ", ""), `"`, "")
		switch {
		case strings.HasSuffix(rest, ".trusted_hash"):
			trusted[strings.TrimSuffix(rest, ".trusted_hash")] = strings.Trim(kv.value, `"'`) != ""
		case strings.HasSuffix(rest, ".enabled"):
			disabled[strings.TrimSuffix(rest, ".enabled")] = kv.value == "false"
		case strings.HasPrefix(inline, "{"):
			trusted[rest] = strings.Contains(inline, "trusted_hash=") && !strings.Contains(inline, "trusted_hash=,") && !strings.Contains(inline, "trusted_hash=}")
			disabled[rest] = strings.Contains(inline, "enabled=false")
		}
	}
	var untrusted, off []string
	for _, ev := range codexEnforcing {
		candidates, ok := keys[ev]
		if !ok {
			continue
		}
		isTrusted, isOff := false, false
		for _, key := range candidates {
			isTrusted = isTrusted || trusted[key]
			isOff = isOff || disabled[key]
		}
		switch {
		case isOff:
			off = append(off, ev)
		case !isTrusted:
			untrusted = append(untrusted, ev)
		}
	}
	switch {
	case len(off) == 1:
		return fmt.Sprintf("plansmith's %s is turned off in %s", hookNames(off), configFile)
	case len(off) > 1:
		return fmt.Sprintf("plansmith's %s are turned off in %s", hookNames(off), configFile)
	case len(untrusted) > 0:
		return fmt.Sprintf("Codex has no trust recorded for plansmith's %s in %s, and runs no hook until it is trusted", hookNames(untrusted), configFile)
	}
	return ""
}

// CodexTrustLeft lists the hooks of hooksFile that Codex's config.toml in
// codexHome still records trust for ([hooks.state."<hooksFile>:<event>:…"]),
// once hooksFile is gone (uninstall removed it: it held only plansmith's
// hooks, so each such entry was plansmith's and now names nothing). Nothing
// while the file is there: a hook of the user's may then hold the key.
func CodexTrustLeft(codexHome, hooksFile string) []string {
	if _, err := os.Lstat(hooksFile); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	data, _ := plainfile.Read(filepath.Join(codexHome, "config.toml"), codexConfigLimit)
	var left []string
	for _, kv := range tomlPairs(string(data)) {
		rest, ok := strings.CutPrefix(kv.key, "hooks.state."+hooksFile+":")
		if !ok {
			continue
		}
		key, _, _ := strings.Cut(rest, ".")
		if !slices.Contains(left, key) {
			left = append(left, key)
		}
	}
	return left
}

// tomlPair is one key = value of a TOML file: the key's whole path
// (table and key, dotted, quotes removed), the value as written.
type tomlPair struct{ key, value string }

// tomlPairs reads the key = value lines of a TOML file as far as Codex's
// config needs: table headers (with spaces, quotes and a comment), dotted
// and quoted keys, comments. A value is kept as written (an inline table
// whole); a multi-line value is not followed.
func tomlPairs(text string) []tomlPair {
	var out []tomlPair
	table := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(stripTOMLComment(strings.TrimSuffix(line, "\r")))
		if strings.HasPrefix(line, "[") {
			table = tomlKeyPath(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(line, "[["), "["), "]"))
			table = strings.TrimSuffix(table, "]")
			continue
		}
		k, v, ok := cutTOMLKey(line)
		if !ok {
			continue
		}
		key := tomlKeyPath(k)
		if table != "" {
			key = table + "." + key
		}
		out = append(out, tomlPair{key, strings.TrimSpace(v)})
	}
	return out
}

// hooksFeatureOff reports whether pairs turn Codex's hooks feature off, in
// any spelling: features.hooks = false, or an inline features table that
// says so.
func hooksFeatureOff(pairs []tomlPair) bool {
	for _, kv := range pairs {
		v := strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(kv.value, " ", ""), `"`, ""), "'", "")
		switch {
		case kv.key == "features.hooks" && v != "true":
			return true
		case kv.key == "features" && strings.Contains(v, "hooks=") && !strings.Contains(v, "hooks=true"):
			return true
		}
	}
	return false
}

// cutTOMLKey splits a key = value line at the first = outside quotes.
func cutTOMLKey(line string) (key, value string, ok bool) {
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '=':
			return line[:i], line[i+1:], true
		}
	}
	return "", "", false
}

// stripTOMLComment cuts a # comment that stands outside quotes.
func stripTOMLComment(line string) string {
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote == '"' && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return line[:i]
		}
	}
	return line
}

// tomlKeyPath reads a dotted TOML key: each part bare or quoted (a basic
// string's \\ and \" read), joined with dots, spaces around parts gone.
func tomlKeyPath(s string) string {
	var parts []string
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, b.String())
			b.Reset()
		case c == ' ' || c == '\t':
		default:
			b.WriteByte(c)
		}
	}
	return strings.Join(append(parts, b.String()), ".")
}

// codexRunsHooks says why Codex would not run plansmith's hooks from s,
// "" when it would: Codex's own answer where a codex binary is at hand
// (CodexHookStatus), else what its config files show (codexUntrusted).
func codexRunsHooks(e DoctorEnv, s codexSource) string {
	if e.Codex != "" {
		// Well within a hook's deadline: the PreToolUse hook asks too.
		ctx, cancel := context.WithTimeout(context.Background(), codexAskTimeout)
		why, err := CodexHookStatus(ctx, e.Codex, e.Project, s.file, e.Binary, e.Environ)
		cancel()
		if err == nil {
			return why
		}
	}
	return codexUntrusted(filepath.Join(codexHome(e), "config.toml"), projectCodexConfig(e.Project), codexHookKeys(s.data, s.file, e.Binary))
}

// codexAskTimeout bounds asking Codex whether it runs the hooks; it takes
// a fraction of a second.
const codexAskTimeout = 8 * time.Second

// projectCodexConfig is the project's own Codex config layer, or "".
func projectCodexConfig(project string) string {
	if project == "" {
		return ""
	}
	return filepath.Join(project, ".codex", "config.toml")
}
