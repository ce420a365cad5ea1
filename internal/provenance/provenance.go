// Package provenance records which files plansmith itself wrote in a
// project on this machine, so that a file a repository carries under the
// same name is not taken for one of them. A kept plan says of itself that
// it was verified, and when: a cloned repository can say the same (review
// V1: a plan dated in the future became "the latest", verified, and
// /plansmith:implement handed it over). The record lives under the user's
// home, out of any repository's reach, one file per project:
//
//	~/.claude/plansmith/provenance/<hash of the project's real path>
//
// holding a line per file written, oldest first:
//
//	<unix nanoseconds> <sha-256 of the file's bytes> <path relative to the project>
//
// A file counts as plansmith's while its bytes are still what was recorded.
package provenance

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// Dir is where the records are kept, under the user's home.
const Dir = ".claude/plansmith/provenance"

const (
	// maxFile bounds what is read of a file to hash it: a plan is far
	// smaller, and a larger file (a planted one, say) is no file of ours.
	maxFile = 8 << 20
	keepIDs = 400
)

// maxRecord bounds the record; past it, trim keeps what is still needed:
// each file's latest line and the newest keepIDs names. A variable for the
// tests.
var maxRecord int64 = 256 << 10

// Ledger is one project's record. The zero Ledger (no home) records
// nothing and vouches for nothing.
type Ledger struct {
	path    string // the record file; "" when there is none
	project string // the project's real path
	read    []line // the record as Snapshot read it; nil: read it at each question
}

// Open returns the ledger of project kept under home. Without a home, or
// when the project's real path cannot be found, it is the zero Ledger.
func Open(home, project string) Ledger {
	if home == "" || project == "" {
		return Ledger{}
	}
	real, err := filepath.EvalSymlinks(project)
	if err != nil {
		return Ledger{}
	}
	sum := sha256.Sum256([]byte(real))
	return Ledger{path: filepath.Join(home, filepath.FromSlash(Dir), hex.EncodeToString(sum[:16])), project: real}
}

// Known reports whether the ledger is kept at all (there is a home to keep
// it under). Without one nothing can be told apart, and callers keep to
// what they did before the ledger existed.
func (l Ledger) Known() bool { return l.path != "" }

// Record notes that plansmith has just written file (a path in the
// project) with the bytes it now holds.
func (l Ledger) Record(file string, now time.Time) error {
	if l.path == "" {
		return nil
	}
	rel, sum, err := l.fingerprint(file)
	if err != nil {
		return err
	}
	return l.append(strconv.FormatInt(now.UnixNano(), 10) + " " + sum + " " + rel + "\n")
}

// RecordBytes notes that plansmith is about to write data to file (a path
// in the project): recorded before the write, a file whose record could
// not be written is never written unvouched for (the memory: written
// first, then not recorded, it was taken for a repository's at the next
// run and moved aside, its lessons no longer shown; review FB2). A record
// of bytes that were then not written vouches for nothing that is there.
func (l Ledger) RecordBytes(file string, data []byte, now time.Time) error {
	if l.path == "" {
		return nil
	}
	rel, err := l.rel(file)
	if err != nil {
		return err
	}
	if len(data) > maxFile {
		return errors.New(file + " is not a plan file plansmith writes")
	}
	sum := sha256.Sum256(data)
	return l.append(strconv.FormatInt(now.UnixNano(), 10) + " " + hex.EncodeToString(sum[:]) + " " + rel + "\n")
}

// append adds one line to the record.
func (l Ledger) append(line string) error {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return fmt.Errorf("recording what plansmith wrote: %w", err)
	}
	// Shared with other appends, exclusive of a trim: a line appended
	// while a trim rewrites the record from what it read would be lost
	// (a new loop's ID among them: the loop would never bind).
	unlock := lockRecord(l.path, false)
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE|os.O_APPEND|noFollowNonBlock, 0o600)
	if err != nil {
		unlock()
		return fmt.Errorf("recording what plansmith wrote: %w", err)
	}
	if plainfile.EndsMidLine(f) {
		// A full disk cut the last line short (a write stops at the page
		// it has no room for): this one starts on a line of its own, or
		// the two would read as one line that does not parse, and this
		// record would be lost with the torn one (review DD1: the loop
		// started next was taken for a repository's).
		line = "\n" + line
	}
	_, werr := f.WriteString(line) // one write: appends from other hooks do not interleave
	info, serr := f.Stat()
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	unlock()
	if werr != nil {
		return fmt.Errorf("recording what plansmith wrote: %w", werr)
	}
	if serr == nil && info.Size() > maxRecord {
		l.trim()
	}
	return nil
}

// trim rewrites an overgrown record with what it still needs: each file's
// latest line (a file no longer there goes) and the newest keepIDs
// names. Keeping only the newest lines would drop the record of a file
// written long ago and still in use, the memory say (review AA5). It runs
// only while no append does (lockRecord: a line appended meanwhile was
// lost, a new loop's ID among them, review AB), and leaves the record as it
// is when the lock cannot be had.
func (l Ledger) trim() {
	unlock := lockRecord(l.path, true)
	if unlock == nil {
		return
	}
	defer unlock()
	l.read = nil // the record as it is now, never a snapshot's
	lines := l.lines()
	last := map[string]int{}
	ids := 0
	keep := make([]bool, len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		r := lines[i]
		switch {
		case strings.HasSuffix(r.rel, ":"):
			if ids < keepIDs {
				keep[i] = true
				ids++
			}
		default:
			if _, seen := last[r.rel]; seen {
				continue
			}
			last[r.rel] = i
			if _, err := os.Lstat(filepath.Join(l.project, filepath.FromSlash(r.rel))); err == nil {
				keep[i] = true
			}
		}
	}
	var b strings.Builder
	for i, r := range lines {
		if keep[i] {
			b.WriteString(strconv.FormatInt(r.when.UnixNano(), 10) + " " + r.sum + " " + r.rel + "\n")
		}
	}
	tmp := l.path + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		os.Remove(tmp)
		return
	}
	if err := os.Rename(tmp, l.path); err != nil {
		os.Remove(tmp)
	}
}

