// Package corpus loads the validator corpora under testdata/validators: real
// plans and non-plans from public repositories, each opening with a
// "<!-- source: ... -->" comment that names where it came from, and
// well-formed phase answers written for plansmith. Tests of the phase
// validators and of the gate's leakage scan measure themselves against it.
package corpus

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Doc is one corpus file.
type Doc struct {
	Name    string // file name, e.g. "en-mdcode.md"
	Kind    string // the directory it sits in: "plans", "nonplans", or "answers/<phase>"
	Lang    string // "en" or "ko", from the file name's prefix
	Source  string // the source comment's content ("" for answers written here)
	Text    string // the file without its source comment
	Holdout bool   // held out from tuning; see Holdout
}

// Holdout reports whether a real-document file is held out from tuning:
// about a quarter of each corpus, chosen by a hash of the file name so the
// choice was fixed before any validator was tuned and cannot drift with it.
func Holdout(name string) bool {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()%4 == 0
}

// Load reads every .md file under root/kind (recursively, sorted by path).
// A real document must open with a source comment; a file without one is
// an error, so nothing enters the corpus unattributed.
func Load(root, kind string) ([]Doc, error) {
	var docs []Doc
	dir := filepath.Join(root, kind)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read corpus file: %w", err)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		doc := Doc{Name: filepath.Base(path), Kind: filepath.ToSlash(rel), Text: string(b)}
		doc.Lang, _, _ = strings.Cut(doc.Name, "-")
		if first, rest, ok := strings.Cut(doc.Text, "\n"); ok && strings.HasPrefix(first, "<!-- source:") {
			doc.Source = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(first, "<!-- source:"), "-->"))
			doc.Text = rest
		}
		real := !strings.HasPrefix(doc.Kind, "answers")
		if real {
			if doc.Source == "" {
				return fmt.Errorf("corpus file %s has no source comment", path)
			}
			doc.Holdout = Holdout(doc.Name)
		}
		docs = append(docs, doc)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load corpus %s: %w", kind, err)
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Kind+docs[i].Name < docs[j].Kind+docs[j].Name })
	return docs, nil
}
