package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The keys Claude Code gives its projects' transcript folders, computed by
// the CLIs' own function (copied from 2.1.197 and 2.1.330, run with node);
// the first was also seen on disk with both CLIs.
func TestProjectKey(t *testing.T) {
	long := "/home/user/" + strings.Repeat("a-very-long-folder-name/", 9) + "project"
	for _, tt := range []struct{ dir, key string }{
		{"/tmp/TestProbeTranscriptclaude-2.1.3302558206308/001", "-tmp-TestProbeTranscriptclaude-2-1-3302558206308-001"},
		{"/Users/Ann Lee/src/my_app.v2", "-Users-Ann-Lee-src-my-app-v2"},
		{"/srv/프로젝트/계획", "-srv--------"},
		{"/x/emoji😀dir", "-x-emoji--dir"}, // two UTF-16 code units
		{`C:\Users\ann\proj`, "C--Users-ann-proj"},
		{long, "-home-user-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-na-9blfhp"},
		{long + "/x", "-home-user-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-na-8mvl8k"},
		{"/" + strings.Repeat("z", 250), "-" + strings.Repeat("z", 199) + "-4rwl75"},
	} {
		assert.Equal(t, tt.key, ProjectKey(tt.dir), tt.dir)
	}
}

// claudeSession lays out what Claude Code keeps for a session run in
// project: <config>/projects/<key>/<id>.jsonl.
func claudeSession(t *testing.T, config, project, id string) {
	t.Helper()
	dir := filepath.Join(config, "projects", ProjectKey(project))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte("{}\n"), 0o644))
}

// commandEnv is an Env for a command the agent runs with the Bash tool in
// wd: no $CLAUDE_PROJECT_DIR, the session's id, HOME as given.
func commandEnv(wd string, vars map[string]string) Env {
	return Env{Getwd: func() (string, error) { return wd, nil }, Getenv: func(k string) string { return vars[k] }}
}

// A command the agent runs after a cd learns the project from the
// session's transcript, however deep it stands; a decoy transcript folder
// for the subfolder (another session run there) does not mislead it.
func TestCommandProjectFromTheTranscript(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(root, "work", "my proj")
	deeper := filepath.Join(project, "sub", "deeper")
	require.NoError(t, os.MkdirAll(deeper, 0o755))
	claudeSession(t, filepath.Join(home, ".claude"), project, "s1")
	claudeSession(t, filepath.Join(home, ".claude"), filepath.Join(project, "sub"), "other")
	vars := map[string]string{"HOME": home, "CLAUDE_CODE_SESSION_ID": "s1"}

	for _, wd := range []string{project, filepath.Join(project, "sub"), deeper} {
		p, err := commandEnv(wd, vars).CommandProject()
		require.NoError(t, err)
		assert.Equal(t, Project{Dir: project, Known: true, Session: "s1", Wd: wd, Looked: filepath.Join(home, ".claude", "projects")}, p, wd)
		paths, err := commandEnv(wd, vars).Paths(Session{})
		require.NoError(t, err)
		assert.Equal(t, project, paths.Project, wd)
	}

	// The session run in the subfolder finds the subfolder.
	vars["CLAUDE_CODE_SESSION_ID"] = "other"
	p, err := commandEnv(deeper, vars).CommandProject()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(project, "sub"), p.Dir)

	// $CLAUDE_CONFIG_DIR moves Claude Code's folder.
	config := filepath.Join(root, "config")
	claudeSession(t, config, project, "s2")
	p, err = commandEnv(deeper, map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": config, "CLAUDE_CODE_SESSION_ID": "s2"}).CommandProject()
	require.NoError(t, err)
	assert.True(t, p.Known)
	assert.Equal(t, project, p.Dir)

	// A symbolic link to the subfolder: the project is found on the real path.
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(deeper, link))
	p, err = commandEnv(link, map[string]string{"HOME": home, "CLAUDE_CODE_SESSION_ID": "s1"}).CommandProject()
	require.NoError(t, err)
	assert.Equal(t, project, p.Dir)
}

