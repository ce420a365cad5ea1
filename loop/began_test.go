package loop

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestBeganIsTheProcessStartWhenKnown: a Stop hook began when its process
// was started, where the system tells, else when its work began (review
// DB2). A start it cannot tell (zero: no /proc, another system) or one
// after the work began is no bound, and the work's start stands: a zero
// time taken for the start made every later answer read as begun before
// any judgment, a repeat of it (review EB: that mutant survived).
func TestBeganIsTheProcessStartWhenKnown(t *testing.T) {
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := func(t time.Time) func() time.Time { return func() time.Time { return t } }
	assert.Equal(t, start, Env{}.Began(start), "not asked")
	assert.Equal(t, start, Env{Started: at(time.Time{})}.Began(start), "not known")
	assert.Equal(t, start, Env{Started: at(start.Add(time.Second))}.Began(start), "after the work began")
	assert.Equal(t, start.Add(-time.Second), Env{Started: at(start.Add(-time.Second))}.Began(start))
}
