package bashtool

import (
	"slices"
	"strings"
)

// What Codex CLI's shell tool (exec_command, "Bash" to its hooks) runs a
// command in. Codex never reads Claude Code's snapshots: it takes its own,
// in $CODEX_HOME/shell_snapshots, one per running thread
// (<thread>.<n>.sh, removed when Codex exits), from the user's login shell
// as the password file names it (not $SHELL) with ~/.bashrc or ~/.zshrc
// sourced: the functions (declare -f, zsh's functions), the aliases, the
// options and the exports. Seen with the real Codex 0.169.0, its
// shell_snapshot feature on (its default), against the e2e tests' scripted
// model (review FA1):
//
//   - The command runs as SHELL -c TEXT, login or not, with the snapshot's
//     exports for its environment: a PATH that ~/.bashrc extends is the
//     commands' PATH, never the hook's, which is Codex's own. A relative
//     folder put there ("tools") ran the project's tools/cat for a cat the
//     policy had judged by the hook's PATH and let through.
//   - The snapshot's functions and aliases are not defined in bash's
//     commands (type cat: /usr/bin/cat, with cat() in ~/.bashrc), but zsh
//     reads ~/.zshenv before every command, so its functions run there: a
//     head() and a chpwd() from ~/.zshenv ran for head and cd.
//   - With the feature off ([features] shell_snapshot = false), or when
//     Codex could not take the snapshot, the command runs as SHELL -lc
//     TEXT: a login shell, which runs the profile files, and the functions
//     they define (or source from ~/.bashrc) run in its commands.
//
// So Codex's snapshots, taken from the same startup files, name every
// function and alias its commands can meet (more: bash defines none of
// them in snapshot mode), and their PATH is the one programs are looked up
// in. Without one (Codex exits, a snapshot that failed, the feature off)
// the hook's own PATH is used and no definitions are known; in the last
// two cases a login shell's functions are not seen (docs/codex.md).

// ReadCodex reads Codex's snapshots of the user's shell, found where getenv
// (the hook's environment) says Codex keeps them: $CODEX_HOME, or ~/.codex.
func ReadCodex(getenv func(string) string) Shell {
	if why := relativeFolder(getenv, "CODEX_HOME", "Codex"); why != "" {
		return Shell{defs: map[string]string{}, unreadable: why}
	}
	return snapshotsIn(codexSnapshots(codexSnapshotFolder(getenv)))
}

// codexSnapshotFolder is $CODEX_HOME/shell_snapshots, or
// ~/.codex/shell_snapshots.
func codexSnapshotFolder(getenv func(string) string) string {
	return clientFolder(getenv, "CODEX_HOME", ".codex", "shell_snapshots")
}

// codexSnapshots are Codex's in dir: NAME.sh, but not the NAME.tmp-PID
// files it writes one into before checking it.
func codexSnapshots(dir string) snapshots {
	return snapshots{dir: dir, owner: "Codex's",
		is: func(name string) bool {
			return strings.HasSuffix(name, ".sh") && !strings.Contains(name, ".tmp-")
		},
		// Codex names no shell in the file's name: a snapshot of zsh has
		// its options as setopt lines and PATH as a tied array.
		zsh: func(_ string, lines snapshotLines) bool {
			return lines.setopt || slices.ContainsFunc(lines.exports, func(p pathLine) bool { return p.tied })
		},
	}
}
