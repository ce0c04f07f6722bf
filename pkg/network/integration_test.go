package network

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/network/hns"
)

// TestReadBuildOnControlPlane writes the seed cluster's objects into a real
// API server, reads them back with Read and checks the load balancers
// kube-proxy would program on each Windows node, per build.
func TestReadBuildOnControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts a control plane")
	}
	cp, cleanup, err := cptest.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	c := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	createSeedObjects(ctx, t, c)

	snap, err := Read(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if snap.K8sMinor < 30 {
		t.Errorf("K8sMinor = %d, want the server's minor", snap.K8sMinor)
	}
	m := Build(snap)
	checkSeedModel(t, m)
}

// checkSeedModel: rule KP-3 (one ClusterIP and one NodePort load balancer
// per node for the NodePort Service), KP-4 (the other node's pod as a
// remote endpoint), KP-5 (source-IP affinity only on 2022), KP-7 (the
// 2022 overlay NodePort issue).
func checkSeedModel(t *testing.T, m *Model) {
	t.Helper()
	if got := m.Cluster.DNSServiceIP.String(); got != "10.96.0.10" {
		t.Errorf("DNSServiceIP = %s, want 10.96.0.10", got)
	}
	for _, tc := range []struct {
		node         string
		distribution string
		kp7          bool
	}{
		{"win2019-1", hns.DistributionNone, false},
		{"win2022-1", hns.DistributionSourceIP, true},
	} {
		n := m.Node(tc.node)
		if n == nil || !n.Proxy.Running {
			t.Fatalf("node %s: missing or kube-proxy not running: %+v", tc.node, n)
		}
		lbs := n.LoadBalancersOf("default/win-webserver")
		if len(lbs) != 2 {
			t.Fatalf("%s: %d load balancers for win-webserver, want ClusterIP and NodePort: %+v", tc.node, len(lbs), lbs)
		}
		for _, lb := range lbs {
			if len(lb.Endpoints) != 2 || lb.Distribution != tc.distribution || lb.SourceVIP == "" {
				t.Errorf("%s %s: endpoints %d, distribution %s, source VIP %q; want 2, %s, set", tc.node, lb.Kind, len(lb.Endpoints), lb.Distribution, lb.SourceVIP, tc.distribution)
			}
		}
		if got := hasRule(n.Findings, "KP-7"); got != tc.kp7 {
			t.Errorf("%s: KP-7 finding = %v, want %v (%v)", tc.node, got, tc.kp7, n.Findings)
		}
		if n.NodePortLoadBalancer(30080, hns.ProtocolTCP) == nil {
			t.Errorf("%s: no NodePort load balancer on 30080", tc.node)
		}
	}
}

// createSeedObjects creates seedCluster's objects. The Service has a
// selector-less twin of the fixture's Service so the EndpointSlice is ours
// (the endpointslice controller leaves slices it does not manage alone).
func createSeedObjects(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	t.Helper()
	s := seedCluster()
	s.Services[2].Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	for _, n := range s.Nodes {
		_, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		must(t, "create node "+n.Name, err)
		// The controller-manager writes to new nodes too (taints, pod CIDR).
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := c.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Status.Addresses = n.Status.Addresses
			_, err = c.CoreV1().Nodes().UpdateStatus(ctx, cur, metav1.UpdateOptions{})
			return err
		})
		must(t, "update node status "+n.Name, err)
	}
	for _, cm := range s.ConfigMaps {
		_, err := c.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		must(t, "create configmap", err)
	}
	for _, ds := range s.DaemonSets {
		_, err := c.AppsV1().DaemonSets(ds.Namespace).Create(ctx, ds, metav1.CreateOptions{})
		must(t, "create daemonset", err)
	}
	createServices(ctx, t, c, s)
	createPods(ctx, t, c, s)
	for _, sl := range s.EndpointSlices {
		_, err := c.DiscoveryV1().EndpointSlices(sl.Namespace).Create(ctx, sl, metav1.CreateOptions{})
		must(t, "create endpointslice", err)
	}
}

func createServices(ctx context.Context, t *testing.T, c kubernetes.Interface, s *Snapshot) {
	t.Helper()
	for _, svc := range s.Services {
		if svc.Name == "kubernetes" {
			continue // the API server keeps its own
		}
		svc = svc.DeepCopy()
		svc.Spec.Selector = nil
		_, err := c.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			continue
		}
		must(t, "create service "+svc.Name, err)
	}
}

// createPods creates the pods once their namespace's service account
// exists, and gives them their IPs.
func createPods(ctx context.Context, t *testing.T, c kubernetes.Interface, s *Snapshot) {
	t.Helper()
	for _, p := range s.Pods {
		p = p.DeepCopy()
		p.UID = ""
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "mcr.microsoft.com/windows/servercore:ltsc2019"}}
		p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		var created *corev1.Pod
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			var err error
			created, err = c.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
			return err == nil, nil // the service account may not exist yet
		})
		must(t, "create pod "+p.Name, err)
		created.Status = p.Status
		_, err = c.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		must(t, "set pod IP "+p.Name, err)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", what, err))
	}
}

var _ = slices.Contains[[]string]
