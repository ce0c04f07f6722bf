// Package wardle is the program of the sample-apiserver image
// (registry.k8s.io/e2e-test-images/sample-apiserver, ENTRYPOINT
// /sample-apiserver): Kubernetes' sample aggregated API server, wardle.
// It runs upstream's own command, k8s.io/sample-apiserver's
// NewCommandStartWardleServer, inside winkube's process, with what a
// container gives a process in place of the host's:
//
//   - its port is bound on the pod network (--secure-port, 443), where
//     the aggregator reaches it through its Service, and forwarded to
//     the server's listener on the host's loopback, where its own
//     loopback clients reach it;
//   - etcd (--etcd-servers) is dialled through the pod network, so
//     http://127.0.0.1:2379 is the pod's own loopback (an etcd container
//     beside it, package etcd);
//   - the cluster is reached through the pod's service account, as its
//     in-cluster config would: the KUBERNETES_SERVICE_* variables, the
//     token and CA in the container's filesystem, the Service address
//     dialled through the pod network;
//   - the files its flags name (--tls-cert-file, --client-ca-file, ...)
//     are read from the container's filesystem; what it writes
//     (--cert-dir, --audit-log-path) goes to a private directory of the
//     host, removed when the container stops;
//   - it logs to the container's stderr what it logs through its
//     context's logger; the rest of its klog lines go where winkube's
//     own go.
package wardle

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cliflag "k8s.io/component-base/cli/flag"
	basecompatibility "k8s.io/component-base/compatibility"
	baseversion "k8s.io/component-base/version"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	"k8s.io/sample-apiserver/pkg/cmd/server"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Table is the programs of the image by program.Name.
func Table() map[string]program.Main {
	return map[string]program.Main{"sample-apiserver": Main}
}

// Main is /sample-apiserver: it serves until the container stops (exit
// 0) or fails as the real program fails (exit 1, the reason logged as
// component-base's cli.Run logs it).
func Main(ctx context.Context, p *program.Proc) int {
	o := server.NewWardleServerOptions(p.Stdout, p.Stderr)
	// A registry of its own: the process's default one, and the kube
	// feature gate in it, are winkube's.
	o.ComponentGlobalsRegistry = newRegistry()
	cmd := server.NewCommandStartWardleServer(ctx, o, false)
	verbosity := cmd.PersistentFlags().IntP("v", "v", 0, "number for the log level verbosity")
	cmd.SetArgs(p.Args[1:])
	cmd.SetOut(p.Stdout)
	cmd.SetErr(p.Stderr)
	// As component-base's cli.Run: flag names with _ or -, usage only
	// after a flag error, errors printed below.
	cmd.SetGlobalNormalizationFunc(cliflag.WordSepNormalizeFunc)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		c.SilenceUsage = false
		return err
	})
	// Past the flags, the real program has set up its logs and logs its
	// failure rather than print it.
	started := false
	preRunE := cmd.PersistentPreRunE
	cmd.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		started = true
		return preRunE(c, args)
	}
	runE := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(p.Stderr), textlogger.Verbosity(*verbosity)))
		c.SetContext(klog.NewContext(ctx, logger))
		pod, err := enterPod(ctx, p, c.Flags(), o)
		if err != nil {
			return err
		}
		defer pod.close()
		return runE(c, args)
	}
	if err := cmd.Execute(); err != nil {
		if !started {
			fmt.Fprintf(p.Stderr, "Error: %v\n", err)
		} else {
			logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(p.Stderr)))
			logger.Error(err, "command failed")
		}
		return 1
	}
	return 0
}

// newRegistry is a component registry with the kube component
// registered on a copy of the process's feature gate, so that wardle's
// --feature-gates and emulated version change only its own.
func newRegistry() basecompatibility.ComponentGlobalsRegistry {
	r := basecompatibility.NewComponentGlobalsRegistry()
	_ = r.Register(basecompatibility.DefaultKubeComponent,
		basecompatibility.NewEffectiveVersionFromString(baseversion.DefaultKubeBinaryVersion, "", ""),
		utilfeature.DefaultMutableFeatureGate.DeepCopy())
	return r
}

// flagSet is what enterPod needs of the command's flags.
type flagSet interface {
	Lookup(name string) *pflag.Flag
	Set(name, value string) error
}
