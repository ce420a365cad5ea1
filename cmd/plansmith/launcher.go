package main

import (
	"bytes"
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

// relaunchIfSuperseded keeps a plugin tree's placed binary in step with the
// tree. The launcher places the checked prebuilt binary in <root>/bin/native/
// with a copy of the SHA256SUMS it was checked against; hooks then run it
// directly. A newer tree unpacked or copied over the old one (a release's
// archive into the same folder) brings new prebuilt binaries and a new
// SHA256SUMS but leaves bin/native/, which is not in the tree, so the old
// binary would go on answering the new hooks and commands. When this binary
// was started from <root>/bin/native/ and the tree's SHA256SUMS differs from
// the copy beside it (or there is no copy), we exec the launcher with
// PLANSMITH_REPLACE=1: it checks and places the tree's binary again and runs
// that, which then finds the copies equal. PLANSMITH_REPLACE set means this
// has happened once already: the binary runs, so nothing loops, and drops
// the variable so that the processes it starts check again. Two small
// reads per call; on Windows (no exec) the old binary keeps running until
// bin/native/ is deleted.
func relaunchIfSuperseded(getenv func(string) string, argv0 string) {
	if getenv("PLANSMITH_REPLACE") != "" {
		// It marks this one exec chain only: a process this binary starts
		// (a Codex app-server, a plansmith of its own) must not skip the
		// launcher's fast path and this check for good.
		_ = os.Unsetenv("PLANSMITH_REPLACE")
		return
	}
	if launcher := supersededLauncher(getenv, argv0); launcher != "" {
		env := append(os.Environ(), "PLANSMITH_REPLACE=1")
		_ = execve(launcher, append([]string{launcher}, os.Args[1:]...), env)
	}
}

// supersededLauncher is the launcher to exec when this binary, started as
// argv0, is a placed plugin binary that its tree has superseded; else "".
func supersededLauncher(getenv func(string) string, argv0 string) string {
	if getenv("PLANSMITH_REPLACE") != "" {
		return ""
	}
	root := placedTree(argv0)
	if root == "" {
		return ""
	}
	tree, err := os.ReadFile(treeSums(root))
	if err != nil {
		return "" // a source checkout, or a tree without prebuilt binaries
	}
	placed, err := os.ReadFile(filepath.Join(filepath.Dir(argv0), "SHA256SUMS"))
	if err == nil && bytes.Equal(placed, tree) {
		return ""
	}
	launcher := treeLauncher(root)
	if info, err := os.Stat(launcher); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	return launcher
}

// placedTree is the folder <root> when bin is <root>/bin/native/<name>,
// where a plugin tree's launcher places the binary it checked; else "".
// Whether <root> is a plugin tree is for the caller to see (treeSums).
func placedTree(bin string) string {
	native := filepath.Dir(bin)
	if filepath.Base(native) != "native" || filepath.Base(filepath.Dir(native)) != "bin" {
		return ""
	}
	return filepath.Dir(filepath.Dir(native))
}

// treeSums is the list of a plugin tree's prebuilt binaries and their
// checksums, the file that tells a tree made by make dist from a checkout.
func treeSums(root string) string { return filepath.Join(root, "bin", "prebuilt", "SHA256SUMS") }

// treeLauncher is a plugin tree's launcher, bin/plansmith.
func treeLauncher(root string) string { return filepath.Join(root, "bin", "plansmith") }
