package plans

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/plansmith/plansmith/gate"
	"github.com/plansmith/plansmith/internal/boundedyaml"
	"github.com/plansmith/plansmith/internal/mdtext"
	"github.com/plansmith/plansmith/internal/provenance"
)

// maxHeader bounds how much of a kept plan is read to find its frontmatter.
const maxHeader = 1 << 20

// Entry is one kept plan, as its frontmatter describes it.
type Entry struct {
	Name        string    // file name without .md
	Path        string    // absolute path
	GeneratedAt time.Time // when the plan was saved
	Request     string
	ExitReason  string
	Verified    bool   // the gate passed
	Evidence    string // how the gate's verdict was obtained, when recorded
	// KeptHere is set (by Vouch) when plansmith wrote the file on this
	// machine (Kept: its latest record) and its bytes are unchanged since.
	// Without it, everything above is only the file's own word: a
	// repository can carry a plan that claims any date and verdict.
	KeptHere bool
	Kept     provenance.Mark
	// Edited is set (by Vouch) when plansmith wrote the file here and its
	// bytes changed since (Kept: that record): the user's own edit, most
	// likely, or a change that came with the repository. It is still the
	// plan plansmith kept, as edited (review AH1: it was shown as a
	// repository's own); everything it says of itself, its date and
	// verdict included, is now only its own word (review AJ5).
	Edited bool
}

// Vouch marks the entries plansmith wrote on this machine, as the ledger
// recorded them, and those it wrote that were edited since. The record is
// read once for them all (review DD8).
func Vouch(entries []Entry, ledger provenance.Ledger) []Entry {
	ledger = ledger.Snapshot()
	for i := range entries {
		entries[i].Kept, entries[i].KeptHere = ledger.Written(entries[i].Path)
		if !entries[i].KeptHere {
			entries[i].Kept, entries[i].Edited = ledger.Recorded(entries[i].Path)
		}
	}
	return entries
}

// Latest is the plan to hand on when none is named: among the kept plans
// and the output file (output, when there is one), the one plansmith wrote
// here last, as it stands (an edit since does not take it out: the user's
// edits are part of the plan to implement, and the caller says the plan
// was edited). The output competes only when its loop
// completed, as a kept plan's did (it is newer when keeping failed or is
// off: review V5); the plan of a loop that ended otherwise (the gate
// failed, the phases or retries ran out) is handed on only when no plan is
// kept (review AH2: it took the place of an approved one). Only when none
// is vouched for (kept before the ledger existed, or on another machine)
// is it the newest kept plan by the date it states, else the output; the
// caller says that its verdict is then only its own word.
func Latest(entries []Entry, output *Entry) (Entry, bool) {
	all := entries
	if output != nil && (output.ExitReason == "" || output.ExitReason == "completed" || len(entries) == 0) {
		all = append(append([]Entry(nil), entries...), *output)
	}
	var best Entry
	found := false
	for _, e := range all {
		if (e.KeptHere || e.Edited) && (!found || e.Kept.Seq > best.Kept.Seq) {
			best, found = e, true
		}
	}
	switch {
	case found:
		return best, true
	case len(entries) > 0:
		return entries[len(entries)-1], true
	case output != nil:
		return *output, true
	}
	return Entry{}, false
}

// Verdict is a word for the plan's standing: verified, unverified, or the
// way the loop ended when it did not complete. A pass on outputs the agent
// relayed says so: plansmith saw no critic run then, and "verified" alone
// claimed a check it never observed (review BU5).
func (e Entry) Verdict() string {
	switch {
	case e.ExitReason != "" && e.ExitReason != "completed":
		return e.ExitReason
	case e.Verified && e.Relayed():
		return "verified (relayed, not observed)"
	case e.Verified:
		return "verified"
	}
	return "unverified"
}

// Relayed reports whether the gate's verdict rests on outputs the agent
// relayed (a client that reports no sub-agent runs), not on runs plansmith
// observed.
func (e Entry) Relayed() bool { return e.Evidence == gate.EvidenceRelayed }

// List returns the kept plans in the project's plans folder, oldest first
// (by the time recorded in each, then by name). Files without a plansmith
// frontmatter, links and folders are skipped: the folder may hold other
// documents. A missing folder is an empty list.
func List(project string, cfg Config) ([]Entry, error) {
	if cfg.Off {
		return nil, nil
	}
	dir := filepath.Join(project, filepath.FromSlash(cfg.Dir))
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	var out []Entry
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".") {
			continue
		}
		if strings.HasSuffix(name, ".local.md") {
			// plansmith's own files (the state, the output, memory) when
			// plans_dir names their folder: no kept plan's name has a dot
			// in it (review AJ4: a memory file planted there was the
			// latest plan).
			continue
		}
		path := filepath.Join(dir, name)
		e, ok := readEntry(path)
		if !ok {
			continue
		}
		e.Name = strings.TrimSuffix(name, ".md")
		e.Path = path
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].GeneratedAt.Equal(out[j].GeneratedAt) {
			return out[i].GeneratedAt.Before(out[j].GeneratedAt)
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Read describes one saved plan file (the output file, say) as an Entry;
// ok is false when the file does not exist or has no plansmith frontmatter.
// A link is refused: a repository may plant one.
func Read(path string) (Entry, bool, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return Entry{}, false, fmt.Errorf("refusing to read %s: it is not a regular file (a link or a folder)", path)
	}
	e, ok := readEntry(path)
	if !ok {
		return Entry{}, false, nil
	}
	e.Name = strings.TrimSuffix(filepath.Base(path), ".md")
	e.Path = path
	return e, true, nil
}

