package plansmith

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every package the binary links is initialised at every hook call, so
// none may do at start what it can do on first use: compile a regular
// expression (internal/lazyre) or parse a template (issue 18; a review's
// snapshot reader compiled six expressions for every hook call). This
// reads the package-level declarations of each of them.
func TestNoPackageWorkAtStart(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Dir}}", "./cmd/plansmith").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	costly := map[string]bool{"regexp.MustCompile": true, "regexp.Compile": true, "template.Must": true, "template.New": true}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		if path != "github.com/plansmith/plansmith" && !strings.HasPrefix(path, "github.com/plansmith/plansmith/") {
			continue // the standard library's or another module's: not ours to change
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			require.NoError(t, err)
			checked++
			for _, decl := range file.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.VAR {
					continue
				}
				ast.Inspect(gen, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
						if pkg, ok := sel.X.(*ast.Ident); ok && costly[pkg.Name+"."+sel.Sel.Name] {
							t.Errorf("%s: a package-level %s.%s runs at every hook call; use internal/lazyre or build it on first use", f, pkg.Name, sel.Sel.Name)
						}
					}
					return true
				})
			}
		}
	}
	require.Greater(t, checked, 50, "the binary's own files were found")
}
