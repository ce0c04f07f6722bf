package addons

import (
	"context"
	"flag"
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
	client  kubernetes.Interface
	cluster *v1alpha1.Cluster
	agent   *node.Agent
)

func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent() // the control plane's children are this binary
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run()
	}
	cp, cleanup, err := cptest.Start("")
	if err != nil {
		fmt.Fprintln(os.Stderr, "start control plane:", err)
		return 1
	}
	defer cleanup()
	cfg := rest.CopyConfig(cp.RESTConfig())
	cfg.QPS, cfg.Burst = 100, 200
	client = kubernetes.NewForConfigOrDie(cfg)
	cluster = v1alpha1.DefaultCluster()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agent, err = node.Start(ctx, node.Options{Config: cp.RESTConfig(), Cluster: cluster})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start node agent:", err)
		return 1
	}
	defer agent.Close()
	select {
	case <-agent.Ready():
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "nodes not Ready within 2 minutes")
		return 1
	}
	return m.Run()
}

func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}
