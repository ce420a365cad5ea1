package install

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Codex runs a hook only once it is trusted: the /hooks review in its
// interactive CLI records the hash Codex computes for each hook definition
// as hooks.state."<key>".trusted_hash in the user's config.toml. Codex's app
// server exposes the same two steps to other clients — hooks/list (each hook
// with its key, currentHash and trustStatus) and config/batchWrite — and
// TrustCodexHooks takes that route for plansmith's own hooks, when the user
// asks for it (`install --agent codex --trust`). plansmith never computes a
// hash itself: it hands back the one Codex reported. The app server is
// marked experimental in Codex 0.169.0 (docs/codex.md).

// CodexTrustTimeout bounds one conversation with the app server.
const CodexTrustTimeout = 60 * time.Second

// codexHook is one hook as hooks/list reports it.
type codexHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	Enabled     *bool  `json:"enabled"`
	SourcePath  string `json:"sourcePath"`
}

// TrustCodexHooks records Codex's trust for the hooks install just wrote for
// self into hooksFile, as Codex sees them from project, through `codex
// app-server` run with env. It returns the events whose hooks it trusted
// (Stop, PreToolUse, …: Codex's keys for them, "<file>:pre_tool_use:0:0",
// are its own bookkeeping and mean nothing to a user), and fails when
// Codex lists none of them (in an untrusted project Codex does not read
// .codex/hooks.json) or does not report them trusted afterwards. A hook is
// plansmith's only when it comes from hooksFile and its command is, to the
// byte, one install writes for self: a repository's own .codex/hooks.json
// naming some file called plansmith is never trusted (review Y, B: its
// script then ran at every Codex session start).
func TrustCodexHooks(ctx context.Context, codex, project, hooksFile, self string, env []string) ([]string, error) {
	ours, err := ownCodexHook(hooksFile, self)
	if err != nil {
		return nil, err
	}
	want, err := CodexHooks(self)
	if err != nil {
		return nil, err
	}
	var trusted []string
	err = withAppServer(ctx, codex, project, env, func(c *rpc) error {
		mine, err := c.plansmithHooks(project, ours)
		if err != nil {
			return err
		}
		if len(mine) == 0 {
			return noneListed(project, hooksFile)
		}
		var edits []map[string]any
		for _, h := range mine {
			if h.TrustStatus != "trusted" {
				edits = append(edits, map[string]any{"keyPath": fmt.Sprintf("hooks.state.%q.trusted_hash", h.Key),
					"value": h.CurrentHash, "mergeStrategy": "upsert"})
			}
		}
		if len(edits) > 0 {
			if _, err := c.call("config/batchWrite", map[string]any{"edits": edits}); err != nil {
				return err
			}
		}
		after, err := c.plansmithHooks(project, ours)
		if err != nil {
			return err
		}
		for _, h := range after {
			if h.TrustStatus != "trusted" {
				return fmt.Errorf("codex still reports plansmith's %s as %s", hookNames([]string{h.event(want.Events())}), h.TrustStatus)
			}
		}
		// In the order install registers them, each once.
		for _, ev := range want.Events() {
			if slices.ContainsFunc(after, func(h codexHook) bool { return h.event(want.Events()) == ev }) {
				trusted = append(trusted, ev)
			}
		}
		return nil
	})
	return trusted, err
}

