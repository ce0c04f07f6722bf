// Package version is `winkube version`.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/kubeversion"
)

// Kubernetes is the upstream release the control plane and nodes report.
const Kubernetes = kubeversion.Default

// NewCommand returns `winkube version`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the winkube version and the Kubernetes version it runs",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(streams.Out, Line())
			return nil
		},
	}
}

// Line is what `winkube version` and `winkube --version` print.
func Line() string {
	return fmt.Sprintf("winkube %s (kubernetes %s, %s %s/%s)", Winkube(), Kubernetes, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Winkube is this build's version: the module version when installed with
// `go install`, else the VCS revision when known, else "devel".
func Winkube() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}
