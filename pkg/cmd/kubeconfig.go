package cmd

import (
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/pkg/datadir"
)

// KubeClient connects to the cluster the way kubectl picks it: --kubeconfig,
// else $KUBECONFIG, else the kubeconfig of the winkube data dir (default
// ~/.winkube/default).
func KubeClient(kubeconfig, dataDir string) (kubernetes.Interface, error) {
	path := kubeconfig
	if path == "" {
		path = os.Getenv("KUBECONFIG")
	}
	if path == "" {
		dir, err := datadir.Resolve(dataDir)
		if err != nil {
			return nil, err
		}
		path = datadir.Kubeconfig(dir)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig %s (set --kubeconfig): %w", path, err)
	}
	return kubernetes.NewForConfig(cfg)
}
