package plansmith

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"testing"
)

// No built program is committed: `go build ./cmd/plansmith` at the top of
// the checkout writes ./plansmith, and one such build (10 MB, soon stale)
// was committed once; a new engineer running ./plansmith ran it, not the
// code in front of them. The binary is built into build/ and bin/native/,
// both ignored.
func TestNoProgramIsTracked(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil || len(out) == 0 {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0}) {
		if isProgram(string(name)) {
			t.Errorf("%s is a built program; delete it from git (git rm --cached) and build into build/", name)
		}
	}
}

// isProgram reports whether the file at name starts as an ELF, Mach-O or
// PE executable does.
func isProgram(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false // deleted in the working tree: nothing to run
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return true
	case len(head) >= 4:
		switch binary.LittleEndian.Uint32(head) {
		case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe: // Mach-O, either byte order
			return true
		}
	}
	if len(head) >= 0x40 && bytes.HasPrefix(head, []byte("MZ")) {
		pe := int(binary.LittleEndian.Uint32(head[0x3c:]))
		return pe+4 <= len(head) && string(head[pe:pe+4]) == "PE\x00\x00"
	}
	return false
}
