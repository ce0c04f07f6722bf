package metrics_test

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/metrics"
	"github.com/winkube/winkube/pkg/node"
)

// One control plane, the default cluster's nodes and the metrics API serve
// every test, wired as `winkube up` wires them: kube-apiserver reaches the
// kubelets and the metrics API through the egress proxy.
var (
	client  kubernetes.Interface
	rawREST rest.Interface
)

func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run()
	}
	var agent atomic.Pointer[node.Agent]
	var api atomic.Pointer[metrics.Server]
	dial := func(ctx context.Context, addr string) (net.Conn, bool, error) {
		if s := api.Load(); s != nil {
			if c, ok, err := s.Dial(ctx, addr); ok {
				return c, ok, err
			}
		}
		if a := agent.Load(); a != nil {
			return a.DialKubelet(addr)
		}
		return nil, false, nil
	}
	cp, cleanup, err := cptest.StartOptions(controlplane.Options{NodeDialer: dial})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start control plane:", err)
		return 1
	}
	defer cleanup()
	cfg := cp.RESTConfig()
	cfg.QPS, cfg.Burst = 200, 400
	client = kubernetes.NewForConfigOrDie(cfg)
	rawREST = client.CoreV1().RESTClient()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := node.Start(ctx, node.Options{Config: cfg, Cluster: v1alpha1.DefaultCluster()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start node agent:", err)
		return 1
	}
	defer a.Close()
	agent.Store(a)
	select {
	case <-a.Ready():
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "nodes not Ready within 2 minutes")
		return 1
	}
	s, err := metrics.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start metrics API:", err)
		return 1
	}
	defer s.Close()
	api.Store(s)
	return m.Run()
}

func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}

// waitFor polls cond every 500 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, timeout, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
