package wardle_test

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/node"
)

// One control plane and the default cluster's nodes serve the
// integration test, wired as `winkube up` wires them: kube-apiserver
// reaches pods and Services (the aggregator's APIService backends)
// through the egress proxy.
var (
	restConfig *rest.Config
	client     kubernetes.Interface
)

func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent() // the control plane's children are this binary
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run()
	}
	var agent atomic.Pointer[node.Agent]
	dial := func(ctx context.Context, addr string) (net.Conn, bool, error) {
		a := agent.Load()
		if a == nil {
			return nil, false, nil
		}
		if c, ok, err := a.DialKubelet(addr); ok {
			return c, ok, err
		}
		return a.DialCluster(ctx, addr)
	}
	cp, cleanup, err := cptest.StartOptions(controlplane.Options{NodeDialer: dial})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start control plane:", err)
		return 1
	}
	defer cleanup()
	restConfig = cp.RESTConfig()
	restConfig.QPS, restConfig.Burst = 200, 400
	client = kubernetes.NewForConfigOrDie(restConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := node.Start(ctx, node.Options{Config: restConfig, Cluster: v1alpha1.DefaultCluster()})
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
	return m.Run()
}
