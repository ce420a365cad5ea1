package loop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"

	"github.com/plansmith/plansmith/internal/plainfile"
)

// gitIndexLimit bounds the index read for submodules (a few MiB for a
// hundred thousand files).
const gitIndexLimit = 256 << 20

// gitlinks lists the submodule paths (mode 160000) in a git index file:
// none when there is no index. An index it cannot read entry by entry
// (a version or a split index it does not know) is an error.
func gitlinks(path string) ([]string, error) {
	data, err := plainfile.Read(path, gitIndexLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("no index signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d", version)
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	at := 12
	var links []string
	prev := ""
	for i := 0; i < n; i++ {
		if at+62 > len(data) {
			return nil, errors.New("index entries cut short")
		}
		mode := binary.BigEndian.Uint32(data[at+24 : at+28])
		flags := binary.BigEndian.Uint16(data[at+60 : at+62])
		fixed := 62
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, errors.New("extended flags in a version 2 index")
			}
			fixed += 2
		}
		start := at + fixed
		if start > len(data) {
			return nil, errors.New("index entries cut short")
		}
		var name string
		if version == 4 {
			strip, size := binary.Uvarint(data[start:])
			if size <= 0 || int(strip) > len(prev) {
				return nil, errors.New("a path the index cannot hold")
			}
			end := bytes.IndexByte(data[start+size:], 0)
			if end < 0 {
				return nil, errors.New("index entries cut short")
			}
			name = prev[:len(prev)-int(strip)] + string(data[start+size:start+size+end])
			at = start + size + end + 1
		} else {
			end := bytes.IndexByte(data[start:], 0)
			if end < 0 {
				return nil, errors.New("index entries cut short")
			}
			name = string(data[start : start+end])
			at += (fixed + end + 8) &^ 7
		}
		prev = name
		if mode&0o170000 == 0o160000 {
			links = append(links, name)
		}
	}
	// Extensions: a split index keeps entries in another file.
	for at+8 <= len(data)-20 {
		sig := string(data[at : at+4])
		size := int(binary.BigEndian.Uint32(data[at+4 : at+8]))
		if sig == "link" {
			return nil, errors.New("a split index")
		}
		if size < 0 || at+8+size > len(data) {
			break
		}
		at += 8 + size
	}
	return links, nil
}
