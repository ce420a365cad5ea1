package loop

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/plansmith/plansmith"
	"github.com/plansmith/plansmith/state"
)

// preCheckedCommands are hooks/hooks.json's commands that look for a loop
// with shell built-ins before they start the binary, by subcommand.
func preCheckedCommands(t *testing.T) map[string]string {
	t.Helper()
	all, err := plansmith.HookCommands()
	require.NoError(t, err)
	out := map[string]string{}
	for sub, command := range all {
		if strings.Contains(command, "exit 0") {
			out[sub] = command
		}
	}
	require.Len(t, out, 6, "stop, pretooluse-loop, userpromptsubmit, sessionstart, sessionend and stopfailure look first")
	return out
}

// preCheckShells are the shells Claude Code may run a hook command with:
// /bin/sh (dash on Debian) and bash started as sh, so in POSIX mode
// (macOS's /bin/sh, and /bin/sh on many Linuxes), through a link named sh
// in dir.
func preCheckShells(t *testing.T, dir string) []preCheckShell {
	t.Helper()
	out := []preCheckShell{{"sh", "/bin/sh"}}
	if bash, err := exec.LookPath("bash"); err == nil {
		link := filepath.Join(dir, "bash-as-sh", "sh")
		require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
		require.NoError(t, os.Symlink(bash, link))
		out = append(out, preCheckShell{"bash as sh", link})
	}
	return out
}

type preCheckShell struct{ name, path string }

