package addons

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The add-ons install on the real control plane, every pod runs on the
// right OS on the emulated nodes, and a second Apply (a resumed `up`)
// changes nothing and keeps a user's edit of kube-flannel-cfg.
// rule: PLAN-2, SCH-3
func TestApplyRunsEveryAddOn(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	if v, err := client.Discovery().ServerVersion(); err != nil || v.GitVersion != KubernetesVersion {
		t.Errorf("API server version = %v (%v), KubernetesVersion = %s", v, err, KubernetesVersion)
	}
	if err := Apply(ctx, restConfig, cluster); err != nil {
		t.Fatalf("apply: %v", err)
	}
	nodesByOS := nodeOS(t)
	wantDaemonSets := map[string]string{
		FlannelDaemonSet: "linux", FlannelWindowsDaemonSet: "windows",
		KubeProxyDaemonSet: "linux", KubeProxyWindowsDaemonSet: "windows",
	}
	for name, os := range wantDaemonSets {
		waitDaemonSet(t, name, countOS(nodesByOS, os))
	}
	waitDeployment(t, CoreDNSDeployment, CoreDNSReplicas)

	selectors := map[string]string{
		"k8s-app=flannel": "linux", "k8s-app=flannel-windows": "windows",
		"k8s-app=kube-proxy": "linux", "k8s-app=kube-proxy-windows": "windows",
		"k8s-app=kube-dns": "linux",
	}
	for sel, os := range selectors {
		pods := listPods(t, sel)
		onNodes := map[string]bool{}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodRunning || nodesByOS[p.Spec.NodeName] != os {
				t.Errorf("pod %s (%s): phase %s on node %q (%s), want Running on %s", p.Name, sel, p.Status.Phase, p.Spec.NodeName, nodesByOS[p.Spec.NodeName], os)
			}
			onNodes[p.Spec.NodeName] = true
		}
		if strings.Contains(sel, "kube-dns") {
			continue
		}
		// A node agent runs on every node of its OS.
		if len(onNodes) != countOS(nodesByOS, os) {
			t.Errorf("%s runs on %v, want every %s node", sel, keys(onNodes), os)
		}
	}
	t.Logf("kube-system pods:\n%s", podTable(t))
	checkResume(t)
}

// checkResume applies again after a user edited kube-flannel-cfg: nothing
// fails, nothing is duplicated, the edit stays and the workloads are not
// rewritten.
func checkResume(t *testing.T) {
	ctx := context.Background()
	cms := client.CoreV1().ConfigMaps(Namespace)
	cm, err := cms.Get(ctx, FlannelConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(cm.Data[NetConfKey], `"VNI": 4096`, `"VNI": 4097`, 1)
	cm.Data[NetConfKey] = edited
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := generations(t)
	if err := Apply(ctx, restConfig, cluster); err != nil {
		t.Fatalf("second apply: %v", err)
	}
	cm, err = cms.Get(ctx, FlannelConfigMap, metav1.GetOptions{})
	if err != nil || cm.Data[NetConfKey] != edited {
		t.Errorf("resumed apply replaced the user's net-conf.json:\n%s", cm.Data[NetConfKey])
	}
	if after := generations(t); after != before {
		t.Errorf("resumed apply rewrote workloads: generations %s, then %s", before, after)
	}
	ds, err := client.AppsV1().DaemonSets(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil || len(ds.Items) != 4 {
		t.Errorf("kube-system has %d DaemonSets after two applies (%v), want 4", len(ds.Items), err)
	}
}

// generations summarises the workloads' metadata.generation.
func generations(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	ds, err := client.AppsV1().DaemonSets(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, d := range ds.Items {
		parts = append(parts, fmt.Sprintf("%s=%d", d.Name, d.Generation))
	}
	dep, err := client.AppsV1().Deployments(Namespace).Get(ctx, CoreDNSDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts = append(parts, fmt.Sprintf("%s=%d", dep.Name, dep.Generation))
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// nodeOS maps every node to its kubernetes.io/os label.
func nodeOS(t *testing.T) map[string]string {
	t.Helper()
	nodes, err := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range nodes.Items {
		out[n.Name] = n.Labels[corev1.LabelOSStable]
	}
	return out
}

func countOS(nodes map[string]string, os string) int {
	n := 0
	for _, o := range nodes {
		if o == os {
			n++
		}
	}
	return n
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func waitDaemonSet(t *testing.T, name string, want int) {
	t.Helper()
	var last appsv1.DaemonSetStatus
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		ds, err := client.AppsV1().DaemonSets(Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = ds.Status
		return int(ds.Status.DesiredNumberScheduled) == want && int(ds.Status.NumberReady) == want, nil
	})
	if err != nil {
		t.Fatalf("DaemonSet %s: want %d ready pods, status %+v; pods:\n%s", name, want, last, podTable(t))
	}
}

func waitDeployment(t *testing.T, name string, want int) {
	t.Helper()
	var last appsv1.DeploymentStatus
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := client.AppsV1().Deployments(Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = d.Status
		return int(d.Status.ReadyReplicas) == want, nil
	})
	if err != nil {
		t.Fatalf("Deployment %s: want %d ready replicas, status %+v; pods:\n%s", name, want, last, podTable(t))
	}
}

func listPods(t *testing.T, selector string) []corev1.Pod {
	t.Helper()
	pods, err := client.CoreV1().Pods(Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

// podTable is `kubectl get pods -n kube-system -o wide`, roughly.
func podTable(t *testing.T) string {
	t.Helper()
	var lines []string
	for _, p := range listPods(t, "") {
		reason := string(p.Status.Phase)
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil {
				reason = w.Reason + ": " + w.Message
			}
		}
		lines = append(lines, fmt.Sprintf("%-40s %-60s %-15s %s", p.Name, reason, p.Status.PodIP, p.Spec.NodeName))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
