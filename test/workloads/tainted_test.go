package workloads

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/manifest"
)

// TestTaintedCluster runs the corpus rows on the default cluster: Windows
// nodes tainted os=windows:NoSchedule.
func TestTaintedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole cluster")
	}
	t.Parallel()
	c := startCluster(t, "tainted.yaml")
	// The front's image is ltsc2022 and nothing in the manifest says so to
	// the scheduler, which may put both replicas on the 2019 nodes (where
	// they fail their pull, as a real cluster's would). For the row's
	// answer the 2019 nodes are cordoned while the fronts are placed, as
	// an admin would; this runs first, before the parallel rows below.
	t.Run("2019-cordoned", func(t *testing.T) {
		c.cordon(t, "win2019-")
		t.Run("mixed/redis-winfront.yaml", func(t *testing.T) { redisWinfront(t, c) })
	})
	// The two web servers share their names: one after the other.
	t.Run("win-webserver", func(t *testing.T) {
		t.Parallel()
		t.Run("docs/seed-003-win-webserver.yaml", func(t *testing.T) { webServerTainted(t, c, "docs/seed-003-win-webserver.yaml", "app=win-webserver") })
		t.Run("docs/user-guide-win-webserver.yaml", func(t *testing.T) {
			webServerTainted(t, c, "docs/user-guide-win-webserver.yaml", "app.kubernetes.io/name=win-webserver")
		})
	})
	t.Run("docs/seed-003-iis-2019-runtimeclass.yaml", func(t *testing.T) { t.Parallel(); seedRuntimeClass(t, c) })
	t.Run("docs/aks-aspnetapp-sample.yaml", func(t *testing.T) { t.Parallel(); aspnetSampleTainted(t, c) })
	t.Run("charts/prometheus-windows-exporter.yaml", func(t *testing.T) { t.Parallel(); windowsExporter(t, c) })
	t.Run("charts/csi-driver-smb-windows.yaml", func(t *testing.T) { t.Parallel(); csiSMB(t, c) })
	t.Run("charts/secrets-store-csi-driver-windows.yaml", func(t *testing.T) { t.Parallel(); secretsStore(t, c) })
}

// webServerTainted: a Windows workload without the toleration stays
// Pending, and the scheduler says why.
func webServerTainted(t *testing.T, c *cluster, rel, selector string) {
	objs := c.apply(t, rel)
	defer c.remove(t, objs, selector)
	pods := c.settledPods(t, "default", selector, 2, func(p corev1.Pod) bool { return p.Status.Phase == corev1.PodPending })
	for _, p := range pods {
		// rule: SCH-3 — the kube-scheduler's own words. The corpus row
		// expects the taint named ("untolerated taint {os: windows}"), as
		// older schedulers wrote it; 1.36's says "had untolerated taint(s)".
		msg := c.event(t, "default", p.Name, "FailedScheduling", "untolerated taint")
		for _, want := range []string{"0/4 nodes are available", "1 node(s) didn't match Pod's node affinity/selector", "3 node(s) had untolerated taint(s)"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s FailedScheduling %q lacks %q", p.Name, msg, want)
			}
		}
		got := c.waitPod(t, "default", p.Name, func(p corev1.Pod) bool { return scheduledCondition(p) != nil })
		if cond := scheduledCondition(got); got.Spec.NodeName != "" || cond.Status != corev1.ConditionFalse || cond.Reason != corev1.PodReasonUnschedulable {
			t.Errorf("%s: node %q, PodScheduled %+v", p.Name, got.Spec.NodeName, cond)
		}
	}
}