// TestHooksJSONPreCheckFindsWhatHookProjectFinds holds hooks/hooks.json's
// look for a loop to hookProject: whenever the binary would take a hook
// call to a state entry (anything an lstat finds there, or an lstat error
// other than "not there", on which it refuses), the shell must have started
// it. Hostile variables (CDPATH, ENV, BASH_ENV, IFS, exported functions
// named like the check's own and like cd) are set for every run.
func TestHooksJSONPreCheckFindsWhatHookProjectFinds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks.json's commands run in a POSIX shell")
	}
	commands := preCheckedCommands(t)
	base := t.TempDir()
	// nobody may enter the test's folders (t.TempDir makes them 0700).
	require.NoError(t, os.Chmod(filepath.Dir(base), 0o755))
	require.NoError(t, os.Chmod(base, 0o755))
	root := filepath.Join(base, "plugin")
	native := filepath.Join(root, "bin", "native", "plansmith")
	require.NoError(t, os.MkdirAll(filepath.Dir(native), 0o755))
	require.NoError(t, os.WriteFile(native, []byte("#!/bin/sh\necho ran\n"), 0o755))
	hostile := filepath.Join(base, "hostile")
	require.NoError(t, os.MkdirAll(filepath.Join(hostile, "cdpath", "."), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(hostile, "env.sh"), []byte("echo sourced\n"), 0o644))

	n := 0
	fresh := func(name string) string {
		n++
		dir := filepath.Join(base, strconv.Itoa(n)+name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	mk := func(dirs ...string) {
		for _, d := range dirs {
			require.NoError(t, os.MkdirAll(d, 0o755))
		}
	}
	statePath := func(dir string) string { return state.Paths{Project: dir}.State() }
	file := func(dir string) {
		mk(filepath.Dir(statePath(dir)))
		require.NoError(t, os.WriteFile(statePath(dir), []byte("x"), 0o644))
	}
	// A private folder nobody may search, owned by the test's user.
	private := filepath.Join(base, "private")
	mk(filepath.Join(private, "claude"))
	require.NoError(t, os.WriteFile(filepath.Join(private, "claude", "plansmith.local.md"), []byte("x"), 0o644))
	require.NoError(t, os.Chmod(private, 0o700))
	t.Cleanup(func() { os.Chmod(private, 0o755) })

	type layout struct {
		project string // $CLAUDE_PROJECT_DIR
		cwd     string // the hook's working folder, which is the input's cwd
		pwd     string // $PWD passed down, when not cwd
		// want: "start" (hookProject finds a state entry), "nothing" (it
		// finds none) or "start anyway" (the shell cannot tell, so the
		// binary decides); each case also asks that the binary start
		// whenever hookProject finds a state entry.
		want     string
		nonRoot  bool // judged as nobody
		gone     bool // cwd is removed once the shell stands in it
		linuxMax bool // needs Linux's PATH_MAX of 4096
	}
	cases := map[string]func() layout{
		"no state anywhere": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b", ".claude"), filepath.Join(p, ".claude"))
			return layout{project: p, cwd: filepath.Join(p, "a", "b"), want: "nothing"}
		},
		"state in the project": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b"))
			file(p)
			return layout{project: p, cwd: filepath.Join(p, "a", "b"), want: "start"}
		},
		"state in a folder between": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b", "c"))
			file(filepath.Join(p, "a"))
			return layout{project: p, cwd: filepath.Join(p, "a", "b", "c"), want: "start"}
		},
		"a FIFO at the state's name": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", ".claude"))
			require.NoError(t, syscall.Mkfifo(statePath(filepath.Join(p, "a")), 0o644))
			return layout{project: p, cwd: filepath.Join(p, "a"), want: "start"}
		},
		"spaces, quotes, glob characters and a newline in the path": func() layout {
			p := fresh("we ir*d [x]?\n'\"$(false)`\\")
			mk(filepath.Join(p, "a b", "c*"))
			file(filepath.Join(p, "a b"))
			return layout{project: p, cwd: filepath.Join(p, "a b", "c*"), want: "start"}
		},
		"spaces, quotes, glob characters and a newline in the path, no state": func() layout {
			p := fresh("we ir*d [x]?\n'\"$(false)`\\")
			mk(filepath.Join(p, "a b", "c*"), filepath.Join(p, "a b", ".claude"))
			return layout{project: p, cwd: filepath.Join(p, "a b", "c*"), want: "nothing"}
		},
		"working folder outside the project, no state": func() layout {
			p, o := fresh("p"), fresh("o")
			return layout{project: p, cwd: o, want: "nothing"}
		},
		"working folder outside the project, state in the project": func() layout {
			p, o := fresh("p"), fresh("o")
			file(p)
			return layout{project: p, cwd: o, want: "start"}
		},
		"working folder gone": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "gone"))
			return layout{project: p, cwd: filepath.Join(p, "a", "gone"), gone: true, want: "start anyway"}
		},
		"working folder outside the project, state there": func() layout {
			p, o := fresh("p"), fresh("o")
			file(o)
			return layout{project: p, cwd: o, want: "start"}
		},
		"working folder above the project, state between": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b"))
			file(filepath.Join(p, "a"))
			return layout{project: filepath.Join(p, "a", "b"), cwd: p, want: "nothing"}
		},
		"project folder spelled with a doubled slash": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b", "c"))
			file(filepath.Join(p, "a"))
			return layout{project: p + "//", cwd: filepath.Join(p, "a", "b", "c"), want: "start"}
		},
		"project folder spelled with a dot": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b", "c"))
			file(filepath.Join(p, "a"))
			return layout{project: p + "/.", cwd: filepath.Join(p, "a", "b", "c"), want: "start"}
		},
		"project folder spelled with ..": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b", "c"))
			file(filepath.Join(p, "a"))
			return layout{project: filepath.Join(p, "a", "b") + "/../..", cwd: filepath.Join(p, "a", "b", "c"), want: "start"}
		},
		"project folder not absolute (Git Bash's C:/… next to a /c/… $PWD)": func() layout {
			// Here C:/Users/x is a folder below the working folder, as it
			// would be a folder on Windows, with no state in either.
			p := fresh("p")
			mk(filepath.Join(p, "C:", "Users", "x", ".claude"))
			return layout{project: "C:/Users/x", cwd: p, want: "start anyway"}
		},
		"project folder with a trailing slash, no state": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b"))
			return layout{project: p + "/", cwd: filepath.Join(p, "a", "b"), want: "nothing"}
		},
		"a dangling link at the state's name in a folder between": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b", "c"), filepath.Join(p, "a", ".claude"))
			require.NoError(t, os.Symlink("gone", statePath(filepath.Join(p, "a"))))
			return layout{project: p, cwd: filepath.Join(p, "a", "b", "c"), want: "start"}
		},
		".claude is a link to itself": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b"))
			require.NoError(t, os.Symlink(".claude", filepath.Join(p, "a", ".claude")))
			return layout{project: p, cwd: filepath.Join(p, "a", "b"), want: "start"}
		},
		".claude is a file": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a"))
			require.NoError(t, os.WriteFile(filepath.Join(p, "a", ".claude"), nil, 0o644))
			return layout{project: p, cwd: filepath.Join(p, "a"), want: "nothing"}
		},
		"launched from a linked path: $PWD is the link, the input's cwd the real folder": func() layout {
			p := fresh("p")
			deep := filepath.Join(p, "a", "b", "c")
			mk(deep)
			file(filepath.Join(p, "a"))
			link := filepath.Join(fresh("l"), "link")
			require.NoError(t, os.Symlink(deep, link))
			return layout{project: p, cwd: deep, pwd: link, want: "start"}
		},
		"launched from a linked path, no state": func() layout {
			p := fresh("p")
			deep := filepath.Join(p, "a", "b", "c")
			mk(deep)
			link := filepath.Join(fresh("l"), "link")
			require.NoError(t, os.Symlink(deep, link))
			return layout{project: p, cwd: deep, pwd: link, want: "nothing"}
		},
		"a state path one byte too long to look up": func() layout {
			p := fresh("p")
			return layout{project: p, cwd: longDir(t, p, 4096-len("/.claude/plansmith.local.md")), want: "start", linuxMax: true}
		},
		"the longest state path that can be looked up": func() layout {
			p := fresh("p")
			return layout{project: p, cwd: longDir(t, p, 4095-len("/.claude/plansmith.local.md")), want: "nothing", linuxMax: true}
		},
		"a .claude folder that cannot be searched": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b", ".claude"))
			require.NoError(t, os.Chmod(filepath.Join(p, "a", "b", ".claude"), 0o600))
			t.Cleanup(func() { os.Chmod(filepath.Join(p, "a", "b", ".claude"), 0o755) })
			return layout{project: p, cwd: filepath.Join(p, "a", "b"), want: "start", nonRoot: true}
		},
		"a folder between that cannot be searched": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b"))
			require.NoError(t, os.Chmod(filepath.Join(p, "a"), 0o600))
			t.Cleanup(func() { os.Chmod(filepath.Join(p, "a"), 0o755) })
			return layout{project: p, cwd: filepath.Join(p, "a", "b"), want: "start", nonRoot: true}
		},
		".claude is a link into a folder that cannot be searched": func() layout {
			p := fresh("p")
			mk(filepath.Join(p, "a", "b"))
			require.NoError(t, os.Symlink(filepath.Join(private, "claude"), filepath.Join(p, "a", ".claude")))
			return layout{project: p, cwd: filepath.Join(p, "a", "b"), want: "start", nonRoot: true}
		},
	}
	shells := preCheckShells(t, base)
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			l := build()
			if l.linuxMax && runtime.GOOS != "linux" {
				t.Skip("PATH_MAX is 4096 on Linux only")
			}
			var wrap []string
			if l.nonRoot {
				// Root makes the folders and enters the working folder (as
				// Claude Code did), nobody runs the shell.
				setpriv, err := exec.LookPath("setpriv")
				if os.Geteuid() != 0 || err != nil {
					t.Skip("needs root and setpriv, to run the check as nobody")
				}
				wrap = []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}
			}
			// What the binary would do, seen by this process. As root that
			// is not what nobody would see: those cases say what they want.
			finds := hasState(hookProject(l.cwd, l.project, ""))
			if !l.nonRoot {
				switch l.want {
				case "start":
					require.True(t, finds, "hookProject finds a state entry")
				case "nothing":
					require.False(t, finds, "hookProject finds no state entry")
				}
			}
			pwd := l.cwd
			if l.pwd != "" {
				pwd = l.pwd
			}
			for _, sh := range shells {
				for event, command := range commands {
					argv := append(append([]string{}, wrap...), sh.path, "-c", command)
					if l.gone {
						argv = append(append([]string{}, wrap...), "/bin/sh", "-c",
							`cd "$1" && rmdir "$1" && exec "$2" -c "$3"`, "sh", l.cwd, sh.path, command)
						mk(l.cwd)
					}
					cmd := exec.Command(argv[0], argv[1:]...)
					cmd.Dir = l.cwd
					if l.gone {
						cmd.Dir = filepath.Dir(l.cwd)
					}
					cmd.Env = []string{
						"PATH=" + os.Getenv("PATH"),
						"CLAUDE_PLUGIN_ROOT=" + root,
						"CLAUDE_PROJECT_DIR=" + l.project,
						"PWD=" + pwd,
						"CDPATH=" + filepath.Join(hostile, "cdpath"),
						"ENV=" + filepath.Join(hostile, "env.sh"),
						"BASH_ENV=" + filepath.Join(hostile, "env.sh"),
						"IFS=/",
						"BASH_FUNC_cd%%=() { echo cd-function; }",
						"BASH_FUNC_l%%=() { return 1; }",
						"BASH_FUNC_w%%=() { return 1; }",
						"BASH_FUNC_f%%=() { return 1; }",
					}
					var stderr strings.Builder
					cmd.Stderr = &stderr
					out, err := cmd.Output()
					require.NoError(t, err, "%s, %s: %s%s", sh.name, event, out, stderr.String())
					started := string(out) == "ran\n"
					if !started {
						assert.Empty(t, string(out), "%s, %s", sh.name, event)
					}
					if finds && !l.nonRoot {
						assert.True(t, started, "%s, %s: hookProject finds a state entry; the binary must start", sh.name, event)
					}
					switch l.want {
					case "start", "start anyway":
						assert.True(t, started, "%s, %s: the binary must start", sh.name, event)
					case "nothing":
						assert.False(t, started, "%s, %s: no loop, nothing to start", sh.name, event)
					}
				}
			}
		})
	}
}

// longDir makes and returns a folder under dir whose path is n bytes long.
func longDir(t *testing.T, dir string, n int) string {
	t.Helper()
	p := dir
	for len(p)+1+200 < n {
		p += "/" + strings.Repeat("d", 200)
	}
	require.Greater(t, n-len(p)-1, 0)
	p += "/" + strings.Repeat("e", n-len(p)-1)
	require.Len(t, p, n)
	require.NoError(t, os.MkdirAll(p, 0o755))
	return p
}
