package loadbalancer

import (
	"context"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// One control plane serves every integration test of the package. The
// tests run one after another, each with its own controller: two
// controllers with different pools would fight over the same Services.
var client kubernetes.Interface

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		client = kubernetes.NewForConfigOrDie(cfg)
		return nil, nil
	}))
}

func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}

// startController runs a controller on pool for the rest of the test.
func startController(t *testing.T, pool string) *Controller {
	t.Helper()
	c, err := Start(context.Background(), client, netip.MustParsePrefix(pool))
	if err != nil {
		t.Fatalf("start controller: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t *testing.T) string { return cptest.Namespace(t, client) }

// lbService is a LoadBalancer Service with one port; loadBalancerIP may be
// empty.
func lbService(name, loadBalancerIP string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{
			Type:           corev1.ServiceTypeLoadBalancer,
			Selector:       map[string]string{"app": name},
			LoadBalancerIP: loadBalancerIP,
			Ports:          []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}},
		},
	}
}

func createService(t *testing.T, ns string, svc *corev1.Service) *corev1.Service {
	t.Helper()
	created, err := client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create Service %s: %v", svc.Name, err)
	}
	return created
}

func getService(t *testing.T, ns, name string) *corev1.Service {
	t.Helper()
	svc, err := client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get Service %s: %v", name, err)
	}
	return svc
}

// waitIngress waits until the Service shows one ingress IP and returns it.
func waitIngress(t *testing.T, ns, name string) netip.Addr {
	t.Helper()
	var got netip.Addr
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		svc, err := client.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil || len(svc.Status.LoadBalancer.Ingress) != 1 {
			return false, nil
		}
		got, err = netip.ParseAddr(svc.Status.LoadBalancer.Ingress[0].IP)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("Service %s/%s got no ingress IP: %v", ns, name, err)
	}
	return got
}

// serviceEvents lists the events about one Service.
func serviceEvents(t *testing.T, ns, name string) []corev1.Event {
	t.Helper()
	sel := fields.OneTermEqualSelector("involvedObject.name", name).String()
	list, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	return list.Items
}

// waitEvent waits for an event of the service controller about the Service
// with the type, reason and a message containing substr.
func waitEvent(t *testing.T, ns, name, eventType, reason, substr string) corev1.Event {
	t.Helper()
	var found corev1.Event
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		for _, e := range serviceEvents(t, ns, name) {
			if e.Type == eventType && e.Reason == reason && strings.Contains(e.Message, substr) && e.Source.Component == "service-controller" {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		var seen []string
		for _, e := range serviceEvents(t, ns, name) {
			seen = append(seen, e.Type+" "+e.Reason+" ("+e.Source.Component+"): "+e.Message)
		}
		t.Fatalf("no %s %s event containing %q for Service %s/%s; events:\n%s", eventType, reason, substr, ns, name, strings.Join(seen, "\n"))
	}
	return found
}