// seedRuntimeClass: seed 003's IIS Deployment and its RuntimeClass.
func seedRuntimeClass(t *testing.T, c *cluster) {
	const rel = "docs/seed-003-iis-2019-runtimeclass.yaml"
	// The manifest as published: its " selector:" is indented by one
	// space, which kubectl refuses ("error converting YAML to JSON: yaml:
	// line 27: did not find expected key"); the loader names the line.
	_, errs := manifest.Load([]string{file(rel)}, manifest.Options{})
	var ie *manifest.InputError
	if len(errs) != 1 || !errors.As(errs[0], &ie) || ie.Line != 28 || !strings.Contains(ie.Error(), "did not find expected key") {
		t.Errorf("loading %s: %v, want a YAML error at line 28", rel, errs)
	}
	if out, code := c.lint(t, rel); code != 2 || !strings.Contains(out, rel+":28: input error: yaml: did not find expected key") {
		t.Errorf("winkube lint %s: exit %d\n%s", rel, code, out)
	}

	// The seed's RuntimeClass as written: node.k8s.io/v1beta1 is not
	// served by 1.36, and apply fails as kubectl's does.
	// rule: API-9
	rc := loadFiles(t, "extra/seed-003-runtimeclass.yaml")
	err := c.applyObjects(t, rc)
	if err == nil || !strings.Contains(err.Error(), `no matches for kind "RuntimeClass" in version "node.k8s.io/v1beta1"`) {
		t.Errorf("applying the v1beta1 RuntimeClass: %v, want kubectl's no matches for kind", err)
	}
	out, code := c.lint(t, "extra/seed-003-runtimeclass.yaml")
	for _, want := range []string{"error API-9", `no matches for kind "RuntimeClass" in version "node.k8s.io/v1beta1"`,
		"error KLT-11", `failed to get sandbox runtime: no runtime for "docker" is configured`} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("winkube lint of the seed's RuntimeClass: exit %d, lacks %q:\n%s", code, want, out)
		}
	}

	// With node.k8s.io/v1 it is created; its handler 'docker' is no
	// runtime containerd has, so the sandbox fails as containerd says.
	// The Deployment is applied with its selector indented as meant (the
	// only change), since as published it cannot be applied at all.
	rc[0].Obj.SetAPIVersion("node.k8s.io/v1")
	if err := c.applyObjects(t, rc); err != nil {
		t.Fatalf("applying the RuntimeClass as node.k8s.io/v1: %v", err)
	}
	fixed := loadBytes(t, rel, strings.Replace(readFile(t, rel), "\n selector:", "\n  selector:", 1))
	// The webhook, reading this cluster's nodes and RuntimeClasses, says
	// so of the Deployment before it is created (a warning by default).
	// rule: KLT-11
	if w := c.validate(t, fixed[0]); !strings.Contains(strings.Join(w, "\n"), `KLT-11: spec.template.spec.runtimeClassName: the runtime of every node it selects`) ||
		!strings.Contains(strings.Join(w, "\n"), `no runtime for "docker" is configured`) {
		t.Errorf("the webhook on the Deployment: %q, want a KLT-11 warning", w)
	}
	if err := c.applyObjects(t, fixed); err != nil {
		t.Fatalf("applying %s with its selector indented: %v", rel, err)
	}
	// rule: SCH-4, KLT-11
	c.handlerRefusedOn2019(t, "app=iis-2019", "docker")
}

// aspnetSampleTainted: no toleration, so Pending on tainted nodes.
func aspnetSampleTainted(t *testing.T, c *cluster) {
	c.apply(t, "docs/aks-aspnetapp-sample.yaml")
	pods := c.settledPods(t, "default", "app=sample", 1, func(p corev1.Pod) bool { return p.Status.Phase == corev1.PodPending })
	// rule: SCH-3
	c.event(t, "default", pods[0].Name, "FailedScheduling", "3 node(s) had untolerated taint(s)")
}

