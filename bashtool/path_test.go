package bashtool

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/plansmith/plansmith/hooks/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathLookup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	bin := t.TempDir()
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, "bin"), 0o755))
	links := t.TempDir()
	linkToProject := filepath.Join(links, "p")
	require.NoError(t, os.Symlink(project, linkToProject))
	linkIntoBin := filepath.Join(links, "bin")
	require.NoError(t, os.Symlink(filepath.Join(project, "bin"), linkIntoBin))
	require.NoError(t, os.MkdirAll(filepath.Join(project, "sub"), 0o755))
	other := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(project, "sub"), filepath.Join(other, "x")))
	through := other + "/x/../bin" // the shell resolves x first: the project's bin
	assert.Empty(t, pathLookup(bin+":/usr/bin:/bin", project, "")("ls"), "every entry absolute and outside the project: ls is found there")
	assert.Nil(t, pathLookup("", project, ""), "no PATH: the shell's default")
	assert.Empty(t, pathLookup(bin+":"+project+"/bin:/usr/bin:/bin", project, project+"/bin")("ls"),
		"the plugin's own bin folder, inside the project in a checkout of plansmith, is the plugin's")

	// A relative entry anywhere: every program is refused, even one found
	// in an absolute folder before it (its helpers may not be).
	for path, what := range map[string]string{".:" + bin: `"."`, "node_modules/.bin:" + bin: `"node_modules/.bin"`,
		":" + bin: "empty entry", bin + "::/usr/bin": "empty entry", bin + ":/usr/bin:.": `"."`,
		// An absolute folder inside the project (direnv's PATH_add, an
		// activated .venv): the project decides what is in it (review Q).
		project + "/bin:" + bin:            "a folder of the project",
		bin + ":" + project + "/.venv/bin": "a folder of the project",
		project + ":" + bin:                "a folder of the project",
		// Through a link: to the project, or a link x in x/../bin (review R).
		filepath.Join(linkToProject, "bin") + ":" + bin: "a folder of the project",
		filepath.Join(linkIntoBin) + ":" + bin:          "a folder of the project",
		through + ":" + bin:                             "a folder of the project"} {
		l := pathLookup(path, project, "")
		require.NotNil(t, l, path)
		for _, name := range []string{"ls", "cat", "rg-not-installed", "/usr/bin/zcat"} {
			assert.Contains(t, l(name), what, path)
			assert.Contains(t, l(name), name, path)
		}
	}
}

