package up

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/kubeconfig"
)

// settle decides what cobra's defaults cannot: whether the cluster is
// named and so merged into the user's kubeconfig by default. A --data-dir
// without --name (how scripts and tests run many clusters side by side)
// would otherwise make every such cluster fight over context
// winkube-winkube.
func (f *flags) settle(fs *pflag.FlagSet) {
	f.named = fs.Changed("name") || f.dataDir == ""
	if !fs.Changed("kubeconfig-merge") && !f.named {
		f.merge = false
	}
}

// resolveDir is the data dir: --data-dir, else the name's. A named
// cluster may not take a name another data dir holds.
func (f *flags) resolveDir() (string, error) {
	dir, err := datadir.Resolve(f.dataDir)
	if f.dataDir == "" {
		dir, err = datadir.ForName(f.name)
	}
	if err != nil {
		return "", err
	}
	if f.named {
		if err := datadir.CheckNameFree(f.name, dir); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// register makes the running cluster findable by name (winkube list,
// status, stop, down NAME) and merges it into the user's kubeconfig.
// Neither failure stops the cluster: it runs, and says how to reach it.
func (f *flags) register(streams cmd.IOStreams, cl *cluster.Cluster) {
	if f.named {
		if err := datadir.Register(f.name, cl.DataDir); err != nil {
			fmt.Fprintf(streams.Out, "Warning: %v\n", err)
		}
	}
	if !f.merge {
		return
	}
	path, err := kubeconfig.Path()
	if err == nil {
		err = kubeconfig.Merge(path, cl.Kubeconfig(), f.name)
	}
	if err != nil {
		fmt.Fprintf(streams.Out, "Warning: not merged into your kubeconfig: %v\n", err)
		return
	}
	fmt.Fprintf(streams.Out, "Context %s merged into %s and made current (kubectl get nodes).\n", kubeconfig.ContextName(f.name), path)
}
