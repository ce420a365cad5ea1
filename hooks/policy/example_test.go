package policy_test

import (
	"encoding/json"
	"fmt"

	"github.com/plansmith/plansmith/hooks/policy"
)

// A planning session may read and search: every simple command of a
// pipeline is judged, and here each one only reads.
func ExampleBash_allowed() {
	d := policy.Bash(`grep -rn "TODO" src | sort | uniq -c | head -20`, policy.Config{})
	fmt.Println(d.Allow)
	// Output: true
}

// A command that would write is refused by the rule named for it, with a
// reason the agent and the user both read: what was refused, by which
// rule, and what reads instead.
func ExampleBash_refused() {
	for _, cmd := range []string{
		"sed -i 's/old/new/' main.go",  // edits in place
		"ls > files.txt",               // a redirect that writes
		"git log --oneline -5",         // reads
		"find . -name '*.tmp' -delete", // deletes
	} {
		d := policy.Bash(cmd, policy.Config{})
		fmt.Printf("%-30s allow=%t rule=%q\n", cmd, d.Allow, d.Rule)
	}
	fmt.Println()
	fmt.Println(policy.Bash("sed -i 's/old/new/' main.go", policy.Config{}).Reason)
	// Output:
	// sed -i 's/old/new/' main.go    allow=false rule="sed-in-place"
	// ls > files.txt                 allow=false rule="redirect"
	// git log --oneline -5           allow=true rule=""
	// find . -name '*.tmp' -delete   allow=false rule="find-action"
	//
	// plansmith is planning, so the project stays read-only: this was refused.
	//
	// - Refused: `sed -i 's/old/new/' main.go` (sed -i)
	// - Rule: sed-in-place — sed -i edits files in place.
	// - Instead: to preview the change, run the same sed without -i.
}

// Tool judges a call by the tool's name and its JSON input: edit tools are
// refused whatever they are given, Bash and Monitor go to Bash (rm is no
// command the policy knows to be read-only: it is an allow-list), reading
// tools pass, and a tool it does not know (an MCP server's) is refused
// unless the project's Config names it.
func ExampleTool() {
	for _, c := range []struct{ name, input string }{
		{"Read", `{"file_path":"/p/main.go"}`},
		{"Write", `{"file_path":"/p/notes.md","content":"x"}`},
		{"Bash", `{"command":"rm -rf build"}`},
		{"mcp__db__query", `{"sql":"select 1"}`},
	} {
		d := policy.Tool(c.name, json.RawMessage(c.input), policy.Config{})
		fmt.Printf("%-15s allow=%t rule=%q\n", c.name, d.Allow, d.Rule)
	}
	// Output:
	// Read            allow=true rule=""
	// Write           allow=false rule="edit-tool"
	// Bash            allow=false rule="unknown-command"
	// mcp__db__query  allow=false rule="unknown-tool"
}
