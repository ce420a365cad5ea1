package scripted

import (
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rec is a request record as a server keeps one.
type rec struct {
	Text    string
	Index   int
	Overrun bool
}

func take(b *Book[string, rec], route, text string) (string, rec, Outcome) {
	return b.Take(route, func(index int, overrun bool) rec {
		return rec{Text: text, Index: index, Overrun: overrun}
	})
}

func TestTakeAnswersInOrderThenOverrunsThenRefuses(t *testing.T) {
	b := NewBook[string, rec]([]string{"one", "two"})
	assert.Equal(t, 2, b.Remaining())

	for i, want := range []string{"one", "two"} {
		reply, r, outcome := take(b, "", "q")
		assert.Equal(t, Scripted, outcome)
		assert.Equal(t, want, reply)
		assert.Equal(t, rec{Text: "q", Index: i}, r)
	}
	assert.Zero(t, b.Remaining())

	for i := 0; i < MaxOverruns; i++ {
		reply, r, outcome := take(b, "", "late")
		assert.Equal(t, Overrun, outcome)
		assert.Empty(t, reply)
		assert.Equal(t, rec{Text: "late", Index: 2 + i, Overrun: true}, r)
	}
	_, _, outcome := take(b, "", "too late")
	assert.Equal(t, Exhausted, outcome)

	got := b.Requests()
	require.Len(t, got, 2+MaxOverruns, "a refused request is not recorded")
	assert.False(t, got[1].Overrun)
	assert.True(t, got[2].Overrun)
	assert.Equal(t, MaxOverruns, b.Overruns())
}

func TestRoutesKeepTheirOwnScriptAndRecords(t *testing.T) {
	b := NewBook[string, rec]([]string{"main"})
	b.AddRoute("validator", []string{"v1", "v2"})
	b.AddRoute("critic", []string{"c1"})
	assert.Equal(t, 4, b.Remaining())

	assert.Equal(t, "validator", b.RouteFor("you are the validator of this plan"))
	assert.Equal(t, "validator", b.RouteFor("critic and validator"), "the first route added that matches wins")
	assert.Equal(t, "critic", b.RouteFor("the critic"))
	assert.Equal(t, "", b.RouteFor("plan the work"))

	reply, r, _ := take(b, "validator", "a")
	assert.Equal(t, "v1", reply)
	assert.Equal(t, 0, r.Index)
	reply, _, _ = take(b, "", "b")
	assert.Equal(t, "main", reply)
	reply, r, _ = take(b, "validator", "c")
	assert.Equal(t, "v2", reply)
	assert.Equal(t, 1, r.Index, "indexes count within the route")

	assert.Equal(t, []rec{{Text: "b"}}, b.Requests())
	assert.Equal(t, []rec{{Text: "a"}, {Text: "c", Index: 1}}, b.RouteRequests("validator"))
	assert.Nil(t, b.RouteRequests("nobody"))
	assert.Equal(t, 1, b.Remaining())

	// Overruns count across scripts.
	_, _, outcome := take(b, "validator", "d")
	assert.Equal(t, Overrun, outcome)
	_, _, outcome = take(b, "", "e")
	assert.Equal(t, Overrun, outcome)
	assert.Equal(t, 2, b.Overruns())

	assert.Panics(t, func() { take(b, "nobody", "f") }, "a route RouteFor never returned is a test's bug")
}

func TestIDsSideCallsAndUnhandled(t *testing.T) {
	b := NewBook[string, rec](nil)
	call := b.NewToolID("toolu", "Bash")
	msg := b.NewID("msg")
	side := b.SideCall("msg")
	assert.Equal(t, "toolu_e2e0001", call)
	assert.Equal(t, "msg_e2e0002", msg)
	assert.Equal(t, "msg_e2e0003", side)
	assert.Equal(t, "Bash", b.ToolOf(call))
	assert.Empty(t, b.ToolOf(msg), "only tool ids name a tool")
	assert.Equal(t, 1, b.SideCalls())
	assert.Zero(t, b.Remaining())

	b.NotFound(httptest.NewRequest("GET", "/v1/models", nil))
	assert.Equal(t, []string{"GET /v1/models"}, b.Unhandled())
}

// TestConcurrentRequests runs requests of two conversations at once, as a
// background sub-agent and the main agent do: each still gets its own
// replies in order, and every id is issued once (run with -race).
func TestConcurrentRequests(t *testing.T) {
	const n = 50
	main, sub := make([]string, n), make([]string, n)
	for i := range n {
		main[i], sub[i] = "m", "s"
	}
	b := NewBook[string, rec](main)
	b.AddRoute("sub", sub)
	var wg sync.WaitGroup
	ids := make(chan string, 2*n)
	for _, route := range []string{"", "sub"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				take(b, route, route)
				ids <- b.NewToolID("toolu", route)
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		assert.False(t, seen[id], "id %s issued twice", id)
		seen[id] = true
	}
	for _, route := range []string{"", "sub"} {
		got := b.RouteRequests(route)
		require.Len(t, got, n)
		for i, r := range got {
			assert.Equal(t, i, r.Index)
			assert.Equal(t, route, r.Text)
		}
	}
	assert.Zero(t, b.Remaining())
	assert.Zero(t, b.Overruns())
}
