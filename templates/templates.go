// Package templates holds every prompt, message and slash-command text that
// plansmith shows to a model or a user, as embedded markdown files rendered
// with text/template.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"sync"
	"text/template"
	"unicode"
)

//go:embed *
var files embed.FS

var (
	mu    sync.Mutex
	cache = map[string]*template.Template{}
)

// Text returns the raw contents of the embedded file name (for example
// "phases/understand.md"), or an error naming the file when it is absent.
func Text(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return string(b), nil
}

// Render executes the embedded template name with data. Templates are parsed
// once per process and cached.
func Render(name string, data any) (string, error) {
	t, err := load(name)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return buf.String(), nil
}

// Show renders the embedded template name with data, for text that must
// reach a person or a model whatever happens: a hook has to answer. A
// template that fails to render is a build defect (TestEveryTemplateRenders
// renders each one), so instead of an error Show returns a one-line notice
// naming it. Every user-facing text goes through Show or Render.
func Show(name string, data any) string {
	out, err := Render(name, data)
	if err != nil {
		return fmt.Sprintf("plansmith: internal error rendering %s: %v", name, err)
	}
	return out
}

func load(name string) (*template.Template, error) {
	mu.Lock()
	defer mu.Unlock()
	if t, ok := cache[name]; ok {
		return t, nil
	}
	src, err := Text(name)
	if err != nil {
		return nil, err
	}
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(src)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	cache[name] = t
	return t, nil
}

var funcs = template.FuncMap{
	"join":    strings.Join,
	"trim":    strings.TrimSpace,
	"lower":   strings.ToLower,
	"add":     func(a, b int) int { return a + b },
	"oneline": OneLine,
	"slash":   Slash,
	"cli":     CLI,
	"codex":   Codex,
}

// OneLine collapses s to one line of at most max bytes, cut at a rune
// boundary and marked with "…" when shortened; it is Printable.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(Printable(s)), " ")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not the first byte of a rune
		cut--
	}
	return s[:cut] + "…"
}

// Printable makes text from files plansmith did not write (a plan's
// request, a file name, a lesson) safe to print on a terminal: control
// characters other than white space, and the marks that reorder
// bidirectional text, become "?", so no escape sequence from a repository
// redraws what the user reads (review V7).
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return r
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			return '?'
		}
		return r
	}, s)
}
