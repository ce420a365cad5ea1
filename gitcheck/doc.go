// Package gitcheck says whether git, started in a folder of a project
// plansmith does not trust, would run a program the project chooses, and
// why. The read-only tool policy (hooks/policy) judges git command lines
// as text; what they run also depends on files: the repository git finds,
// its config and hooks, its submodules, and the user's own git
// configuration. loop asks these questions through the policy's Config
// (GitRepository, GitShowsSignatures, GoVCS) when a command needs them.
//
// Repository is the whole check for git started in a folder; GoVCS is the
// one for go list, which runs git (or another version control program)
// where it starts; ReadUser reads the user's configuration once for a
// hook call; IsCheckout tells a checkout's .git as git does.
//
// A checkout's .git is the repository git runs in, and its config can name
// programs git runs on a read (core.fsmonitor on git status, diff.external
// on git diff, a pager, a filter, an include of any file), as can a hook
// the index refresh of git status fires (post-index-change). A clone never
// carries a .git, but a project unpacked from a tarball or a zip, a copied
// folder or a vendored package can: every file of it is the project's
// choice. So git runs only in a repository whose own config sets nothing
// but settings known to name no program (inertGitKey, config.go), whose
// hooks include none a reading command fires, whose .git file, if it is
// one, git reads as this does, and whose submodules (gitlinks read from
// the index, index.go, and those kept in its modules folder) are all
// such repositories. The user's own configuration (~/.gitconfig, git's
// system file) is theirs, but a relative path in it is read from the
// project's folders: user.go.
package gitcheck
