package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// relaunchIfStale completes bin/plansmith's "build when stale" promise.
// The launcher execs an existing binary at once and names itself in
// PLANSMITH_LAUNCHER; if any source in the plugin folder is newer than this
// executable, we exec the launcher again with PLANSMITH_REBUILD=1 and it
// rebuilds. PLANSMITH_REBUILT marks a fresh build, so this never loops.
// Any error leaves the running binary in charge: a hook must still answer.
func relaunchIfStale(getenv func(string) string) {
	launcher := getenv("PLANSMITH_LAUNCHER")
	if launcher == "" || getenv("PLANSMITH_REBUILT") != "" {
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
	root := filepath.Dir(filepath.Dir(launcher))
	if !newerSource(root, info.ModTime()) {
		return
	}
	env := append(os.Environ(), "PLANSMITH_REBUILD=1")
	_ = syscall.Exec(launcher, append([]string{launcher}, os.Args[1:]...), env)
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
var skipDirs = map[string]bool{"build": true, "testdata": true, "node_modules": true, "e2e": true, "demo": true, "bench": true}
