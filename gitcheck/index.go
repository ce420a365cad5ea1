package gitcheck

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// gitIndexLimit bounds the index read for submodules (a few MiB for a
// hundred thousand files).
const gitIndexLimit = 256 << 20

// gitlinks lists the submodule paths (mode 160000) in a git index file:
// none when there is no index. A split index (core.splitIndex, which git
// status writes as it refreshes) keeps most entries in a shared file
// beside it, sharedindex.<hash>: both are read (review CJ3: every git
// command was refused once git status had split the index). An entry the
// split part deletes is still counted, so the list may hold a path git no
// longer has: it is only looked into (a folder with a .git). An entry of
// the split part that replaces a shared one keeps no path of its own; when
// one becomes a submodule, every path of the shared file is listed. An
// index it cannot read entry by entry (a version it does not know) is an
// error.
func gitlinks(path string) ([]string, error) {
	links, shared, replaced, err := indexGitlinks(path, false)
	if err != nil || shared == nil {
		return links, err
	}
	// The hash is 20 bytes (SHA-1) or 32 (SHA-256), which the link does
	// not say: every file either names is read, so that one planted under
	// the other length cannot stand in for the one git reads.
	var names []string
	for _, size := range []int{20, 32} {
		if len(shared) < size {
			break
		}
		candidate := filepath.Join(filepath.Dir(path), "sharedindex."+hex.EncodeToString(shared[:size]))
		if _, ok := kernelPath(candidate); !ok {
			return nil, fmt.Errorf("the shared index %s leads through /proc or /dev/fd", candidate)
		}
		if plainfile.Present(candidate) {
			names = append(names, candidate)
		}
	}
	if len(names) == 0 {
		if strings.Trim(hex.EncodeToString(shared[:20]), "0") == "" {
			return links, nil // a null base: nothing is shared
		}
		return nil, errors.New("a split index whose shared file is missing")
	}
	for _, name := range names {
		more, again, _, err := indexGitlinks(name, replaced)
		if err != nil {
			return nil, fmt.Errorf("its shared index %s: %v", name, err)
		}
		if again != nil {
			return nil, fmt.Errorf("its shared index %s is split again", name)
		}
		for _, l := range more {
			if !slices.Contains(links, l) {
				links = append(links, l)
			}
		}
	}
	return links, nil
}

// indexGitlinks reads one index file: its gitlinks (every path when all),
// and, when it is the split part of an index, the data of its link
// extension (the shared file's hash, then bitmaps) and whether an entry
// without a path (one replacing a shared entry) is a gitlink.
func indexGitlinks(path string, all bool) (links []string, shared []byte, replaced bool, err error) {
	data, err := plainfile.Read(path, gitIndexLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, nil, false, errors.New("no index signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, nil, false, fmt.Errorf("index version %d", version)
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	at := 12
	prev := ""
	for i := 0; i < n; i++ {
		if at+62 > len(data) {
			return nil, nil, false, errors.New("index entries cut short")
		}
		mode := binary.BigEndian.Uint32(data[at+24 : at+28])
		flags := binary.BigEndian.Uint16(data[at+60 : at+62])
		fixed := 62
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, nil, false, errors.New("extended flags in a version 2 index")
			}
			fixed += 2
		}
		start := at + fixed
		if start > len(data) {
			return nil, nil, false, errors.New("index entries cut short")
		}
		var name string
		if version == 4 {
			strip, size := binary.Uvarint(data[start:])
			if size <= 0 || int(strip) > len(prev) {
				return nil, nil, false, errors.New("a path the index cannot hold")
			}
			end := bytes.IndexByte(data[start+size:], 0)
			if end < 0 {
				return nil, nil, false, errors.New("index entries cut short")
			}
			name = prev[:len(prev)-int(strip)] + string(data[start+size:start+size+end])
			at = start + size + end + 1
		} else {
			end := bytes.IndexByte(data[start:], 0)
			if end < 0 {
				return nil, nil, false, errors.New("index entries cut short")
			}
			name = string(data[start : start+end])
			at += (fixed + end + 8) &^ 7
		}
		prev = name
		switch {
		case mode&0o170000 == 0o160000 && name == "":
			replaced = true
		case name != "" && (all || mode&0o170000 == 0o160000):
			links = append(links, name)
		}
	}
	// Extensions: a split index keeps entries in another file.
	for at+8 <= len(data)-20 {
		sig := string(data[at : at+4])
		size := int(binary.BigEndian.Uint32(data[at+4 : at+8]))
		if size < 0 || at+8+size > len(data) {
			break
		}
		if sig == "link" {
			shared = data[at+8 : at+8+size]
			if len(shared) < 20 {
				return nil, nil, false, errors.New("a split index link cut short")
			}
		}
		at += 8 + size
	}
	return links, shared, replaced, nil
}
