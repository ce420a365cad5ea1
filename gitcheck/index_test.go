package gitcheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexEntry is one entry of a version 2 index a test writes.
type indexEntry struct {
	name string
	mode uint32
}

const gitlinkMode = 0o160000

// writeIndex writes a version 2 git index holding entries, with a link
// extension (a split index's pointer to its shared file) when link is not
// nil: link is the extension's data, the shared file's hash and then the
// bitmaps, which this reader does not need.
func writeIndex(t *testing.T, path string, entries []indexEntry, link []byte) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, uint32(2))
	binary.Write(&b, binary.BigEndian, uint32(len(entries)))
	for _, e := range entries {
		fixed := make([]byte, 62)
		binary.BigEndian.PutUint32(fixed[24:28], e.mode)
		binary.BigEndian.PutUint16(fixed[60:62], uint16(min(len(e.name), 0xfff)))
		b.Write(fixed)
		b.WriteString(e.name)
		size := (62 + len(e.name) + 8) &^ 7
		b.Write(make([]byte, size-62-len(e.name)))
	}
	if link != nil {
		b.WriteString("link")
		binary.Write(&b, binary.BigEndian, uint32(len(link)))
		b.Write(link)
	}
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:20])
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// sharedName is the file a split index's link of hash names beside it.
func sharedName(dir string, hash []byte) string {
	return filepath.Join(dir, "sharedindex."+hex.EncodeToString(hash))
}

func TestGitlinksOfAPlainIndex(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "index")
	links, err := gitlinks(index)
	require.NoError(t, err)
	assert.Empty(t, links, "no index at all")
	writeIndex(t, index, []indexEntry{{"a.go", 0o100644}, {"vendor/lib", gitlinkMode}, {"z", 0o120000}}, nil)
	links, err = gitlinks(index)
	require.NoError(t, err)
	assert.Equal(t, []string{"vendor/lib"}, links)
}

// A split index (core.splitIndex) keeps most entries in a shared file it
// names by hash: its gitlinks count, under either hash length (review CM,
// mutants L12 to L16 of the split-index reading survived every test).
func TestGitlinksOfASplitIndex(t *testing.T) {
	sha1 := bytes.Repeat([]byte{0xab}, 20)
	sha256 := bytes.Repeat([]byte{0xcd}, 32)
	bitmaps := make([]byte, 24) // two empty bitmaps, as far as this reader cares

	t.Run("SHA-1", func(t *testing.T) {
		dir := t.TempDir()
		index := filepath.Join(dir, "index")
		writeIndex(t, index, []indexEntry{{"new.go", 0o100644}}, append(sha1, bitmaps...))
		writeIndex(t, sharedName(dir, sha1), []indexEntry{{"a.go", 0o100644}, {"sub", gitlinkMode}}, nil)
		links, err := gitlinks(index)
		require.NoError(t, err)
		assert.Equal(t, []string{"sub"}, links)
	})
	t.Run("SHA-256", func(t *testing.T) {
		// A repository with SHA-256 object names names its shared file by
		// 32 bytes: read as 20 it would be missing.
		dir := t.TempDir()
		index := filepath.Join(dir, "index")
		writeIndex(t, index, nil, append(sha256, bitmaps...))
		writeIndex(t, sharedName(dir, sha256), []indexEntry{{"sub256", gitlinkMode}}, nil)
		links, err := gitlinks(index)
		require.NoError(t, err)
		assert.Equal(t, []string{"sub256"}, links)
	})
	t.Run("a null base shares nothing", func(t *testing.T) {
		dir := t.TempDir()
		index := filepath.Join(dir, "index")
		writeIndex(t, index, []indexEntry{{"own", gitlinkMode}}, append(make([]byte, 20), bitmaps...))
		links, err := gitlinks(index)
		require.NoError(t, err)
		assert.Equal(t, []string{"own"}, links)
	})
	t.Run("a missing shared file", func(t *testing.T) {
		// Not a null base: its gitlinks cannot be known.
		dir := t.TempDir()
		index := filepath.Join(dir, "index")
		writeIndex(t, index, nil, append(sha1, bitmaps...))
		_, err := gitlinks(index)
		assert.ErrorContains(t, err, "shared file is missing")
	})
	t.Run("a shared file split again", func(t *testing.T) {
		dir := t.TempDir()
		index := filepath.Join(dir, "index")
		writeIndex(t, index, nil, append(sha1, bitmaps...))
		writeIndex(t, sharedName(dir, sha1), []indexEntry{{"a", 0o100644}}, append(bytes.Repeat([]byte{0x11}, 20), bitmaps...))
		_, err := gitlinks(index)
		assert.ErrorContains(t, err, "split again")
	})
	t.Run("a replaced entry becomes a gitlink", func(t *testing.T) {
		// An entry of the split part that replaces a shared one keeps no
		// path: which path became a submodule cannot be told, so every
		// path of the shared file is listed.
		dir := t.TempDir()
		index := filepath.Join(dir, "index")
		writeIndex(t, index, []indexEntry{{"", gitlinkMode}}, append(sha1, bitmaps...))
		writeIndex(t, sharedName(dir, sha1), []indexEntry{{"a", 0o100644}, {"b/c", 0o100644}}, nil)
		links, err := gitlinks(index)
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"a", "b/c"}, links)
	})
	t.Run("a shared file named through /proc", func(t *testing.T) {
		// The index read through /proc/self/cwd names its shared file
		// there too: another file to git, which runs elsewhere.
		dir := t.TempDir()
		writeIndex(t, filepath.Join(dir, "index"), nil, append(sha1, bitmaps...))
		writeIndex(t, sharedName(dir, sha1), []indexEntry{{"a", 0o100644}}, nil)
		t.Chdir(dir)
		_, err := gitlinks("/proc/self/cwd/index")
		assert.ErrorContains(t, err, "/proc")
	})
}