// windowsExporter: the prometheus-windows-exporter chart.
func windowsExporter(t *testing.T, c *cluster) {
	// The chart's namespace, created as its README says: kubectl create ns monitoring.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}}
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx(t), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.apply(t, "charts/prometheus-windows-exporter.yaml")
	const sel = "app.kubernetes.io/name=prometheus-windows-exporter"
	// A HostProcess DaemonSet Ready on every Windows node.
	pods := c.settledPods(t, "monitoring", sel, 3, ready)
	nodes := windowsNodes(t, c)
	for _, p := range pods {
		n, ok := nodes[p.Spec.NodeName]
		if !ok {
			t.Errorf("%s on %s, not a Windows node", p.Name, p.Spec.NodeName)
			continue
		}
		// hostNetwork: the pod's IP is its node's.
		if p.Status.PodIP != internalIP(n) {
			t.Errorf("%s has IP %s, its node %s has %s", p.Name, p.Status.PodIP, n.Name, internalIP(n))
		}
		// rule: KLT-7 — runAsUserName NT AUTHORITY\system.
		if out, err := c.exec("monitoring", p.Name, "windows-exporter", "whoami"); err != nil || strings.TrimSpace(out) != `nt authority\system` {
			t.Errorf("whoami in %s: %q %v", p.Name, out, err)
		}
		if out := c.logs(t, "monitoring", p.Name, "configure-firewall"); !strings.Contains(out, "DisplayName           : windows-exporter") || !strings.Contains(out, "Direction             : Inbound") {
			t.Errorf("New-NetFirewallRule output of %s:\n%s", p.Name, out)
		}
		// curl http://NODE_IP:9182/health from a pod, as the row says.
		if out, err := c.curl(t, "http://"+internalIP(n)+":9182/health"); err != nil || !strings.Contains(out, `{"status":"ok"}`) {
			t.Errorf("/health of %s: %q %v", n.Name, out, err)
		}
		out, err := c.curl(t, "http://"+internalIP(n)+":9182/metrics")
		build := strings.Split(n.Labels[corev1.LabelWindowsBuild], ".")
		if want := `windows_os_info{build_number="` + build[len(build)-1] + `"`; err != nil || !strings.Contains(out, want) {
			t.Errorf("/metrics of %s lacks %s: %v", n.Name, want, err)
		}
	}
	// The Service routes to the DaemonSet's pods (once its endpoints are
	// published).
	waitFor(t, "/health through the Service", func() (bool, string) {
		out, err := c.serviceProxyGet(t, "monitoring", "wexp-prometheus-windows-exporter", "metrics", "/health")
		return err == nil && strings.Contains(out, `{"status":"ok"}`), out + errString(err)
	})
}

