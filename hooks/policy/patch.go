package policy

import (
	"encoding/json"
	"strings"
)

// Codex CLI edits files with its apply_patch tool. Its hooks see the call as
// tool "apply_patch" with input {"command": "<patch>"}, the patch in Codex's
// own format:
//
//	*** Begin Patch
//	*** Add File: a.go | *** Update File: a.go | *** Delete File: a.go
//	…
//	*** End Patch
//
// Any such call edits the project, so it is an edit tool; the patch is read
// only to name the files in the refusal.

// patchWhat names an apply_patch call for a refusal: the tool and the files
// its patch touches.
func patchWhat(input json.RawMessage) string {
	var in struct {
		Command string `json:"command"`
		Input   string `json:"input"`
	}
	_ = json.Unmarshal(input, &in) // the files only improve the message
	files := patchFiles(in.Command + "\n" + in.Input)
	if len(files) == 0 {
		return "apply_patch"
	}
	return "apply_patch " + clip(strings.Join(files, ", "))
}

// patchFiles lists the files a Codex patch adds, updates, deletes or moves
// to, in order, each once.
func patchFiles(patch string) []string {
	var files []string
	seen := map[string]bool{}
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSpace(line)
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(line, prefix); ok && strings.TrimSpace(f) != "" && !seen[f] {
				f = strings.TrimSpace(f)
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	return files
}
