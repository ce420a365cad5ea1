package lazyre

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompiledOnFirstUseOnly(t *testing.T) {
	r := New(`(a+)(b*)`) // declaring compiles nothing: a bad expression would not panic here
	bad := New(`(`)
	assert.Equal(t, []string{"aab", "aa", "b"}, r.FindStringSubmatch("xaab"))
	assert.True(t, r.MatchString("a"))
	assert.Equal(t, "aab", r.FindString("xaab"))
	assert.Same(t, r.Regexp(), r.Regexp())
	assert.Panics(t, func() { bad.MatchString("") })
}

func TestConcurrentFirstUse(t *testing.T) {
	r := New(`^\d+$`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.True(t, r.MatchString("42"))
		}()
	}
	wg.Wait()
}
