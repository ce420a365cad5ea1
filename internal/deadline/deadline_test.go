package deadline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestWithin(t *testing.T) {
	late := func(why string) string { return "late: " + why }
	assert.Equal(t, "done", Within(time.Now(), time.Minute, func() string { return "done" }, late))
	assert.Equal(t, "late: failed (boom)", Within(time.Now(), time.Minute, func() string { panic("boom") }, late))
	release := make(chan struct{})
	defer close(release)
	assert.Equal(t, "late: did not finish within 20ms",
		Within(time.Now(), 20*time.Millisecond, func() string { <-release; return "done" }, late))
	// The limit counts from start: time already spent is not given again.
	assert.Equal(t, "late: did not finish within 1s",
		Within(time.Now().Add(-time.Second), time.Second, func() string { <-release; return "done" }, late))
}
