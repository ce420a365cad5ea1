package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// relaunchIfStale completes bin/plansmith's "build when stale" promise in a
// source checkout. The binary was started either by the launcher (which names
// itself in PLANSMITH_LAUNCHER) or, on the hooks' fast path, through
// <root>/bin/native/plansmith, a link to <root>/build/plansmith. If <root> is
// a source checkout (go.mod and cmd/plansmith/) and any source in it is newer
// than this executable, we exec <root>/bin/plansmith with PLANSMITH_REBUILD=1
// and it rebuilds. PLANSMITH_REBUILT marks a fresh build, so this never
// loops. A plugin tree made by `make dist` has no go.mod, so it is never
// checked: copying it changes file times, and that must not matter. Any
// error leaves the running binary in charge: a hook must still answer.
func relaunchIfStale(getenv func(string) string, argv0 string) {
	if getenv("PLANSMITH_REBUILT") != "" {
		return
	}
	root := checkoutRoot(getenv("PLANSMITH_LAUNCHER"), argv0)
	if root == "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	info, err := os.Stat(exe)
	if err != nil {
		return
	}
	if !newerSource(root, info.ModTime()) {
		return
	}
	launcher := filepath.Join(root, "bin", "plansmith")
	env := append(os.Environ(), "PLANSMITH_REBUILD=1")
	_ = execve(launcher, append([]string{launcher}, os.Args[1:]...), env)
}

// checkoutRoot finds the source checkout this binary runs for: the folder
// above the launcher's bin/, or above bin/native/ when the binary was started
// there. It returns "" when that folder is not a source checkout.
func checkoutRoot(launcher, argv0 string) string {
	var root string
	switch {
	case launcher != "":
		root = filepath.Dir(filepath.Dir(launcher))
	case filepath.Base(filepath.Dir(argv0)) == "native" && filepath.Base(filepath.Dir(filepath.Dir(argv0))) == "bin":
		root = filepath.Dir(filepath.Dir(filepath.Dir(argv0)))
	default:
		return ""
	}
	if !isSourceCheckout(root) {
		return ""
	}
	return root
}

// isSourceCheckout reports whether root holds the module's sources, the only
// place the launcher builds in.
func isSourceCheckout(root string) bool {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return false
	}
	info, err := os.Stat(filepath.Join(root, "cmd", "plansmith"))
	return err == nil && info.IsDir()
}

// newerSource reports whether a file the binary is built from (Go sources,
// go.mod/go.sum, embedded templates and plugin files) changed after t.
func newerSource(root string, t time.Time) bool {
	found := false
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || skipDirs[name]) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") {
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".md", ".txt", ".json", ".mod", ".sum":
		default:
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.ModTime().After(t) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// skipDirs hold nothing the binary is built from.
var skipDirs = map[string]bool{"build": true, "dist": true, "testdata": true, "node_modules": true, "e2e": true, "demo": true, "bench": true}
