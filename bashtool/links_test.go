package bashtool

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linkTree makes a folder holding every kind of link a PATH entry can pass
// through and returns it: absolute and relative targets, targets with ".."
// and ".", chains, a loop, a dangling link, links to a file and to "/",
// a link back up the tree.
func linkTree(t *testing.T) string {
	root := t.TempDir()
	for _, d := range []string{"a/b/c", "a/bin", "p/bin", "p/sub/deep", "q"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "a/file"), []byte("x"), 0o644))
	for link, target := range map[string]string{
		"abs":          filepath.Join(root, "a/b"),
		"rel":          "a/b",
		"up":           "../" + filepath.Base(root) + "/p",
		"dotted":       "./a/./b/../bin",
		"chain":        "abs",
		"chain2":       "chain/c",
		"loop1":        "loop2",
		"loop2":        "loop1",
		"dangling":     "nowhere/at/all",
		"tofile":       "a/file",
		"toroot":       "/",
		"a/b/back":     "../..",
		"a/b/c/parent": "..",
		"q/intop":      "../p/sub",
		"q/abs2":       filepath.Join(root, "q"),
		"p/sub/out":    "../../a",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(root, link)))
	}
	return root
}

// links.eval gives what filepath.EvalSymlinks gives, path and failure
// alike, for every path through linkTree: each is asked from a fresh links
// and from one shared by all, in an order that differs from run to run, so
// nothing one answer learned leaks into another's.
func TestLinksEvalIsEvalSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("eval is EvalSymlinks itself there")
	}
	root := linkTree(t)
	names := []string{"abs", "rel", "up", "dotted", "chain", "chain2", "loop1", "dangling", "tofile", "toroot",
		"a", "b", "c", "back", "parent", "bin", "p", "sub", "deep", "q", "intop", "abs2", "out", "file", ".", "..", "", "missing"}
	var paths []string
	for _, a := range names {
		paths = append(paths, root+"/"+a, root+"/"+a+"/", root+"//"+a+"/.")
		for _, b := range names {
			paths = append(paths, root+"/"+a+"/"+b)
		}
	}
	r := rand.New(rand.NewPCG(rand.Uint64(), 1))
	for range 3000 {
		var p strings.Builder
		p.WriteString(root)
		for range 1 + r.IntN(5) {
			p.WriteString("/" + names[r.IntN(len(names))])
		}
		paths = append(paths, p.String())
	}
	paths = append(paths, "/", "//", "/..", "/../..", "/usr/../bin", "", ".", "..", "bashtool", "./x/..",
		filepath.Base(root), root+"/../"+filepath.Base(root)+"/abs/c")
	r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })

	shared := newLinks()
	for _, p := range paths {
		want, wantErr := filepath.EvalSymlinks(p)
		for _, l := range []*links{newLinks(), shared} {
			got, err := l.eval(p)
			assert.Equal(t, want, got, p)
			assert.Equal(t, wantErr == nil, err == nil, "%s: %v, EvalSymlinks %v", p, err, wantErr)
			if wantErr != nil && err != nil {
				assert.Equal(t, wantErr.Error(), err.Error(), p)
			}
		}
	}
}

// The PATH rule decides through the cache as it did entry by entry with
// filepath.EvalSymlinks (insideBefore): an empty or relative entry is
// refused, and an absolute one is the project's when it lies in it as
// written or once resolved (links in it, ".." through a link, a project
// named through a link), whatever the entries before it resolved to; a
// lookup shared between several PATHs judges each as it would alone.
// 2000 random PATHs over linkTree, each checked against that rule.
func TestPathLookupThroughSharedLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	root := linkTree(t)
	bin := filepath.Join(root, "a", "bin")
	require.NoError(t, os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755))
	entries := []string{root + "/abs/c", root + "/rel", root + "/chain2", root + "/dotted", root + "/a/b/c/parent",
		root + "/p/sub/out/bin", root + "/dangling", root + "/loop1", root + "/tofile", root + "/q/abs2/../a/bin",
		root + "/up/bin", root + "/q/intop", root + "/q/intop/deep", root + "/a/b/back/p", root + "/abs/back/up/sub",
		root + "/q/abs2/intop/../bin", root + "/rel/../../p/bin", root + "/a/b/c/parent/back/p", root + "/p/sub/out/../bin",
		root + "/p/sub/out/../b", root + "/q/intop/out/b/back/q", root + "/toroot" + root + "/p",
		// Relative and empty entries are refused before any link is
		// looked at; they must stay so, wherever they stand.
		"", ".", "node_modules/.bin", "rel", "p/bin"}
	projects := []string{root + "/p", root + "/up", root + "/q/intop", root + "/rel/back/p/", root + "/a"}
	r := rand.New(rand.NewPCG(rand.Uint64(), 2))
	var inside, outside int
	for range 2000 {
		project := projects[r.IntN(len(projects))]
		var paths []string
		var want string
		for range 1 + r.IntN(3) {
			path := []string{bin}
			for range 1 + r.IntN(5) {
				path = append(path, entries[r.IntN(len(entries))])
			}
			paths = append(paths, strings.Join(path, ":"))
			if want != "" {
				continue
			}
			for _, e := range path {
				if e == "" {
					want = "an empty entry (the current folder)"
				} else if !filepath.IsAbs(e) {
					want = fmt.Sprintf("%q, relative to the folder a command runs in", e)
				} else if insideBefore(e, project) {
					want = fmt.Sprintf("%q, a folder of the project", e)
				}
				if want != "" {
					break
				}
			}
		}
		got := pathsLookup(paths, project, "", "")("tool")
		if want == "" {
			outside++
			assert.Empty(t, got, "%s in %s", paths, project)
		} else {
			inside++
			assert.Contains(t, got, want, "%s in %s", paths, project)
		}
		if len(paths) == 1 {
			assert.Equal(t, got, pathLookup(paths[0], project, "")("tool"))
		}
	}
	assert.Positive(t, inside)
	assert.Positive(t, outside)
}

