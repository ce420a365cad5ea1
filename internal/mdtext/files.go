package mdtext

import (
	"strings"
	"sync"
)

// names are the word lists that make a bare word a file name, built on
// first use (a hook that never reads a reply does not build them).
var names = sync.OnceValue(func() fileNames {
	n := fileNames{exts: map[string]bool{}, bare: map[string]bool{}}
	for _, e := range strings.Fields(`
		go mod sum py pyi ipynb js mjs cjs ts tsx jsx rs java kt kts scala rb php c h cc cpp hpp cxx cs fs
		swift mm dart lua ex exs erl hs ml clj vue svelte html css scss sass less
		sh bash zsh fish ps1 sql proto graphql md mdx rst txt json jsonl yaml yml
		toml ini cfg conf env xml gradle tf lock dockerfile mk cmake nix zig vim el pl pm`) {
		n.exts[e] = true
	}
	for _, f := range strings.Fields("makefile dockerfile gemfile rakefile justfile procfile license") {
		n.bare[f] = true
		n.longestBare = max(n.longestBare, len(f))
	}
	return n
})

type fileNames struct {
	// exts are the extensions that make a bare word a file name: source,
	// build, config and documentation files. Single letters common in
	// prose ("r", "m") are left out.
	exts map[string]bool
	// bare are file names without an extension that are still files.
	bare map[string]bool
	// longestBare is the length of the longest bare name: longer words are
	// not looked up, which spares lower-casing every word of prose.
	longestBare int
}

// SourceExt reports whether ext (without the dot, any case) is one of the
// extensions that mark a word as a file name.
func SourceExt(ext string) bool { return len(ext) <= 10 && names().exts[asciiLower(ext)] }

// FileRefs returns the distinct file references in text in order of first
// appearance, at most limit of them (limit <= 0: all). A reference is a word
// of path characters (letters, digits and "_./-~@+") that ends in a known
// extension ("main.go", "cmd/app/main.go", "main.go:12" counts as
// "main.go"), is a known bare file name ("Makefile"), or is a path: it
// starts with "/", "./", "../" or "~/", ends with "/", has two or more
// slashes, or follows a backtick. A single slash between plain words
// ("and/or", "read/write") is prose, and URLs are not files.
func FileRefs(text string, limit int) []string {
	var out []string
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
			out = append(out, tok)
			if len(out) == limit {
				return out
			}
		}
		i = j
	}
	return out
}

func isPathByte(b byte) bool {
	return isWordByte(b) || b == '.' || b == '/' || b == '-' || b == '~' || b == '@' || b == '+'
}

func isFileRef(tok string, ticked bool) bool {
	base := tok
	if k := strings.LastIndexByte(tok, '/'); k >= 0 {
		base = tok[k+1:]
	}
	if n := names(); len(base) <= n.longestBare && n.bare[asciiLower(base)] {
		return true
	}
	if !strings.ContainsAny(tok, "./") || !strings.ContainsFunc(tok, func(r rune) bool { return r < 128 && isASCIILetter(byte(r)) }) {
		return false
	}
	if k := strings.LastIndexByte(base, '.'); k > 0 && SourceExt(base[k+1:]) {
		return true
	}
	slashes := strings.Count(tok, "/")
	if slashes == 0 || tok == "/" {
		return false
	}
	return slashes >= 2 || ticked || strings.HasSuffix(tok, "/") ||
		strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "./") || strings.HasPrefix(tok, "../") || strings.HasPrefix(tok, "~/")
}

func isASCIILetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

func isWordByte(b byte) bool {
	return b == '_' || (b >= '0' && b <= '9') || isASCIILetter(b)
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the result
// match the input.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			b := []byte(s)
			for k := i; k < len(b); k++ {
				if b[k] >= 'A' && b[k] <= 'Z' {
					b[k] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