// RecordID notes a name plansmith gave something that is not a file (a
// loop's ID), under kind; HasID finds it again. Only its hash is kept, on a
// line named "<kind>:" (no file's path relative to the project is
// recorded so: Record names files by their path).
func (l Ledger) RecordID(kind, id string, now time.Time) error {
	if l.path == "" {
		return nil
	}
	return l.append(strconv.FormatInt(now.UnixNano(), 10) + " " + idSum(kind, id) + " " + kind + ":\n")
}

// HasID reports whether RecordID noted id under kind.
func (l Ledger) HasID(kind, id string) bool {
	if l.path == "" || id == "" {
		return false
	}
	sum := idSum(kind, id)
	for _, ln := range l.lines() {
		if ln.rel == kind+":" && ln.sum == sum {
			return true
		}
	}
	return false
}

func idSum(kind, id string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + id))
	return hex.EncodeToString(sum[:])
}

// Mark is where a file stands in the ledger: its latest record, by its
// place in the record (later writes have higher Seq) and its time.
type Mark struct {
	Seq  int
	When time.Time
}

// Written reports whether file holds what plansmith recorded writing
// there, and its latest such record.
func (l Ledger) Written(file string) (Mark, bool) {
	if l.path == "" {
		return Mark{}, false
	}
	rel, sum, err := l.fingerprint(file)
	if err != nil {
		return Mark{}, false
	}
	lines := l.lines()
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].rel == rel && lines[i].sum == sum {
			return Mark{Seq: i + 1, When: lines[i].when}, true
		}
	}
	return Mark{}, false
}

// Recorded reports whether plansmith recorded writing file at all,
// whatever it holds now, and its latest such record: a file plansmith
// wrote that was edited since (by the user, most likely) is Recorded but
// not Written.
func (l Ledger) Recorded(file string) (Mark, bool) {
	if l.path == "" {
		return Mark{}, false
	}
	rel, err := l.rel(file)
	if err != nil {
		return Mark{}, false
	}
	lines := l.lines()
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].rel == rel {
			return Mark{Seq: i + 1, When: lines[i].when}, true
		}
	}
	return Mark{}, false
}

type line struct {
	when     time.Time
	sum, rel string
}

// Snapshot is the ledger with its record read once, now: its answers
// (Written, Recorded, HasID) come from that reading, not a new one each.
// A caller asking about many files at once uses it: each answer read the
// whole record again, and listing thousands of kept plans took seconds
// (review DD8). Records written after it are not in its answers.
func (l Ledger) Snapshot() Ledger {
	if l.path != "" {
		l.read = l.lines()
		if l.read == nil {
			l.read = []line{}
		}
	}
	return l
}

// lines reads the record; a missing or unreadable one is empty, and a line
// that does not parse is skipped. Of a record larger than is read
// (2*maxRecord: one that keeps thousands of plans stays that large after a
// trim, each one's line kept while the file is there) the newest lines
// are read, the oldest left: they were read first, and what came after was
// lost, the memory's record and the newest plans' with it, and the trim
// rewrote the record from what it read (review DD5).
func (l Ledger) lines() []line {
	if l.read != nil {
		return l.read
	}
	f, err := os.OpenFile(l.path, os.O_RDONLY|noFollowNonBlock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	var r io.Reader = f
	if info, err := f.Stat(); err == nil && info.Size() > 2*maxRecord {
		if _, err := f.Seek(info.Size()-2*maxRecord, io.SeekStart); err != nil {
			return nil
		}
		br := bufio.NewReader(f)
		if _, err := br.ReadString('\n'); err != nil { // the rest of a line begun before
			return nil
		}
		r = br
	}
	var out []line
	sc := bufio.NewScanner(io.LimitReader(r, 2*maxRecord))
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), " ", 3)
		if len(fields) != 3 || len(fields[1]) != 2*sha256.Size {
			continue
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, line{when: time.Unix(0, ns), sum: fields[1], rel: fields[2]})
	}
	return out
}

// fingerprint names file relative to the project and hashes its bytes. A
// link, a folder, a file outside the project or one over maxFile has none.
func (l Ledger) fingerprint(file string) (rel, sum string, err error) {
	if rel, err = l.rel(file); err != nil {
		return "", "", err
	}
	f, err := os.OpenFile(file, os.O_RDONLY|noFollowNonBlock, 0)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", "", err
	}
	if !info.Mode().IsRegular() || info.Size() > maxFile {
		return "", "", errors.New(file + " is not a plan file plansmith writes")
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxFile+1))
	if err != nil {
		return "", "", err
	}
	if n > maxFile {
		return "", "", errors.New(file + " is not a plan file plansmith writes")
	}
	return rel, hex.EncodeToString(h.Sum(nil)), nil
}

// rel names file as the record does: its path relative to the project's
// real path, slash-separated.
func (l Ledger) rel(file string) (string, error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(file))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(l.project, filepath.Join(dir, filepath.Base(file)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || strings.ContainsAny(rel, "\n") {
		return "", fmt.Errorf("%s is not in the project %s", file, l.project)
	}
	return filepath.ToSlash(rel), nil
}