// insideBefore is how insideProject decided before links kept what it
// learned: filepath.EvalSymlinks of the project and of the entry.
func insideBefore(dir, project string) bool {
	roots := []string{filepath.Clean(project)}
	if real, err := filepath.EvalSymlinks(project); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	if within(filepath.Clean(dir), roots) {
		return true
	}
	real, err := filepath.EvalSymlinks(dir)
	return err == nil && within(real, roots)
}

// links asks the file system about a path once: a link changed after it
// was looked at is seen as it was by the rest of the call, through every
// path that passes it (what lets the entries of one PATH, and the PATHs
// of several snapshots, share the folders they have in common), while a
// new links sees it as it is.
func TestLinksAskEachPathOnce(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("eval is EvalSymlinks itself there")
	}
	root := linkTree(t)
	l := newLinks()
	got, err := l.eval(root + "/abs/c")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "a/b/c"), got)
	_, err = l.stat(root + "/a/file")
	require.NoError(t, err)

	require.NoError(t, os.Remove(filepath.Join(root, "abs")))
	require.NoError(t, os.Symlink(filepath.Join(root, "p"), filepath.Join(root, "abs")))
	require.NoError(t, os.Remove(filepath.Join(root, "a/file")))

	for _, p := range []string{root + "/abs/c/", root + "/abs/./c", root + "/abs/back/p"} {
		got, err := l.eval(p)
		require.NoError(t, err, p)
		want, err := newLinks().eval(strings.Replace(p, "/abs/", "/a/b/", 1))
		require.NoError(t, err, p)
		assert.Equal(t, want, got, "%s: through abs as it was first seen", p)
		now, nowErr := filepath.EvalSymlinks(p)
		fresh, freshErr := newLinks().eval(p)
		assert.Equal(t, now, fresh, p)
		assert.Equal(t, nowErr == nil, freshErr == nil, p)
	}
	_, err = l.stat(root + "/a/file")
	assert.NoError(t, err, "the file as first seen")
	_, err = newLinks().stat(root + "/a/file")
	assert.Error(t, err)
}

// eval stops where EvalSymlinks stops, after 255 links (a chain of 256
// fails, one of 255 resolves), and keeps the ".." a relative path cannot
// take off, however many (review FG: mutants of walk that no other test
// told apart).
func TestLinksEvalChainsAndLeadingDots(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("eval is EvalSymlinks itself there")
	}
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "end"), 0o755))
	prev := "end"
	for i := range 256 {
		name := fmt.Sprintf("l%d", i)
		require.NoError(t, os.Symlink(prev, filepath.Join(root, name)))
		prev = name
	}
	deep := filepath.Join(root, "end", "a", "b", "c")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	t.Chdir(deep)
	for _, p := range []string{filepath.Join(root, "l254"), filepath.Join(root, "l255"), filepath.Join(root, "l255", "a"),
		"../../..", "../../../..", "../../../../x/..", "../../../a/../..", "../.."} {
		want, wantErr := filepath.EvalSymlinks(p)
		got, err := newLinks().eval(p)
		assert.Equal(t, want, got, p)
		assert.Equal(t, wantErr == nil, err == nil, "%s: %v, EvalSymlinks %v", p, err, wantErr)
	}
	_, err := newLinks().eval(filepath.Join(root, "l255"))
	assert.Error(t, err, "256 links")
	_, err = newLinks().eval(filepath.Join(root, "l254"))
	assert.NoError(t, err, "255 links")
}
