// Package webhook is `winkube webhook`: serve the admission webhook, and
// install it on a cluster or remove it.
package webhook

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/webhook"
)

// NewCommand returns `winkube webhook` and its subcommands.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "webhook",
		Short: "Admission webhook that places Windows workloads on nodes that can run their images",
		Long: "The winkube admission webhook adds to each Pod what it needs to land on a node that can run its " +
			"images (kubernetes.io/os, the Windows build, the Windows taint's toleration) and refuses what " +
			"Windows cannot run, with the rule book's messages.\n\n" +
			"  serve      run the HTTPS server (in a pod, or anywhere kube-apiserver reaches)\n" +
			"  install    run it in a cluster (or register one served elsewhere with --url)\n" +
			"  uninstall  remove what install created",
		Args: cobra.NoArgs,
	}
	c.AddCommand(newServeCommand(streams), newInstallCommand(streams), newUninstallCommand(streams))
	return c
}

// decisionFlags are the webhook's policy, shared by serve and install
// (which passes them on to the pods it runs).
type decisionFlags struct{ webhook.ServeFlags }

func (d *decisionFlags) add(fs *pflag.FlagSet) { d.AddFlags(fs) }

// args are the flags that reproduce d for `webhook serve`, only those that
// differ from the defaults so the pod spec stays short.
func (d *decisionFlags) args(fs *pflag.FlagSet) []string {
	var out []string
	for _, name := range []string{"windows-taint", "enforce", "warn", "mode", "on-registry-error", "resolve-images", "registry-mirror", "registry-timeout"} {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+name+"="+v)
			}
			continue
		}
		out = append(out, "--"+name+"="+f.Value.String())
	}
	return out
}

func (d *decisionFlags) validate() error { return d.Validate() }

// clusterFlags say which cluster to talk to: kubeflags' --kubeconfig,
// --context and --data-dir.
type clusterFlags struct{ kubeflags.Flags }

func (c *clusterFlags) add(fs *pflag.FlagSet) { c.AddFlags(fs) }

// restConfig picks the cluster the way every winkube command does. inPod
// adds the pod's service account when running in a cluster with no flag
// set.
func (c *clusterFlags) restConfig(inPod bool) (*rest.Config, error) {
	if inPod {
		return c.InPodRESTConfig()
	}
	return c.RESTConfig()
}
