package gitcheck_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plansmith/plansmith/gitcheck"
)

// A project unpacked from an archive carries its .git, whose config names
// a program git status would run: git started anywhere in it is refused.
func ExampleRepository() {
	tmp, _ := os.MkdirTemp("", "gitcheck-example")
	defer os.RemoveAll(tmp)
	project, _ := filepath.EvalSymlinks(tmp) // as git finds it
	dotgit := filepath.Join(project, ".git")
	os.MkdirAll(filepath.Join(dotgit, "objects"), 0o755)
	os.MkdirAll(filepath.Join(dotgit, "refs"), 0o755)
	os.MkdirAll(filepath.Join(project, "src"), 0o755)
	os.WriteFile(filepath.Join(dotgit, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(dotgit, "config"), []byte("[core]\n\tbare = false\n"), 0o644)

	user := gitcheck.User{} // what gitcheck.ReadUser(os.Getenv) would read
	fmt.Printf("inert: %q\n", gitcheck.Repository(user, project, "src"))

	os.WriteFile(filepath.Join(dotgit, "config"), []byte("[core]\n\tfsmonitor = ./watch.sh\n"), 0o644)
	why := gitcheck.Repository(user, project, "src")
	fmt.Println(strings.ReplaceAll(why, project, "PROJECT"))
	// Output:
	// inert: ""
	// the repository's config PROJECT/.git/config sets core.fsmonitor, which can name a program git runs; a project's files may have put it there
}
