package bashtool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRead reads one snapshot the size of a zsh framework's (about
// 300 KiB of functions, aliases and options), as PreToolUse does before
// it judges a Bash command that runs a program.
func BenchmarkRead(b *testing.B) {
	config := b.TempDir()
	dir := filepath.Join(config, "shell-snapshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var s strings.Builder
	s.WriteString("# Functions\n")
	for i := 0; s.Len() < 300<<10; i++ {
		fmt.Fprintf(&s, "prompt_part_%d () {\n", i)
		for j := 0; j < 6; j++ {
			fmt.Fprintf(&s, "\tlocal ref%d=\"$(command git rev-parse --abbrev-ref HEAD 2>/dev/null)\"\n", j)
		}
		s.WriteString("}\n")
	}
	s.WriteString("# Shell Options\nsetopt autocd\nsetopt extendedglob\n# Aliases\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&s, "alias -- l%d='ls -la'\n", i)
	}
	s.WriteString("export PATH=/usr/local/bin\\:/usr/bin\\:/bin\n")
	if err := os.WriteFile(filepath.Join(dir, "snapshot-zsh-1-a.sh"), []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return ""
	}
	b.SetBytes(int64(s.Len()))
	for b.Loop() {
		if sh := Read(getenv); sh.Defines("prompt_part_0", "") == "" || len(sh.paths) != 1 {
			b.Fatal("the snapshot was not read")
		}
	}
}
