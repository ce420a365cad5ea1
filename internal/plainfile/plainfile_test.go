package plainfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, []byte("hello"), 0o644))
	data, err := Read(file, 5)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))
	_, err = Read(file, 4)
	assert.ErrorIs(t, err, ErrTooLarge)

	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(file, link))
	data, err = Read(link, 10)
	require.NoError(t, err, "a link to a file is followed")
	assert.Equal(t, "hello", string(data))

	_, err = Read(filepath.Join(dir, "missing"), 10)
	assert.True(t, IsNotExist(err))
	_, err = Read(dir, 10)
	assert.ErrorContains(t, err, "not a regular file")

	// Neither a FIFO nor a link to one holds the reader up.
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	require.NoError(t, os.Symlink(fifo, filepath.Join(dir, "to-fifo")))
	for _, p := range []string{fifo, filepath.Join(dir, "to-fifo"), "/dev/zero"} {
		done := make(chan error, 1)
		go func() { _, err := Read(p, 1<<20); done <- err }()
		select {
		case err := <-done:
			assert.Error(t, err, p)
		case <-time.After(5 * time.Second):
			t.Fatalf("Read(%s) did not return", p)
		}
	}
}

// The kernel's files pass for regular ones: a link to one is refused, as
// /proc/kmsg would hold the reader (review BL5; /proc/self/status stands
// in for it here, being regular and harmless to open).
func TestAKernelFileIsNotRead(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	link := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.Symlink("/proc/self/status", link))
	_, err := Read(link, 1<<20)
	assert.ErrorContains(t, err, "a file of the kernel's")
	assert.False(t, systemFile("/dev/shm/project/.claude/plansmith.yaml"), "/dev/shm is an ordinary folder")
}

// Read and Head read what io.ReadAll would, whatever the file's size
// against the limit and the buffer made for it, and one allocation holds
// a file of known size (review FE: a 300 KiB snapshot took ten).
func TestReadSizes(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 255, 256, 257, 511, 512, 513, 4095, 4096, 4097, 300 << 10} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte('a' + i%26)
		}
		file := filepath.Join(dir, "f")
		require.NoError(t, os.WriteFile(file, data, 0o644))
		for _, limit := range []int{0, 1, size - 1, size, size + 1, 2 * size, 1 << 20} {
			if limit < 0 {
				continue
			}
			got, err := Read(file, int64(limit))
			if size > limit {
				assert.ErrorIs(t, err, ErrTooLarge, "%d bytes, limit %d", size, limit)
			} else {
				require.NoError(t, err)
				assert.Equal(t, data, got, "%d bytes, limit %d", size, limit)
			}
			head, err := Head(file, int64(limit))
			require.NoError(t, err)
			assert.Equal(t, data[:min(size, limit)], head, "%d bytes, head %d", size, limit)
		}
	}
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, make([]byte, 300<<10), 0o644))
	f, err := os.Open(big)
	require.NoError(t, err)
	defer f.Close()
	read := 0
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := f.Seek(0, 0); err == nil {
			b, _ := readAll(f, 300<<10)
			read = len(b)
		}
	})
	assert.Equal(t, 300<<10, read)
	assert.Equal(t, 1.0, allocs, "one buffer for a file of known size")
}

// A file far larger than the limit is read into a buffer made for the
// limit, not for the file: a settings file the repository carries (read
// before every Bash command) or a snapshot may be a sparse file of any
// size, and a buffer made for its size would take that much memory.
func TestReadBufferIsBoundedByTheLimit(t *testing.T) {
	huge := filepath.Join(t.TempDir(), "huge")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30))
	require.NoError(t, f.Close())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Read(huge, 4<<10)
	assert.ErrorIs(t, err, ErrTooLarge)
	head, err := Head(huge, 4<<10)
	require.NoError(t, err)
	assert.Len(t, head, 4<<10)
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated to read 4 KiB of a 1 GiB file")
}

// readAll hands on a read's failure, as io.ReadAll does: only EOF ends a
// read well.
func TestReadAllFails(t *testing.T) {
	broken := errors.New("input/output error")
	got, err := readAll(io.MultiReader(strings.NewReader("part"), iotest.ErrReader(broken)), 10)
	assert.ErrorIs(t, err, broken)
	assert.Equal(t, "part", string(got))
}