// csiSMB: the csi-driver-smb chart with its Windows HostProcess node plugin.
func csiSMB(t *testing.T, c *cluster) {
	c.apply(t, "charts/csi-driver-smb-windows.yaml")
	win := c.settledPods(t, "kube-system", "app=csi-smb-node-win", 3, ready)
	nodes := windowsNodes(t, c)
	for _, p := range win {
		if _, ok := nodes[p.Spec.NodeName]; !ok {
			t.Errorf("%s on %s, not a Windows node", p.Name, p.Spec.NodeName)
		}
	}
	c.settledPods(t, "kube-system", "app=csi-smb-node", 1, func(p corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	c.settledPods(t, "kube-system", "app=csi-smb-controller", 1, func(p corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	// rule: STO-1 — the registrar registers the driver with each kubelet.
	for name := range nodes {
		c.waitCSINode(t, name, "smb.csi.k8s.io")
	}
}

// secretsStore: the secrets-store-csi-driver chart, CRDs first.
func secretsStore(t *testing.T, c *cluster) {
	c.apply(t, "charts/secrets-store-csi-driver-crds.yaml")
	c.apply(t, "charts/secrets-store-csi-driver-windows.yaml")
	ext := apiextensions.NewForConfigOrDie(c.cfg)
	for _, name := range []string{"secretproviderclasses.secrets-store.csi.x-k8s.io", "secretproviderclasspodstatuses.secrets-store.csi.x-k8s.io"} {
		crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx(t), name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("CRD %s: %v", name, err)
			continue
		}
		established := false
		for _, cond := range crd.Status.Conditions {
			established = established || cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue
		}
		if !established {
			t.Errorf("CRD %s not Established: %v", name, crd.Status.Conditions)
		}
	}
	nodes := windowsNodes(t, c)
	var win []corev1.Pod
	waitFor(t, "the Windows DaemonSet Ready", func() (bool, string) {
		win = nil
		for _, p := range c.pods(t, "kube-system", "app=secrets-store-csi-driver") {
			if _, ok := nodes[p.Spec.NodeName]; ok {
				win = append(win, p)
			}
		}
		n := 0
		for _, p := range win {
			if ready(p) {
				n++
			}
		}
		return n == len(nodes) && len(win) == len(nodes), strings.Repeat("•", n)
	})
	for _, p := range win {
		// registrar (with its registration probe), driver, liveness probe.
		if len(p.Status.ContainerStatuses) != 3 {
			t.Errorf("%s has %d containers, want 3", p.Name, len(p.Status.ContainerStatuses))
		}
	}
	for name := range nodes {
		c.waitCSINode(t, name, "secrets-store.csi.k8s.io")
	}
}

// redisWinfront: the mixed app, Linux redis behind a Windows front.
func redisWinfront(t *testing.T, c *cluster) {
	c.apply(t, "mixed/redis-winfront.yaml")
	redis := c.settledPods(t, "default", "app=redis", 1, ready)
	if os := redis[0].Spec.NodeName; !strings.HasPrefix(os, "linux-") {
		t.Errorf("redis on %s", os)
	}
	// The front is ltsc2022: Ready on the 2022 node; a replica on a 2019
	// node (none while those are cordoned) fails its pull.
	fronts := c.settledPods(t, "default", "app=winfront", 2, func(p corev1.Pod) bool { return ready(p) || pullFailed(p) })
	readyFronts := 0
	for _, p := range fronts {
		switch {
		case strings.HasPrefix(p.Spec.NodeName, "win2022-") && ready(p):
			readyFronts++
			if out := c.logs(t, "default", p.Name, "front"); !strings.Contains(out, "front up, redis at redis.default") {
				t.Errorf("logs of %s: %q", p.Name, out)
			}
		case strings.HasPrefix(p.Spec.NodeName, "win2019-") && pullFailed(p):
			// rule: IMG-4
			c.event(t, "default", p.Name, "Failed", "no match for platform in manifest: not found")
		default:
			t.Errorf("%s on %s is %s", p.Name, p.Spec.NodeName, podState(p))
		}
	}
	if readyFronts == 0 {
		t.Fatalf("no front Ready: %v", fronts)
	}
	ip := c.loadBalancerIP(t, "default", "winfront")
	// The front answers False until redis's endpoint reaches the Service,
	// which may come after both are Ready (the EndpointSlice controller
	// and the node's proxy follow readiness with a lag, on a real cluster
	// too); the row's answer is the one it settles on.
	const want = "redis reachable: True\n"
	start, answers := time.Now(), 0
	waitFor(t, "the front's answer through its LoadBalancer to be "+strconv.Quote(want), func() (bool, string) {
		body, err := httpGet("http://" + ip + ":8080/")
		answers++
		return err == nil && body == want, strconv.Quote(body) + errString(err)
	})
	if answers > 1 {
		t.Logf("the front answered %q after %s (%d requests)", want, time.Since(start).Round(time.Millisecond), answers)
	}
}

func scheduledCondition(p corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// windowsNodes are the cluster's Windows nodes by name.
func windowsNodes(t *testing.T, c *cluster) map[string]corev1.Node {
	t.Helper()
	list, err := c.cs.CoreV1().Nodes().List(ctx(t), metav1.ListOptions{LabelSelector: corev1.LabelOSStable + "=windows"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]corev1.Node{}
	for _, n := range list.Items {
		out[n.Name] = n
	}
	return out
}

func internalIP(n corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// waitCSINode waits for driver in the node's CSINode.
func (c *cluster) waitCSINode(t *testing.T, node, driver string) {
	t.Helper()
	waitFor(t, driver+" in the CSINode of "+node, func() (bool, string) {
		cn, err := c.cs.StorageV1().CSINodes().Get(ctx(t), node, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		var names []string
		for _, d := range cn.Spec.Drivers {
			if d.Name == driver {
				return true, ""
			}
			names = append(names, d.Name)
		}
		return false, strings.Join(names, ",")
	})
}
