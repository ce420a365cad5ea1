// Package scripted keeps the bookkeeping the two scripted model servers
// share: modelserver, which speaks Claude Code's Messages API, and
// codexserver, which speaks Codex's Responses API. A server decodes a
// request and encodes its reply in its own API; the Book decides which
// scripted reply answers it and records what tests assert on afterwards.
//
// A Book holds the main script and, for modelserver's sub-agents, routes:
// scripts of their own for the requests whose text contains a route's match.
// Each script answers its requests strictly in order. A request past the end
// of its script is an overrun; after MaxOverruns of those (all scripts
// together) the server refuses, so a client stuck in a loop cannot run
// forever. Requests without tools are side calls (titles, summaries) and
// only counted. Every method locks, so the servers keep no lock of their own.
package scripted

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// MaxOverruns bounds how many requests past the end of a script are
// answered before the server starts refusing them.
const MaxOverruns = 20

// SideText is the reply to side calls (requests without tools).
const SideText = "Scripted session"

// maxBody caps a request body; the clients' requests are at most a few
// hundred KiB.
const maxBody = 32 << 20

// Outcome says how Take answered a request.
type Outcome int

const (
	// Scripted: the reply is the script's next one.
	Scripted Outcome = iota
	// Overrun: the script was used up; answer with the server's overrun text.
	Overrun
	// Exhausted: too many overruns; refuse the request with an error.
	Exhausted
)

// Book is a scripted server's state: its scripts, what it answered, and the
// ids it issued. Reply and Request are the server's own types.
type Book[Reply, Request any] struct {
	mu        sync.Mutex
	scripts   []*script[Reply, Request] // [0] is the main script, then the routes in the order added
	overruns  int
	sideCalls int
	unhandled []string
	tools     map[string]string // tool call id → tool name
	ids       int
}

// script is one conversation's replies and the requests they answered.
type script[Reply, Request any] struct {
	match    string // the route's match text; "" for the main script
	replies  []Reply
	next     int
	requests []Request
}

// NewBook returns a Book whose main script is replies.
func NewBook[Reply, Request any](replies []Reply) *Book[Reply, Request] {
	return &Book[Reply, Request]{
		scripts: []*script[Reply, Request]{{replies: replies}},
		tools:   map[string]string{},
	}
}

// AddRoute gives the requests whose text contains match (see RouteFor) a
// script of their own. Routes are tried in the order they were added.
func (b *Book[Reply, Request]) AddRoute(match string, replies []Reply) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.scripts = append(b.scripts, &script[Reply, Request]{match: match, replies: replies})
}

// RouteFor returns the match of the first route that text contains, or ""
// (the main script).
func (b *Book[Reply, Request]) RouteFor(text string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.scripts[1:] {
		if strings.Contains(text, s.match) {
			return s.match
		}
	}
	return ""
}

// Take answers one request with the next reply of the script of route (""
// for the main script, else a match RouteFor returned). record makes the
// request's record, given its index within that script and whether it is an
// overrun; Take keeps it unless the outcome is Exhausted, and returns it.
// On Overrun and Exhausted the returned reply is the zero Reply.
func (b *Book[Reply, Request]) Take(route string, record func(index int, overrun bool) Request) (Reply, Request, Outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var reply Reply
	s := b.script(route)
	if s == nil {
		panic("scripted: no route " + route)
	}
	outcome := Scripted
	switch {
	case s.next < len(s.replies):
		reply = s.replies[s.next]
		s.next++
	case b.overruns >= MaxOverruns:
		return reply, record(len(s.requests), true), Exhausted
	default:
		b.overruns++
		outcome = Overrun
	}
	rec := record(len(s.requests), outcome == Overrun)
	s.requests = append(s.requests, rec)
	return reply, rec, outcome
}

// script returns the script of route; b.mu must be held.
func (b *Book[Reply, Request]) script(route string) *script[Reply, Request] {
	for _, s := range b.scripts {
		if s.match == route {
			return s
		}
	}
	return nil
}

// SideCall counts a request without tools and returns an id for its answer.
func (b *Book[Reply, Request]) SideCall(prefix string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sideCalls++
	return b.newID(prefix)
}

// NotFound records a request no endpoint of the server handles.
func (b *Book[Reply, Request]) NotFound(r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unhandled = append(b.unhandled, r.Method+" "+r.URL.Path)
}

// NewID returns a fresh id with prefix, e.g. "msg_e2e0007".
func (b *Book[Reply, Request]) NewID(prefix string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.newID(prefix)
}

// NewToolID returns a fresh id with prefix for a call of tool, so that the
// result the client sends back can name the tool (ToolOf).
func (b *Book[Reply, Request]) NewToolID(prefix, tool string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.newID(prefix)
	b.tools[id] = tool
	return id
}

// ToolOf returns the tool of a call id NewToolID issued, or "".
func (b *Book[Reply, Request]) ToolOf(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tools[id]
}

// newID returns a fresh id; b.mu must be held.
func (b *Book[Reply, Request]) newID(prefix string) string {
	b.ids++
	return fmt.Sprintf("%s_e2e%04d", prefix, b.ids)
}

// Requests returns a copy of the main script's requests, in arrival order.
func (b *Book[Reply, Request]) Requests() []Request {
	return b.RouteRequests("")
}

// RouteRequests returns a copy of the requests the route with match
// answered, in arrival order (their indexes count within the route).
func (b *Book[Reply, Request]) RouteRequests(match string) []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.script(match); s != nil {
		return append([]Request(nil), s.requests...)
	}
	return nil
}

// Remaining is how many scripted replies have not been used, the routes'
// included.
func (b *Book[Reply, Request]) Remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, s := range b.scripts {
		n += len(s.replies) - s.next
	}
	return n
}

// Overruns is how many requests arrived after their script ran out.
func (b *Book[Reply, Request]) Overruns() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.overruns
}

// SideCalls is how many requests without tools were answered.
func (b *Book[Reply, Request]) SideCalls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sideCalls
}

// Unhandled lists "METHOD /path" of the requests no endpoint handled.
func (b *Book[Reply, Request]) Unhandled() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.unhandled...)
}

// ReadBody reads a request's body, up to a cap far above what the clients
// send.
func ReadBody(r *http.Request) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r.Body, maxBody))
}
