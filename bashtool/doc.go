// Package bashtool says what Claude Code's Bash tool runs a command in,
// beyond the command's text, for the read-only tool policy (hooks/policy),
// which loop asks through the policy's Config: the user's shell as Claude
// Code's snapshot of it restores it (Read, Shell.Defines,
// Shell.ExportsAll), what a command name finds on the PATH that shell
// runs with (Shell.Lookup), and the variables the project's own settings
// files start it with (SettingsEnv).
//
// Claude Code runs every Bash command in a shell that first sources a
// snapshot of the user's interactive shell, taken from its startup files:
// every function whose name does not start with a single "_", every
// alias, the options and PATH. So "cat x" may run an alias for bat, "cd
// sub" a function or alias (RVM's cd, nvm's README has alias cd=cdnvm,
// which reads the project's .nvmrc and installs what it names), and in zsh
// any cd a function named chpwd, which zsh runs at every change of folder
// in a shell that is not interactive too (review CN5). The snapshots are
// in the Claude configuration folder's shell-snapshots, one per running
// session, all from the same startup files; every one is read.
//
// Codex CLI's shell tool runs commands from Codex's own snapshots of the
// user's shell, which ReadCodex reads instead (codex.go says what Codex's
// commands see of them).
package bashtool
