// Package hooks is plansmith's Claude Code adapter: Run decodes one hook
// event from stdin, dispatches it from the one table of events to the loop
// package (loop.Stop, loop.PreToolUse, ...), and writes Claude Code's JSON
// answer for the loop's typed outcome. It holds no loop logic: only the
// wire format (input.go, output.go), the transcript reader for Stop's last
// message, and Claude Code's block cap. Only the `plansmith hook`
// subcommand imports it. hooks/codex is the Codex CLI adapter beside it,
// mapping Codex's events to the same loop calls; hooks/policy is the
// read-only tool policy the loop applies.
package hooks