// A version manager's shim (mise, asdf, pyenv, rbenv, ... keep them in a
// folder named shims) runs the version that the folder the command starts
// in asks for, in a file the project carries: with mise's shims on PATH, a
// .tool-versions line "node path:./evil" made node --version run the
// project's evil/bin/node (review CH2, proven with mise 2026.9.15). A name
// found first in such a folder is refused, and so is a script run through
// env when its interpreter is (npm is #!/usr/bin/env node); a name found before the shims, or not there,
// is not.
func TestPathLookupShims(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	project := t.TempDir()
	shims := filepath.Join(t.TempDir(), "mise", "shims")
	bin := t.TempDir()
	for dir, names := range map[string][]string{shims: {"node", "python3"}, bin: {"ls", "npm", "python3", "tool"}} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for _, name := range names {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/usr/bin/env node\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/usr/bin/env -S python3 -u\n"), 0o755))
	l := pathLookup(bin+":"+shims+":/usr/bin", project, "")
	require.NotNil(t, l, "a shims folder on PATH")
	assert.Contains(t, l("node"), shims)
	assert.Contains(t, l("node"), "shim")
	assert.Contains(t, l("npm"), "node", "npm runs node by name, which the shim would run")
	assert.Contains(t, l(filepath.Join(bin, "npm")), "node")
	assert.Empty(t, l("tool"), "python3 is found before the shims")
	assert.Contains(t, pathLookup(shims+":"+bin, project, "")("tool"), "python3")
	assert.Empty(t, l("ls"), "ls is not the shims'")
	assert.Empty(t, l("python3"), "found before the shims")
	assert.Contains(t, l("not-installed-anywhere"), "found in no folder of PATH")
	assert.Empty(t, pathLookup(bin+":/usr/bin", project, "")("ls"), "no shims")
	// Several PATHs (the shell snapshots') share what they read of the
	// file system: npm's first line, read for the PATH with shims, does
	// not make the one without refuse it, nor the other way round.
	assert.Empty(t, pathsLookup([]string{bin + ":/usr/bin", bin + ":" + shims}, project, "", "")("tool"))
	for _, paths := range [][]string{{bin + ":/usr/bin", bin + ":" + shims + ":/usr/bin"}, {bin + ":" + shims + ":/usr/bin", bin + ":/usr/bin"}} {
		both := pathsLookup(paths, project, "", "")
		assert.Contains(t, both("npm"), "node", paths)
		assert.Contains(t, both(filepath.Join(bin, "npm")), "node", paths)
		assert.Empty(t, both("ls"), paths)
	}

	// A program named by its path is read for its "#!" line: a FIFO there
	// must not hold the hook up until its deadline.
	fifo := filepath.Join(project, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o755))
	done := make(chan string, 1)
	go func() { done <- l(fifo) }()
	select {
	case got := <-done:
		assert.Empty(t, got)
	case <-time.After(5 * time.Second):
		t.Fatal("the lookup waits on a FIFO")
	}

	// Through the policy: the shim's own rule, whose advice passes
	// (review CK5: the PATH rule told the user to change a PATH that was
	// already outside the project).
	cfg := policy.Config{PathLookup: l}
	d := policy.Bash("node --version", cfg)
	require.False(t, d.Allow)
	assert.Equal(t, "version-shim", d.Rule)
	assert.Contains(t, d.Reason, "node would run through the shim in")
	assert.NotContains(t, d.Reason, "\x1f")
	assert.Contains(t, d.Reason, "cat .tool-versions .python-version .nvmrc mise.toml")
	assert.Equal(t, "version-shim", policy.Bash("npm ls", cfg).Rule)
	for _, advised := range []string{"cat .tool-versions .python-version .nvmrc mise.toml", "ls .venv/lib/python*/site-packages",
		"cat package.json package-lock.json", "/usr/bin/python3 --version"} {
		assert.True(t, policy.Bash(advised, cfg).Allow, advised)
	}
}

// Volta keeps its shims in ~/.volta/bin, links to its volta-shim program,
// not in a folder named shims. A shim reads the project's package.json and
// every .volta/hooks.json from the project up: a "bin" hook there names a
// program the shim runs, to find a download or, for events.publish, after
// every run, node --version and npm ls included (review CN1, read in Volta's
// session.rs, event.rs and monitor.rs; Volta could not be installed here).
// A name found first as such a link is refused, and so is a script whose
// env line finds one (npm is #!/usr/bin/env node); names found before it,
// or that are plain programs in the same folder, are not.
func TestPathLookupVoltaShims(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists and links")
	}
	project := t.TempDir()
	install := filepath.Join(t.TempDir(), "Cellar", "volta", "2.0.2", "bin")
	volta := filepath.Join(t.TempDir(), ".volta", "bin")
	bin := t.TempDir()
	for _, dir := range []string{install, volta} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	for dir, names := range map[string][]string{install: {"volta", "volta-shim"}, bin: {"ls", "python3"}, volta: {"plain"}} {
		for _, name := range names {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
		}
	}
	for _, name := range []string{"node", "npm", "npx", "tsc"} {
		require.NoError(t, os.Symlink(filepath.Join(install, "volta-shim"), filepath.Join(volta, name)))
	}
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/usr/bin/env node\n"), 0o755))
	l := pathLookup(volta+":"+bin+":"+install+":/usr/bin:/bin", project, "")
	require.NotNil(t, l, "Volta's shims on PATH")
	for _, name := range []string{"node", "npx", "tsc"} {
		assert.Contains(t, l(name), volta, name)
	}
	assert.Contains(t, l(filepath.Join(bin, "npm")), "node", "npm by its path runs node by name")
	assert.Empty(t, l("ls"), "not Volta's")
	assert.Empty(t, l("plain"), "a plain program in Volta's folder is no shim")
	assert.Empty(t, l("volta-shim"), "found in the folder it is installed in, under its own name")
	lb := pathLookup(bin+":"+volta+":/usr/bin:/bin", project, "")
	require.NotNil(t, lb)
	assert.Contains(t, lb("npm"), "node", "npm found before Volta's npm still runs Volta's node")
	assert.Empty(t, lb("python3"))
	assert.Empty(t, pathLookup(bin+":"+install, project, "")("python3"), "Volta installed, its shims not on PATH")

	cfg := policy.Config{PathLookup: l}
	for _, command := range []string{"node --version", "npm ls", "env node -v", "find . -exec npx {} +"} {
		d := policy.Bash(command, cfg)
		assert.Equal(t, "version-shim", d.Rule, command)
		assert.Contains(t, d.Reason, ".volta/hooks.json", command)
	}
	assert.True(t, policy.Bash("cat package.json .volta/hooks.json", cfg).Allow)
}

