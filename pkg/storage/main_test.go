package storage

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// One real control plane serves every integration test of the package: its
// kube-controller-manager runs the PV controller that hands claims over and
// binds them.
var client kubernetes.Interface

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		client = kubernetes.NewForConfigOrDie(cfg)
		return nil, nil
	}))
}

// needCluster skips integration tests under -short.
func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t *testing.T) string { return cptest.Namespace(t, client) }

// newNode registers a bare Node object (no kubelet behind it) with the
// labels the provisioner reads.
func newNode(t *testing.T, name, os string) *corev1.Node {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		corev1.LabelOSStable: os, corev1.LabelHostname: name,
	}}}
	created, err := client.CoreV1().Nodes().Create(context.Background(), node, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create node %s: %v", name, err)
	}
	t.Cleanup(func() { _ = client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return created
}

// startProvisioner starts a provisioner that the test's cleanup stops.
func startProvisioner(t *testing.T) *Provisioner {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Start(ctx, client, Options{})
	if err != nil {
		t.Fatalf("start provisioner: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// waitFor polls cond every 200 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, cond)
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// waitEvent waits for an event about the object with the reason and a
// message containing substr, and returns it.
func waitEvent(t *testing.T, ns, name, reason, substr string) corev1.Event {
	t.Helper()
	var found corev1.Event
	var seen []string
	sel := fields.OneTermEqualSelector("involvedObject.name", name).String()
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			return false, nil
		}
		seen = seen[:0]
		for _, e := range list.Items {
			seen = append(seen, e.Reason+": "+e.Message)
			if e.Reason == reason && strings.Contains(e.Message, substr) {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no %s event containing %q for %s/%s; events:\n%s", reason, substr, ns, name, strings.Join(seen, "\n"))
	}
	return found
}
