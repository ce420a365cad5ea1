package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/plansmith/plansmith"
)

// versionLine is what `plansmith version` prints and `plansmith doctor`
// shows: the one version (plansmith.Version), the Go release and platform.
func versionLine() string {
	return fmt.Sprintf("plansmith %s (%s, %s/%s)", plansmith.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print plansmith's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprintln(env.Stdout, versionLine())
		},
	}
}
