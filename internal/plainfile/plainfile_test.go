package plainfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
