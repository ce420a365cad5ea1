package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIndexName(t *testing.T) {
	a, b := IndexName("sess-1"), IndexName("sess-2")
	assert.Len(t, a, 32)
	assert.NotEqual(t, a, b)
	assert.Equal(t, a, IndexName("sess-1"))
	assert.Regexp(t, `^[0-9a-f]{32}$`, IndexName("../../etc/passwd\n"))
}

func TestIndexEntryRoundTrip(t *testing.T) {
	for _, name := range []string{"plan.md", "a-b_c 1.md", "목표.md"} {
		got, ok := ParseIndexEntry(IndexEntry("sess-1", name), "sess-1")
		assert.True(t, ok, name)
		assert.Equal(t, name, got)
	}
}

func TestParseIndexEntryRefuses(t *testing.T) {
	cases := map[string]struct{ entry, session string }{
		"another session":       {IndexEntry("sess-2", "plan.md"), "sess-1"},
		"a session prefix":      {IndexEntry("sess-10", "plan.md"), "sess-1"},
		"empty session":         {IndexEntry("", "plan.md"), ""},
		"newline in session":    {IndexEntry("a\nplan=x.md", "plan.md"), "a\nplan=x.md"},
		"path":                  {IndexEntry("sess-1", "../plan.md"), "sess-1"},
		"absolute path":         {IndexEntry("sess-1", "/etc/plan.md"), "sess-1"},
		"hidden":                {IndexEntry("sess-1", ".plan.md"), "sess-1"},
		"not markdown":          {IndexEntry("sess-1", "plan.txt"), "sess-1"},
		"truncated":             {"session=sess-1\nplan=plan.md", "sess-1"},
		"trailing junk":         {IndexEntry("sess-1", "plan.md") + "x", "sess-1"},
		"empty":                 {"", "sess-1"},
		"two names on one line": {"session=sess-1\nplan=a.md\nb.md\n", "sess-1"},
	}
	for name, c := range cases {
		_, ok := ParseIndexEntry(c.entry, c.session)
		assert.False(t, ok, name)
	}
}
