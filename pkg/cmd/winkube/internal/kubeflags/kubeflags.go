// Package kubeflags is the one way winkube's commands pick the cluster they
// talk to: --kubeconfig, $KUBECONFIG and --context as kubectl reads them,
// plus --data-dir for a winkube cluster on this machine, or the pod's
// service account for a command that runs in its cluster. It gives a
// *rest.Config and writes nothing: no command copies a kubeconfig, or the
// credentials in it, anywhere.
package kubeflags

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/winkube/winkube/pkg/datadir"
)

// Flags say which cluster a command talks to.
type Flags struct {
	Kubeconfig string
	Context    string
	DataDir    string

	// join: the cluster must be named (AddJoinFlags).
	join bool

	// What the last load used, for Explain.
	dir    string // the winkube data dir, when the kubeconfig is its own
	from   string // which flag or variable named the kubeconfig
	ctx    string // the context used
	server string // the API server's URL
}

// AddFlags defines --kubeconfig, --context and --data-dir on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default: $KUBECONFIG, else the winkube cluster of --data-dir)")
	fs.StringVar(&f.Context, "context", "", "kubeconfig context to use (default: the kubeconfig's current context)")
	fs.StringVar(&f.DataDir, "data-dir", "", "data dir of a winkube cluster on this machine, used when no kubeconfig is given (default ~/.winkube/default)")
}

// AddJoinFlags defines --kubeconfig and --context for a command that
// changes the cluster it is given (`winkube nodes` joins nodes to it): the
// cluster is --kubeconfig, else $KUBECONFIG, else, in a pod, the pod's
// service account. Unlike kubectl there is no fallback to ~/.kube/config
// or a winkube data dir: joining nodes to a cluster nobody named would be
// a surprise. usage is --kubeconfig's help.
func (f *Flags) AddJoinFlags(fs *pflag.FlagSet, usage string) {
	f.join = true
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", usage)
	fs.StringVar(&f.Context, "context", "", "kubeconfig context to use (default: the current context)")
}

// ErrNotNamed is the error of join flags that name no cluster.
var ErrNotNamed = errors.New("no cluster to join: set --kubeconfig or $KUBECONFIG")

// inClusterSource names the pod's service account as the source.
const inClusterSource = "the pod's service account (in-cluster config)"

// Given reports whether any flag names a cluster.
func (f *Flags) Given() bool {
	return f.Kubeconfig != "" || f.Context != "" || f.DataDir != ""
}

// rules picks the kubeconfig files: --kubeconfig; else an explicit
// --data-dir's kubeconfig; else $KUBECONFIG; else, with --context,
// kubectl's ~/.kube/config (where `winkube up` merges winkube-NAME); else
// the default winkube cluster's kubeconfig.
func (f *Flags) rules() (*clientcmd.ClientConfigLoadingRules, string, error) {
	if f.join {
		return f.joinRules()
	}
	switch {
	case f.Kubeconfig != "":
		return &clientcmd.ClientConfigLoadingRules{ExplicitPath: f.Kubeconfig}, "--kubeconfig " + f.Kubeconfig, nil
	case f.DataDir == "" && os.Getenv(clientcmd.RecommendedConfigPathEnvVar) != "":
		return clientcmd.NewDefaultClientConfigLoadingRules(), "$KUBECONFIG", nil
	case f.DataDir == "" && f.Context != "":
		return clientcmd.NewDefaultClientConfigLoadingRules(), clientcmd.RecommendedHomeFile, nil
	}
	dir, err := datadir.Resolve(f.DataDir)
	if err != nil {
		return nil, "", err
	}
	f.dir = dir
	path := datadir.Kubeconfig(dir)
	if _, err := os.Stat(path); err != nil {
		return nil, "", fmt.Errorf("no winkube cluster in %s (no kubeconfig there): start one with `%s`, or pass --kubeconfig", dir, upCommand(dir))
	}
	return &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}, "--data-dir " + dir, nil
}

// joinRules are the rules of AddJoinFlags; nil rules stand for the pod's
// service account.
func (f *Flags) joinRules() (*clientcmd.ClientConfigLoadingRules, string, error) {
	env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar)
	switch {
	case f.Kubeconfig != "":
		return &clientcmd.ClientConfigLoadingRules{ExplicitPath: f.Kubeconfig}, "--kubeconfig " + f.Kubeconfig, nil
	case env != "":
		return &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(env)}, "$KUBECONFIG " + env, nil
	case inPod():
		return nil, inClusterSource, nil
	}
	return nil, "", ErrNotNamed
}

// inPod reports whether this process runs in a Kubernetes pod, which the
// kubelet tells by the API server's service variables.
func inPod() bool {
	return os.Getenv("KUBERNETES_SERVICE_HOST") != "" && os.Getenv("KUBERNETES_SERVICE_PORT") != ""
}

// Source names where the last RESTConfig came from, for messages: the
// flag or variable, or the pod's service account.
func (f *Flags) Source() string { return f.from }

func (f *Flags) clientConfig() (clientcmd.ClientConfig, string, error) {
	f.dir, f.ctx, f.server, f.from = "", "", "", ""
	rules, from, err := f.rules()
	if err != nil {
		return nil, "", err
	}
	f.from = from
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.Context})
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, "", fmt.Errorf("reading the kubeconfig of %s: %w", from, err)
	}
	f.ctx = raw.CurrentContext
	if f.Context != "" {
		f.ctx = f.Context
		if raw.Contexts[f.Context] == nil {
			return nil, "", fmt.Errorf("--context %q: no such context in the kubeconfig of %s (contexts: %s)", f.Context, from, contextNames(raw))
		}
	}
	return cc, from, nil
}

// RESTConfig is the client config of the chosen cluster and context.
func (f *Flags) RESTConfig() (*rest.Config, error) {
	if f.join {
		if _, from, err := f.joinRules(); err == nil && from == inClusterSource {
			return f.inCluster()
		}
	}
	cc, from, err := f.clientConfig()
	if err != nil {
		return nil, err
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig of %s: %w", from, err)
	}
	f.server = cfg.Host
	return cfg, nil
}

// Client is a clientset for the chosen cluster.
func (f *Flags) Client() (kubernetes.Interface, error) {
	cfg, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

func contextNames(raw clientcmdapi.Config) string {
	names := make([]string, 0, len(raw.Contexts))
	for n := range raw.Contexts {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "none"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Args are the flags that name the same cluster on another winkube
// command line: --kubeconfig (else --data-dir) and --context.
func (f *Flags) Args() []string {
	var out []string
	if f.Kubeconfig != "" {
		out = append(out, "--kubeconfig "+f.Kubeconfig)
	} else if f.DataDir != "" {
		out = append(out, "--data-dir "+f.DataDir)
	}
	if f.Context != "" {
		out = append(out, "--context "+f.Context)
	}
	return out
}

// InPodRESTConfig is RESTConfig, except that in a pod with no flag set it
// is the pod's service account (a webhook's server run in its cluster).
func (f *Flags) InPodRESTConfig() (*rest.Config, error) {
	if !f.Given() && inPod() {
		return f.inCluster()
	}
	return f.RESTConfig()
}

// inCluster is the pod's service account's config.
func (f *Flags) inCluster() (*rest.Config, error) {
	f.dir, f.ctx, f.from = "", "", inClusterSource
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("in-cluster config (or set --kubeconfig): %w", err)
	}
	f.server = cfg.Host
	return cfg, nil
}