// Corepack's shims (corepack enable npm links npm to corepack/dist/npm.js)
// run the package manager the project's package.json names in
// packageManager, downloaded from the registry its .corepack.env names:
// npm ls ran a project's tarball so (review CN2, proven with corepack
// 0.34.6 and a registry on 127.0.0.1). A name found first as such a link is
// refused; the npm that ships with Node is not.
func TestPathLookupCorepackShims(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists and links")
	}
	project := t.TempDir()
	prefix := t.TempDir()
	dist := filepath.Join(prefix, "lib", "node_modules", "corepack", "dist")
	npmDir := filepath.Join(prefix, "lib", "node_modules", "npm", "bin")
	shims, plain := filepath.Join(prefix, "shims-bin"), filepath.Join(prefix, "bin")
	for _, dir := range []string{dist, npmDir, shims, plain} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	for _, f := range []string{filepath.Join(dist, "npm.js"), filepath.Join(dist, "npx.js"), filepath.Join(npmDir, "npm-cli.js"), filepath.Join(plain, "node")} {
		require.NoError(t, os.WriteFile(f, []byte("#!/usr/bin/env node\n"), 0o755))
	}
	require.NoError(t, os.Symlink("../lib/node_modules/corepack/dist/npm.js", filepath.Join(shims, "npm")))
	require.NoError(t, os.Symlink("../lib/node_modules/corepack/dist/npx.js", filepath.Join(shims, "npx")))
	require.NoError(t, os.Symlink("../lib/node_modules/npm/bin/npm-cli.js", filepath.Join(plain, "npm")))

	l := pathLookup(shims+":"+plain, project, "")
	require.NotNil(t, l, "Corepack's npm on PATH")
	assert.Contains(t, l("npm"), shims)
	assert.Contains(t, l("npx"), shims)
	assert.Empty(t, l("node"))
	assert.Empty(t, pathLookup(plain+":"+shims, project, "")("npm"), "Node's own npm comes first")
	d := policy.Bash("npm ls", policy.Config{PathLookup: l})
	assert.Equal(t, "version-shim", d.Rule)
	assert.Contains(t, d.Reason, ".corepack.env")
}

