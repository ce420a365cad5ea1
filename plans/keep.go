package plans

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plansmith/plansmith/state"
)

// maxSlugBytes bounds the request's part of a file name: long enough to
// recognise a plan, short enough for every file system (255 bytes a name).
const maxSlugBytes = 60

// Slug turns a request into a file-name part: letters and digits of any
// script, lower-cased, with the combining marks that follow them, runs of
// anything else folded into one hyphen, cut at a word boundary near
// maxSlugBytes. A request with no letters or digits gives "plan".
//
// A combining mark (Unicode categories Mn, Mc, Me) stays with the letter
// before it: Indic vowel signs and viramas are marks, and treating them as
// separators split every word ("हिन्दी में" was "ह-न-द-म": review BU6). Every
// mark is kept, a Latin accent written decomposed included ("cafe" and
// U+0301 stays so, and shows as "café"): which marks could go without
// changing a word is a question for Unicode's decomposition tables, which
// the standard library does not have, and one rule for every script keeps
// the name the request's own. A mark with no letter or digit before it is
// dropped like any other separator: a name never starts with one.
func Slug(request string) string {
	var b strings.Builder
	dash := false
	for _, r := range request {
		if unicode.IsMark(r) && !dash && b.Len() > 0 {
			b.WriteRune(r)
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > maxSlugBytes {
		cut := maxSlugBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		// Never between a letter and its marks: the letter goes with them.
		for cut > 0 {
			if r, _ := utf8.DecodeRuneInString(s[cut:]); !unicode.IsMark(r) {
				break
			}
			_, n := utf8.DecodeLastRuneInString(s[:cut])
			cut -= n
		}
		s = s[:cut]
		if i := strings.LastIndexByte(s, '-'); i > maxSlugBytes/2 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	if s == "" {
		return "plan"
	}
	return s
}

// Keep writes doc (a saved plan: frontmatter and body) into the project's
// plans folder as YYYY-MM-DD-<slug>.md and returns its path. It never
// overwrites: when the name is taken the next free "-2", "-3", … is used,
// and the file appears whole or not at all (written aside, then linked
// into place, which fails rather than replace an existing name). The folder
// is created when missing; one that resolves outside the project (a planted
// symbolic link) is refused.
//
// already, when not nil, reports whether the file at a taken name (a
// regular file, never a link) already keeps this very plan: that name is
// returned and nothing new is kept. A loop whose archive failed stays
// active and, finishing again, keeps its plan once (review CF2).
func Keep(project string, cfg Config, doc []byte, request string, now time.Time, already func(path string) bool) (string, error) {
	if cfg.Off {
		return "", errors.New("keeping plans is turned off (plans_dir: off)")
	}
	dir, err := folder(project, cfg)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	if _, err := folder(project, cfg); err != nil { // re-check: MkdirAll follows links
		return "", err
	}
	state.SweepTemps(dir, tempPrefix, now)
	tmp, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("writing into %s: %w", dir, err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	// A kept plan is a document to commit and share, readable as any
	// other (CreateTemp makes it private).
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing into %s: %w", dir, err)
	}
	if _, err := tmp.Write(doc); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing into %s: %w", dir, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing into %s: %w", dir, err)
	}
	base := now.Format("2006-01-02") + "-" + Slug(request)
	for n := 1; n < 1000; n++ {
		file := base + suffix(n) + ".md"
		dst := filepath.Join(dir, file)
		err := os.Link(name, dst)
		if err == nil {
			return filepath.Join(project, filepath.FromSlash(cfg.Dir), file), nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("keeping the plan as %s: %w", dst, err)
		}
		if info, err := os.Lstat(dst); err == nil && info.Mode().IsRegular() && already != nil && already(dst) {
			return filepath.Join(project, filepath.FromSlash(cfg.Dir), file), nil
		}
	}
	return "", fmt.Errorf("keeping the plan in %s: every name from %s.md to %s-999.md is taken", dir, base, base)
}

func suffix(n int) string {
	if n == 1 {
		return ""
	}
	return "-" + strconv.Itoa(n)
}

// folder is the plans folder's absolute path, refused when it resolves
// outside the project: a repository may plant docs/plans as a link to
// anywhere, and plansmith never writes outside the project.
func folder(project string, cfg Config) (string, error) {
	dir := filepath.Join(project, filepath.FromSlash(cfg.Dir))
	root, err := filepath.EvalSymlinks(project)
	if err != nil {
		return "", fmt.Errorf("resolving the project %s: %w", project, err)
	}
	// Resolve the longest existing prefix; what does not exist yet is
	// created by us below it, not followed.
	existing, rest := dir, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	resolved, err := filepath.EvalSymlinks(existing)
	if err != nil {
		if target, lerr := os.Readlink(existing); lerr == nil {
			// Said in words, not wrapped: the system's "no such file or
			// directory" alone names nothing the user can see (review DD4).
			return "", fmt.Errorf("cannot keep plans in %s: %s is a link to %s, which does not lead to a folder; remove the link, or make it lead to a folder inside the project", cfg.Dir, existing, target)
		}
		return "", fmt.Errorf("resolving %s: %w", existing, err)
	}
	if rel, err := filepath.Rel(root, resolved); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("refusing to keep plans in %s: it is a link that leads outside the project (to %s)", cfg.Dir, resolved)
	}
	if info, err := os.Stat(resolved); err == nil && !info.IsDir() {
		return "", fmt.Errorf("cannot keep plans in %s: %s is not a folder", cfg.Dir, existing)
	}
	return filepath.Join(resolved, rest), nil
}

// tempPrefix names Keep's temporary files: hidden, so that List passes them
// by, and swept by a later Keep when a crash has left one (review CF4).
const tempPrefix = ".plansmith-plan.tmp-"
