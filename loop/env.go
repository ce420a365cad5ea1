package loop

import (
	"fmt"
	"io"
	"time"

	"github.com/plansmith/plansmith/state"
)

// Env is everything plansmith reads from or writes to its process: the
// streams, the environment, the working directory and the clock. The
// binary passes the real ones; tests and benchmarks pass their own. The
// loop itself writes only one-line notes to Stderr.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	Now    func() time.Time
}

// Paths locates the project: cwd when the caller knows it (a hook's
// input), else $CLAUDE_PROJECT_DIR, else the working directory.
func (e Env) Paths(cwd string) (state.Paths, error) {
	if cwd != "" {
		return state.Paths{Project: cwd}, nil
	}
	if d := e.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return state.Paths{Project: d}, nil
	}
	wd, err := e.Getwd()
	if err != nil {
		return state.Paths{}, fmt.Errorf("finding the project directory: %w", err)
	}
	return state.Paths{Project: wd}, nil
}

// note writes one line for the user on stderr, prefixed "plansmith: ".
func (e Env) note(format string, a ...any) {
	for i, v := range a {
		if err, ok := v.(error); ok {
			a[i] = Plain(err)
		}
	}
	fmt.Fprintf(e.Stderr, "plansmith: "+format+"\n", a...)
}