// A program on the read-only list that is not installed is not looked up
// in vain: the shell then runs its command-not-found handler, which Claude
// Code's shell snapshot keeps among the user's functions, and mise's (mise
// activate) installs the tool the project's .tool-versions names and runs
// it: "fd foo" made mise start installing fd 10.2.0, or query
// ubi:attacker/fd's releases to download (review CN4, proven with mise
// 2026.9.15). Such a name is refused under its own rule; names found, and
// the shell's builtins, are not.
func TestPathLookupRefusesAProgramNotInstalled(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	project := t.TempDir()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "fd"), []byte("not executable\n"), 0o644))
	l := pathLookup(bin, project, "")
	require.NotNil(t, l)
	assert.Empty(t, l("ls"))
	assert.Contains(t, l("fd"), "fd")
	assert.Contains(t, l("tree"), "tree")
	assert.Empty(t, l(filepath.Join(bin, "ls")), "a path is no lookup")
	assert.Empty(t, l("/no/such/tree"), "a path that does not exist runs no handler")
	assert.Nil(t, pathLookup("", project, ""), "no PATH: the shell's default, which the hook cannot see")
	// Claude Code appends the plugin's bin folder to the Bash tool's PATH
	// only: plansmith is found there.
	plugin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "plansmith"), []byte("#!/bin/sh\n"), 0o755))
	assert.Contains(t, l("plansmith"), "found in no folder")
	assert.Empty(t, pathLookup(bin, project, plugin)("plansmith"))
	assert.True(t, policy.Bash("plansmith status", policy.Config{PathLookup: pathLookup(bin, project, plugin)}).Allow)

	cfg := policy.Config{PathLookup: l}
	for _, command := range []string{"fd foo", "tree -L 2", "ls | fd x", "jq . f.json"} {
		d := policy.Bash(command, cfg)
		assert.Equal(t, "not-installed", d.Rule, command)
		assert.Contains(t, d.Reason, "not installed", command)
		assert.NotContains(t, d.Reason, "\x1f", command)
	}
	for _, command := range []string{"ls -la", "echo hi", "cd sub && pwd", "test -f go.mod"} {
		assert.True(t, policy.Bash(command, cfg).Allow, command)
	}
	// The advice names what works without the program.
	assert.True(t, policy.Bash("ls -R", cfg).Allow)
	// Claude Code and Codex bring their own rg.
	assert.True(t, policy.Bash("rg -n x .", cfg).Allow)

	// bash runs shopt and help itself; zsh looks them up.
	assert.Empty(t, l("shopt"))
	assert.True(t, policy.Bash("shopt -s nullglob", cfg).Allow)
	assert.Empty(t, pathLookupIn(bin, project, "", "/bin/bash")("help"))
	assert.Contains(t, pathLookupIn(bin, project, "", "/usr/bin/zsh")("shopt"), "shopt")
	assert.Equal(t, "not-installed", policy.Bash("help cd", policy.Config{PathLookup: pathLookupIn(bin, project, "", "/bin/zsh")}).Rule)
}

// pathLookup is pathLookupIn for a shell that is neither bash nor zsh.
func pathLookup(path, project, pluginBin string) func(name string) string {
	return pathLookupIn(path, project, pluginBin, "")
}

// What the shell would not run is not found: a folder named like the
// program in an earlier PATH entry does not hide the shim after it; a
// folder that only begins with the project's name is not the project's;
// and env named by any path ("#!/bin/env node") looks its program up as
// /usr/bin/env does (review FG: mutants no other test told apart).
func TestPathLookupLooksAsTheShellDoes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX PATH lists")
	}
	base := t.TempDir()
	project := filepath.Join(base, "proj")
	sibling := filepath.Join(base, "proj-tools")
	shims := filepath.Join(base, "mise", "shims")
	bin := filepath.Join(base, "bin")
	for _, d := range []string{project, sibling, shims, filepath.Join(bin, "node")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(shims, "node"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm2"), []byte("#!/bin/env node\n"), 0o755))
	l := pathLookup(bin+":"+sibling+":"+shims, project, "")
	assert.Contains(t, l("node"), "shim", "bin/node is a folder: the shell runs the shim")
	assert.Contains(t, l("npm2"), "node would run through the shim")
	assert.Empty(t, pathLookup(sibling+":/usr/bin", project, "")("ls"), "proj-tools is not the project proj")
}

// pathLookupIn is pathLookupWith for one PATH, with a tool call's own
// cache of the file system.
func pathLookupIn(path, project, pluginBin, shell string) func(name string) string {
	return pathLookupWith(newLinks(), path, project, pluginBin, shell)
}
