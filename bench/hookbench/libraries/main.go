// Command libraries does nothing, like the minimal Go program, but links
// the libraries plansmith's binary links (the third-party modules and the
// heavier parts of the standard library), so that their initialisation
// and the size they add are paid as plansmith pays them. hookbench times
// it between the minimal Go program and plansmith, to show how much of a
// hook call is the libraries' and how much plansmith's own.
package main

import (
	_ "crypto/rand"
	_ "crypto/sha256"
	_ "encoding/json"
	_ "os/exec"
	_ "regexp"
	_ "text/template"

	_ "github.com/spf13/cobra"
	_ "gopkg.in/yaml.v3"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {}