// CodexHookStatus asks Codex itself (hooks/list, as seen from project)
// whether it will run plansmith's hooks from hooksFile: "" when each of
// them is listed, trusted as it now stands and enabled, else why not.
// Codex lists no hook at all while the hooks feature is off in any of its
// config layers, and a hook changed since it was trusted as modified,
// which its config file alone does not tell (review BN4).
func CodexHookStatus(ctx context.Context, codex, project, hooksFile, self string, env []string) (string, error) {
	ours, err := ownCodexHook(hooksFile, self)
	if err != nil {
		return "", err
	}
	want, err := CodexHooks(self)
	if err != nil {
		return "", err
	}
	var why string
	err = withAppServer(ctx, codex, project, env, func(c *rpc) error {
		mine, err := c.plansmithHooks(project, ours)
		if err != nil {
			return err
		}
		listed := map[string]codexHook{}
		for _, h := range mine {
			if ev := strings.Split(h.Key, ":"); len(ev) >= 3 {
				listed[ev[len(ev)-3]] = h
			}
		}
		var events []string
		for _, ev := range want.Events() {
			if slices.Contains(codexEnforcing, ev) {
				events = append(events, ev)
			}
		}
		sort.Strings(events)
		var unlisted, off []string
		status := map[string][]string{} // trust status → events
		var statuses []string
		for _, ev := range events {
			h, ok := listed[snakeCase(ev)]
			switch {
			case !ok:
				unlisted = append(unlisted, ev)
			case h.Enabled != nil && !*h.Enabled:
				off = append(off, ev)
			case h.TrustStatus != "trusted":
				if status[h.TrustStatus] == nil {
					statuses = append(statuses, h.TrustStatus)
				}
				status[h.TrustStatus] = append(status[h.TrustStatus], ev)
			}
		}
		var problems []string
		if len(unlisted) > 0 {
			problems = append(problems, fmt.Sprintf("Codex does not list plansmith's %s from %s (its hooks feature is off, or it does not read that file from %s)", hookNames(unlisted), hooksFile, project))
		}
		if len(off) > 0 {
			problems = append(problems, fmt.Sprintf("Codex has plansmith's %s turned off", hookNames(off)))
		}
		for _, st := range statuses {
			problems = append(problems, fmt.Sprintf("Codex reports plansmith's %s as %s, and runs a hook only once it is trusted as it stands", hookNames(status[st]), st))
		}
		why = strings.Join(problems, "; ")
		return nil
	})
	return why, err
}

// ErrNoneListed is TrustCodexHooks' error when Codex lists none of the
// hooks install wrote: there is nothing it could trust.
var ErrNoneListed = errors.New("codex lists none of plansmith's hooks")

// noneListed says why Codex, asked from project, lists none of plansmith's
// hooks in hooksFile, which install has just written: a project's
// .codex/hooks.json is read only in a project Codex trusts (docs/codex.md),
// and the user's own file only while the hooks feature is on.
func noneListed(project, hooksFile string) error {
	if samePath(filepath.Dir(hooksFile), filepath.Join(project, ".codex")) {
		return fmt.Errorf("%w for %s: Codex reads a project's .codex/hooks.json only in a project it trusts. Open codex there and trust the folder when it asks (or run codex exec --trust there once), then run this again (were it trusted already, Codex's hooks feature would be off: codex features list shows it)", ErrNoneListed, project)
	}
	return fmt.Errorf("%w in %s for %s (is Codex's hooks feature turned off? codex features list shows it)", ErrNoneListed, hooksFile, project)
}

// event is the hook event h runs for, spelled as in events (PreToolUse)
// when one of them is the event its key names (pre_tool_use), else as the
// key has it. A key is "<hooks file>:<event>:<group>:<index>"; the file's
// path may hold a colon, so it is read from the end.
func (h codexHook) event(events []string) string {
	parts := strings.Split(h.Key, ":")
	if len(parts) < 3 {
		return h.Key
	}
	snake := parts[len(parts)-3]
	for _, ev := range events {
		if snakeCase(ev) == snake {
			return ev
		}
	}
	return snake
}

// hookNames names events' hooks: "Stop hook", "PreToolUse, Stop hooks".
func hookNames(events []string) string {
	if len(events) == 1 {
		return events[0] + " hook"
	}
	return strings.Join(events, ", ") + " hooks"
}

// ownCodexHook recognises plansmith's own hooks in what Codex lists: from
// hooksFile, with a command install writes for self, to the byte.
func ownCodexHook(hooksFile, self string) (func(codexHook) bool, error) {
	own, err := CodexHooks(self)
	if err != nil {
		return nil, err
	}
	return func(h codexHook) bool {
		return slices.Contains(own.Commands(), h.Command) && samePath(h.SourcePath, hooksFile)
	}, nil
}

