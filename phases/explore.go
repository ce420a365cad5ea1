package phases

import "strings"

// Explore: read the codebase with read-only tools and report what was found,
// file by file — still no plan.

const exploreRefs = 2

// sourceExts are extensions that mark a bare word as a file name. Single
// letters that are common in prose (e.g. "r", "m") are left out.
var sourceExts = map[string]bool{
	"go": true, "mod": true, "sum": true, "py": true, "pyi": true, "ipynb": true, "js": true, "mjs": true, "cjs": true,
	"ts": true, "tsx": true, "jsx": true, "rs": true, "java": true, "kt": true, "kts": true, "scala": true, "rb": true,
	"php": true, "c": true, "h": true, "cc": true, "cpp": true, "hpp": true, "cxx": true, "cs": true, "fs": true,
	"swift": true, "mm": true, "dart": true, "lua": true, "ex": true, "exs": true, "erl": true, "hs": true, "ml": true,
	"clj": true, "vue": true, "svelte": true, "html": true, "css": true, "scss": true, "sass": true, "less": true,
	"sh": true, "bash": true, "zsh": true, "fish": true, "ps1": true, "sql": true, "proto": true, "graphql": true,
	"md": true, "mdx": true, "rst": true, "txt": true, "json": true, "jsonl": true, "yaml": true, "yml": true,
	"toml": true, "ini": true, "cfg": true, "conf": true, "env": true, "xml": true, "gradle": true, "tf": true,
	"lock": true, "dockerfile": true, "mk": true, "cmake": true, "nix": true, "zig": true, "vim": true, "el": true,
	"pl": true, "pm": true,
}

// bareFiles are file names without an extension that are still files.
var bareFiles = map[string]bool{"makefile": true, "dockerfile": true, "gemfile": true, "rakefile": true, "justfile": true, "procfile": true, "license": true}

// longestBare is the length of the longest bareFiles name: longer words
// are not looked up, which spares lower-casing every word of prose.
const longestBare = len("dockerfile")

func validateExplore(cfg Config, a *answer) []Problem {
	var probs []Problem
	if n := countFileRefs(a.text, exploreRefs); n < exploreRefs {
		probs = append(probs, Problem{Check: "file references", Found: n, Need: exploreRefs,
			Hint: "read the relevant code and cite the files you read by path, e.g. internal/store/db.go"})
	}
	return append(probs, planHeadings(cfg, a)...)
}

// countFileRefs counts distinct file references in text, stopping at limit.
// A reference is a word made of path characters that either ends in a
// known source extension ("main.go", "cmd/app/main.go"), is a known bare
// file name ("Makefile"), or is a path: it starts with "/", "./", "../" or
// "~/", ends with "/", has two or more slashes, or is quoted in backticks.
// A single slash between plain words ("and/or", "read/write") is prose, and
// URLs are not files.
func countFileRefs(text string, limit int) int {
	seen := map[string]bool{}
	for i := 0; i < len(text); {
		if !isPathByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isPathByte(text[j]) {
			j++
		}
		tok := strings.TrimRight(text[i:j], ".-")
		ticked := i > 0 && text[i-1] == '`'
		if j+2 < len(text) && text[j] == ':' && text[j+1] == '/' && text[j+2] == '/' {
			// A URL: skip it whole, its path is not a file in this project.
			for j < len(text) && text[j] != ' ' && text[j] != '\n' && text[j] != '\t' {
				j++
			}
			i = j
			continue
		}
		if !seen[tok] && isFileRef(tok, ticked) {
			seen[tok] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
		i = j
	}
	return len(seen)
}

func isPathByte(b byte) bool {
	return isWordByte(b) || b == '.' || b == '/' || b == '-' || b == '~' || b == '@' || b == '+'
}

func isFileRef(tok string, ticked bool) bool {
	base := tok
	if k := strings.LastIndexByte(tok, '/'); k >= 0 {
		base = tok[k+1:]
	}
	if len(base) <= longestBare && bareFiles[asciiLower(base)] {
		return true
	}
	if !strings.ContainsAny(tok, "./") || !strings.ContainsFunc(tok, func(r rune) bool { return r < 128 && isASCIILetter(byte(r)) }) {
		return false
	}
	if k := strings.LastIndexByte(base, '.'); k > 0 && len(base)-k <= 11 && sourceExts[asciiLower(base[k+1:])] {
		return true
	}
	slashes := strings.Count(tok, "/")
	if slashes == 0 || tok == "/" {
		return false
	}
	return slashes >= 2 || ticked || strings.HasSuffix(tok, "/") ||
		strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "./") || strings.HasPrefix(tok, "../") || strings.HasPrefix(tok, "~/")
}
