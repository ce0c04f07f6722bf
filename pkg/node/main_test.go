package node

import (
	"context"
	"flag"
	"fmt"
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

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// One control plane and one agent with the default cluster serve every
// integration test of the package.
var (
	restConfig *rest.Config
	client     kubernetes.Interface
	agent      *Agent
	cluster    *v1alpha1.Cluster
	readyAfter time.Duration
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
	restConfig = cp.RESTConfig()
	fast := rest.CopyConfig(restConfig)
	fast.QPS, fast.Burst = 200, 400 // the test client must not be the bottleneck
	client = kubernetes.NewForConfigOrDie(fast)
	cluster = v1alpha1.DefaultCluster()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agent, err = Start(ctx, Options{Config: restConfig, Cluster: cluster, Progress: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start node agent:", err)
		return 1
	}
	defer agent.Close()
	select {
	case <-agent.Ready():
		readyAfter = time.Since(began)
		fmt.Fprintf(os.Stderr, "%d nodes Ready after %s\n", len(agent.NodeNames()), readyAfter.Round(time.Millisecond))
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "nodes not Ready within 2 minutes")
		return 1
	}
	return m.Run()
}

// needCluster skips integration tests under -short.
func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t testing.TB) string {
	t.Helper()
	name := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	if len(name) > 50 {
		name = name[:50]
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}
	created, err := client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().Namespaces().Delete(context.Background(), created.Name, metav1.DeleteOptions{})
	})
	// The service account controller must create "default" before pods can
	// be created in the namespace.
	waitFor(t, 30*time.Second, "default service account", func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts(created.Name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	return created.Name
}

// waitFor polls cond every 200 ms until it holds or timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, cond)
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// waitPod polls a pod until cond holds and returns the last version seen.
func waitPod(t testing.TB, ns, name string, timeout time.Duration, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = p
		return cond(p), nil
	})
	if err != nil {
		t.Fatalf("waiting for pod %s/%s %s: %v; last status: %+v", ns, name, what, err, statusOf(last))
	}
	return last
}

func statusOf(p *corev1.Pod) any {
	if p == nil {
		return nil
	}
	return p.Status
}

// podEvents lists the events about one pod.
func podEvents(t *testing.T, ns, name string) []corev1.Event {
	t.Helper()
	sel := fields.OneTermEqualSelector("involvedObject.name", name).String()
	list, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	return list.Items
}

// waitEvent waits for an event about the object with the reason and a
// message containing substr.
func waitEvent(t *testing.T, ns, name, reason, substr string, timeout time.Duration) corev1.Event {
	t.Helper()
	var found corev1.Event
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		for _, e := range podEvents(t, ns, name) {
			if e.Reason == reason && strings.Contains(e.Message, substr) {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		var seen []string
		for _, e := range podEvents(t, ns, name) {
			seen = append(seen, e.Reason+": "+e.Message)
		}
		t.Fatalf("no %s event containing %q for %s/%s; events:\n%s", reason, substr, ns, name, strings.Join(seen, "\n"))
	}
	return found
}

// windowsToleration tolerates the SCH-3 taint of the default Windows pools.
var windowsToleration = corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}

// simplePod is a one-container pod bound directly to a node. A Windows
// base image's default command is cmd.exe, which exits at once with stdin
// closed, as on a real node; the pod runs a command that lasts instead.
func simplePod(name, nodeName, image string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			NodeName:    nodeName,
			Tolerations: []corev1.Toleration{windowsToleration},
			Containers:  []corev1.Container{{Name: "main", Image: image}},
		},
	}
	if strings.HasPrefix(image, "mcr.microsoft.com/windows/") && !strings.Contains(image, "/iis") {
		pod.Spec.Containers[0].Command = []string{"cmd", "/c", "ping -t localhost > nul"}
	}
	return pod
}

func createPod(t testing.TB, ns string, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	created, err := client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s: %v", pod.Name, err)
	}
	return created
}
