package addons

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

// One control plane and the default cluster's emulated nodes serve the
// integration tests.
var (
	client     kubernetes.Interface
	restConfig *rest.Config
	cluster    *v1alpha1.Cluster
	agent      *node.Agent
)

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(cp *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		client = kubernetes.NewForConfigOrDie(cfg)
		restConfig = cfg
		cluster = v1alpha1.DefaultCluster()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var err error
		agent, err = node.Start(ctx, node.Options{Config: cp.RESTConfig(), Cluster: cluster})
		if err != nil {
			return nil, fmt.Errorf("start node agent: %w", err)
		}
		select {
		case <-agent.Ready():
			return func() { agent.Close() }, nil
		case <-ctx.Done():
			agent.Close()
			return nil, fmt.Errorf("nodes not Ready within 2 minutes")
		}
	}))
}

func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}