// withAppServer runs talk with a `codex app-server` started in project
// with env, initialised, bounded by CodexTrustTimeout; the server is
// stopped after.
func withAppServer(ctx context.Context, codex, project string, env []string, talk func(*rpc) error) error {
	ctx, cancel := context.WithTimeout(ctx, CodexTrustTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir, cmd.Env = project, env
	ownProcessGroup(cmd)
	cmd.Cancel = func() error { return killProcessGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("codex app-server: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("codex app-server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s app-server: %w", codex, err)
	}
	// Its input closed, the server ends on its own and tidies its
	// temporary files (review BO10: killed at once, it left a folder in
	// CODEX_HOME/.tmp each time); one that does not is stopped.
	stop := sync.OnceFunc(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			_ = killProcessGroup(cmd)
			<-done
		}
	})
	defer stop()
	c := &rpc{w: stdin, r: bufio.NewReaderSize(stdout, 1<<20)}
	fail := func(err error) error {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (timed out)", err)
		}
		// What it wrote is whole once it has ended (read before, the
		// error output raced with its copying).
		stop()
		if s := codexSaid(stderr.String()); s != "" {
			err = fmt.Errorf("%w; codex said: %s", err, s)
		}
		return err
	}
	if _, err := c.call("initialize", map[string]any{"clientInfo": map[string]string{"name": "plansmith", "version": "install"}}); err != nil {
		return fail(err)
	}
	if err := c.notify("initialized"); err != nil {
		return fail(err)
	}
	if err := talk(c); err != nil {
		return fail(err)
	}
	return nil
}

// plansmithHooks lists the hooks Codex sees from project that are ours.
func (c *rpc) plansmithHooks(project string, ours func(codexHook) bool) ([]codexHook, error) {
	raw, err := c.call("hooks/list", map[string]any{"cwds": []string{project}})
	if err != nil {
		return nil, err
	}
	var res struct {
		Data []struct {
			Hooks []codexHook `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("codex app-server hooks/list: unreadable answer: %w", err)
	}
	var out []codexHook
	for _, d := range res.Data {
		for _, h := range d.Hooks {
			if ours(h) {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// samePath reports whether two paths name one file or folder, links
// resolved (the hooks file Codex lists and the one install wrote; a loop's
// recorded folder and the project).
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// rpc is a JSON-RPC conversation over the app server's stdio: one JSON
// object per line each way.
type rpc struct {
	w    io.Writer
	r    *bufio.Reader
	next int
}

func (c *rpc) send(m map[string]any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

func (c *rpc) notify(method string) error {
	if err := c.send(map[string]any{"method": method}); err != nil {
		return fmt.Errorf("codex app-server %s: %w", method, err)
	}
	return nil
}

// call sends a request and returns its result, skipping the notifications
// and other messages the server sends meanwhile.
func (c *rpc) call(method string, params any) (json.RawMessage, error) {
	c.next++
	id := c.next
	if err := c.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("codex app-server %s: %w", method, err)
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the app server closed its output")
			}
			return nil, fmt.Errorf("codex app-server %s: %w", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != id || m.Method != "" {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("codex app-server %s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

// codexSaid is what Codex wrote to its error output, as a user can read it
// in plansmith's message: its terminal colour codes taken out, blank lines
// dropped, and, when it is long, its end, where Codex puts the error (the
// first 300 bytes showed colour codes and an ERROR line cut short).
func codexSaid(stderr string) string {
	var lines []string
	for _, l := range strings.Split(stripANSI(stderr), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	s := strings.Join(lines, " / ")
	const most = 400
	if len(s) > most {
		cut := len(s) - most
		for cut < len(s) && s[cut]&0xC0 == 0x80 { // not the first byte of a rune
			cut++
		}
		s = "…" + s[cut:]
	}
	return s
}

// stripANSI removes terminal escape sequences (ESC [ … final byte, and a
// lone ESC with the byte after it).
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j // the final byte
			continue
		}
		i++ // ESC and the byte after it
	}
	return b.String()
}
