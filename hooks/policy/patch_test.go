package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestApplyPatchIsAnEditTool(t *testing.T) {
	cases := []struct {
		name, input, what string
	}{
		{"add file", `{"command":"*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"}`, "apply_patch hello.txt"},
		{"update, move and delete", `{"command":"*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@\n-x\n+y\n*** Delete File: c.go\n*** Update File: a.go\n*** End Patch"}`, "apply_patch a.go, b.go, c.go"},
		{"no file names", `{"command":"garbage"}`, "apply_patch"},
		{"not json", `not json`, "apply_patch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Tool("apply_patch", []byte(c.input), Config{})
			assert.False(t, d.Allow)
			assert.Equal(t, "edit-tool", d.Rule)
			assert.Contains(t, d.Reason, "`"+c.what+"`")
		})
	}
}

func TestPatchFiles(t *testing.T) {
	assert.Empty(t, patchFiles(""))
	assert.Equal(t, []string{"x y.txt"}, patchFiles("*** Add File: x y.txt\n+1\n"))
	assert.Equal(t, []string{"a", "b"}, patchFiles("  *** Update File: a\n*** Move to: b\n*** Update File: a"))
}
