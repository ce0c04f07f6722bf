package doctor_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/addons"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/node"
)

// One control plane with the default cluster's emulated nodes and the
// kube-system add-ons, as `winkube up` leaves it, serves the integration
// tests.
var (
	client     kubernetes.Interface
	restConfig *rest.Config
	kubeconfig string
)

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(cp *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		restConfig = cfg
		client = kubernetes.NewForConfigOrDie(cfg)
		kubeconfig = cp.KubeconfigPath()
		cluster := v1alpha1.DefaultCluster()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		agent, err := node.Start(ctx, node.Options{Config: cp.RESTConfig(), Cluster: cluster})
		if err != nil {
			return nil, fmt.Errorf("start node agent: %w", err)
		}
		if err := upCluster(ctx, agent, cluster); err != nil {
			agent.Close()
			return nil, err
		}
		return func() { agent.Close() }, nil
	}))
}

// upCluster waits for the nodes, applies the add-ons and waits until every
// kube-system DaemonSet is ready on every node it covers.
func upCluster(ctx context.Context, agent *node.Agent, cluster *v1alpha1.Cluster) error {
	select {
	case <-agent.Ready():
	case <-ctx.Done():
		return fmt.Errorf("nodes not Ready: %v", agent.NotReady())
	}
	if err := addons.Apply(ctx, restConfig, cluster); err != nil {
		return fmt.Errorf("apply add-ons: %w", err)
	}
	return wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		dss, err := client.AppsV1().DaemonSets("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil || len(dss.Items) == 0 {
			return false, nil
		}
		for _, ds := range dss.Items {
			st := ds.Status
			if st.DesiredNumberScheduled == 0 || st.NumberReady != st.DesiredNumberScheduled {
				return false, nil
			}
		}
		dep, err := client.AppsV1().Deployments("kube-system").Get(ctx, addons.CoreDNSDeployment, metav1.GetOptions{})
		return err == nil && dep.Status.ReadyReplicas == *dep.Spec.Replicas, nil
	})
}

func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}