// readEntry parses the frontmatter of a kept plan; ok is false for a file
// that is not one.
func readEntry(path string) (Entry, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Entry{}, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHeader))
	if err != nil {
		return Entry{}, false
	}
	front, ok := mdtext.Frontmatter(data)
	if !ok {
		return Entry{}, false
	}
	var meta struct {
		GeneratedAt time.Time `yaml:"generated_at"`
		ExitReason  string    `yaml:"exit_reason"`
		Verified    bool      `yaml:"verified"`
		Request     string    `yaml:"request"`
		Evidence    string    `yaml:"evidence"`
		Gate        struct {
			Evidence string `yaml:"evidence"`
		} `yaml:"gate"`
	}
	// A repository's plans folder may hold any file: a frontmatter of a
	// hundred thousand keys took yaml.v3 a minute (review P6).
	if err := boundedyaml.Decode(front, &meta, "a kept plan's frontmatter"); err != nil || meta.ExitReason == "" || meta.GeneratedAt.IsZero() {
		return Entry{}, false
	}
	ev := meta.Evidence
	if ev == "" {
		ev = meta.Gate.Evidence
	}
	return Entry{GeneratedAt: meta.GeneratedAt, ExitReason: meta.ExitReason, Verified: meta.Verified, Request: meta.Request, Evidence: ev}, true
}

// IsLatest reports whether a plan name asks for the latest plan (Latest).
func IsLatest(name string) bool {
	name = strings.TrimSuffix(strings.TrimSpace(filepath.Base(strings.TrimSpace(name))), ".md")
	return name == "" || name == "." || name == "latest"
}

// repeatless is a kept plan's name without the -N that Keep adds to a
// repeat's name.
func repeatless(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 || strings.Trim(name[i+1:], "0123456789") != "" {
		return name
	}
	return name[:i]
}

// Find picks a kept plan by name: the file name with or without .md, or a
// part of a name that only one plan has. A name that asks for the latest
// (IsLatest) is Latest's pick among the kept plans.
func Find(entries []Entry, name string) (Entry, error) {
	if len(entries) == 0 {
		return Entry{}, errors.New("no plans are kept yet")
	}
	if IsLatest(name) {
		e, _ := Latest(entries, nil)
		return e, nil
	}
	name = strings.TrimSuffix(strings.TrimSpace(filepath.Base(name)), ".md")
	e, err := find(entries, name)
	var none *noMatchError
	if !errors.As(err, &none) {
		return e, err
	}
	// The words as the list shows the request ("Add caching to the API"):
	// the name they make (review BG7: only the slug as typed was found).
	if slug := Slug(name); slug != "" && slug != name {
		if e, serr := find(entries, slug); !errors.As(serr, &none) {
			return e, serr
		}
	}
	return Entry{}, err
}

// noMatchError is find's error when no name matches at all.
type noMatchError struct{ name string }

func (e *noMatchError) Error() string { return fmt.Sprintf("no kept plan is named %q", e.name) }

// find is Find for a name taken as written.
func find(entries []Entry, name string) (Entry, error) {
	// The whole name, then a name that ends in it (the slug without its
	// date), then any part of a name.
	var whole, ending, matches []Entry
	for _, e := range entries {
		switch {
		case e.Name == name:
			whole = append(whole, e)
		case strings.HasSuffix(e.Name, "-"+name) || strings.HasSuffix(repeatless(e.Name), "-"+name):
			// A repeat of the same request on the same day is kept as
			// NAME-2, NAME-3: the slug names them all (review AH5: it named
			// the first alone, silently).
			ending = append(ending, e)
		}
		if strings.Contains(e.Name, name) {
			matches = append(matches, e)
		}
	}
	if len(whole) == 1 {
		return whole[0], nil
	}
	if len(ending) == 1 {
		return ending[0], nil
	}
	switch len(matches) {
	case 0:
		return Entry{}, &noMatchError{name}
	case 1:
		return matches[0], nil
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = m.Name
	}
	return Entry{}, fmt.Errorf("%q matches %d plans (%s); give more of the name", name, len(matches), strings.Join(names, ", "))
}
