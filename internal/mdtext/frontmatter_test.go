package mdtext

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFrontmatter(t *testing.T) {
	front, ok := Frontmatter([]byte("---\na: 1\n---\nbody\n---\n"))
	require.True(t, ok)
	assert.Equal(t, "a: 1\n", string(front))
	_, ok = Frontmatter([]byte("# no frontmatter\n"))
	assert.False(t, ok)
	_, ok = Frontmatter([]byte("---\nunterminated\n"))
	assert.False(t, ok)
	front, ok = Frontmatter([]byte("\ufeff---\r\nname: x\r\n---x\r\n---\r\nbody"))
	require.True(t, ok, "a byte-order mark and CRLF lines")
	assert.Equal(t, "name: x\r\n---x\r\n", string(front), "only a line that is --- alone closes it")
}
