package apitest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/node"
)

// One control plane with the default cluster's emulated nodes (pools
// linux, win2019 ×2, win2022) serves the tests.
var (
	client     kubernetes.Interface
	kubeconfig string
)

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(cp *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		client = kubernetes.NewForConfigOrDie(cfg)
		kubeconfig = cp.KubeconfigPath()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		agent, err := node.Start(ctx, node.Options{Config: cp.RESTConfig(), Cluster: v1alpha1.DefaultCluster()})
		if err != nil {
			return nil, fmt.Errorf("start node agent: %w", err)
		}
		select {
		case <-agent.Ready():
		case <-ctx.Done():
			agent.Close()
			return nil, fmt.Errorf("nodes not Ready: %v", agent.NotReady())
		}
		return func() { agent.Close() }, nil
	}))
}

func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}