// What cannot be told is said, never guessed.
func TestCommandProjectUnknown(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(root, "project")
	sub := filepath.Join(project, "sub")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	claudeSession(t, filepath.Join(home, ".claude"), project, "s1")
	// Another session's transcript folder for the project holds no s9.
	for name, vars := range map[string]map[string]string{
		"no transcript for the session":     {"HOME": home, "CLAUDE_CODE_SESSION_ID": "s9"},
		"a session id that is no file name": {"HOME": home, "CLAUDE_CODE_SESSION_ID": "../" + ProjectKey(project) + "/s1"},
		"a renamed transcript folder":       {"HOME": home, "CLAUDE_CODE_SESSION_ID": "s1", "CLAUDE_CODE_PROJECT_DIR_NAME": "mine"},
		"no home":                           {"CLAUDE_CODE_SESSION_ID": "s1"},
	} {
		p, err := commandEnv(sub, vars).CommandProject()
		require.NoError(t, err)
		assert.False(t, p.Known, name)
		assert.Equal(t, sub, p.Dir, name)
		assert.NotEmpty(t, p.Session, name)
	}

	// Outside a session (run by hand): the working directory, as always.
	p, err := commandEnv(sub, map[string]string{"HOME": home}).CommandProject()
	require.NoError(t, err)
	assert.Equal(t, Project{Dir: sub, Wd: sub}, p)
	// $CLAUDE_PROJECT_DIR names it when no transcript does.
	p, err = commandEnv(sub, map[string]string{"CLAUDE_PROJECT_DIR": project, "CLAUDE_CODE_SESSION_ID": "s9"}).CommandProject()
	require.NoError(t, err)
	assert.True(t, p.Known)
	assert.Equal(t, project, p.Dir)
}

// $CLAUDE_PROJECT_DIR in the Bash tool's environment came from the user's
// own (Claude Code sets it for hooks only) and may name another folder,
// where the loop would go unenforced: the session's transcript wins.
func TestCommandProjectTranscriptOverAnInheritedProjectDir(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(root, "project")
	require.NoError(t, os.MkdirAll(filepath.Join(project, "sub"), 0o755))
	claudeSession(t, filepath.Join(home, ".claude"), project, "s1")
	vars := map[string]string{"HOME": home, "CLAUDE_CODE_SESSION_ID": "s1", "CLAUDE_PROJECT_DIR": filepath.Join(root, "other")}
	p, err := commandEnv(filepath.Join(project, "sub"), vars).CommandProject()
	require.NoError(t, err)
	assert.True(t, p.Known)
	assert.Equal(t, project, p.Dir)
}

// status and cancel act on the loop the hooks enforce from where the
// command runs.
func TestLoopPaths(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(root, "project")
	sub := filepath.Join(project, "sub")
	deeper := filepath.Join(sub, "deeper")
	require.NoError(t, os.MkdirAll(deeper, 0o755))
	claudeSession(t, filepath.Join(home, ".claude"), project, "s1")
	inSession := map[string]string{"HOME": home, "CLAUDE_CODE_SESSION_ID": "s1"}
	byHand := map[string]string{"HOME": home}

	loopAt := func(wd string, vars map[string]string) string {
		p, err := commandEnv(wd, vars).LoopPaths()
		require.NoError(t, err)
		return p.Project
	}
	assert.Equal(t, project, loopAt(deeper, inSession), "no loop: the project")
	assert.Equal(t, deeper, loopAt(deeper, byHand), "no loop, no session: the working directory")

	writeState(t, project)
	assert.Equal(t, project, loopAt(deeper, inSession), "the project's loop, from a subfolder")
	assert.Equal(t, project, loopAt(deeper, byHand), "and by hand, from the nearest folder above that holds one")

	writeState(t, sub) // a loop an older plansmith started after a cd
	assert.Equal(t, sub, loopAt(deeper, inSession), "the nearest, as the hooks find it")
	assert.Equal(t, project, loopAt(project, inSession))
}
