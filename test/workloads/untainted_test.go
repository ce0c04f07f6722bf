package workloads

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestUntaintedCluster runs the corpus rows on the "untainted" cluster:
// the default pools with `taints: []`.
func TestUntaintedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole cluster")
	}
	t.Parallel()
	c := startCluster(t, "untainted.yaml")
	// The run-as-username examples' image is ltsc2019 and nothing in them
	// says so to the scheduler, which may well put them on the 2022 node
	// (where they fail their pull, as the other rows show). To see whoami,
	// the 2022 node is cordoned while they are placed, as an admin would;
	// this runs first, before the parallel rows below start.
	t.Run("2022-cordoned", func(t *testing.T) {
		c.cordon(t, "win2022-")
		t.Run("docs/run-as-username-pod.yaml", func(t *testing.T) {
			t.Parallel()
			runAsUserName(t, c, "docs/run-as-username-pod.yaml", "run-as-username-pod-demo", `user manager\containeruser`)
		})
		t.Run("docs/run-as-username-container.yaml", func(t *testing.T) {
			t.Parallel()
			// The container's runAsUserName wins over the pod's.
			runAsUserName(t, c, "docs/run-as-username-container.yaml", "run-as-username-container-demo", `user manager\containeradministrator`)
		})
	})
	// The two web servers share their names: one after the other.
	t.Run("win-webserver", func(t *testing.T) {
		t.Parallel()
		t.Run("docs/seed-003-win-webserver.yaml", func(t *testing.T) { webServer(t, c, "docs/seed-003-win-webserver.yaml", "app=win-webserver") })
		t.Run("docs/user-guide-win-webserver.yaml", func(t *testing.T) {
			webServer(t, c, "docs/user-guide-win-webserver.yaml", "app.kubernetes.io/name=win-webserver")
		})
	})
	// Both Deployments are named iis.
	t.Run("iis", func(t *testing.T) {
		t.Parallel()
		t.Run("docs/deploy-hyperv.yaml", func(t *testing.T) { deployHyperV(t, c) })
		t.Run("docs/deploy-resource.yaml", func(t *testing.T) { deployResource(t, c) })
	})
	t.Run("docs/configmap-pod.yaml", func(t *testing.T) { t.Parallel(); configMapPod(t, c) })
	for _, row := range []struct{ rel, pod, image string }{
		{"docs/emptydir-pod.yaml", "my-empty-dir-pod", "microsoft/windowsservercore:1709"},
		{"docs/hostpath-volume-pod.yaml", "hostpath-volume-pod", "microsoft/windowsservercore:1709"},
		{"docs/simple-pod.yaml", "iis", "microsoft/iis:windowsservercore-1709"},
	} {
		t.Run(row.rel, func(t *testing.T) { t.Parallel(); frozenImagePod(t, c, row.rel, row.pod, row.image) })
	}
	t.Run("docs/daemonset.yaml", func(t *testing.T) { t.Parallel(); daemonSet1709(t, c) })
	t.Run("docs/secret-pod.yaml", func(t *testing.T) { t.Parallel(); secretPod(t, c) })
	t.Run("docs/user-guide-iis-2019-asis.yaml", func(t *testing.T) { t.Parallel(); userGuideRuntimeClass(t, c) })
	t.Run("docs/aks-aspnetapp-sample.yaml", func(t *testing.T) { t.Parallel(); aspnetSample(t, c) })
}

const webHeader = "<html><body><H1>Windows Container Web Server</H1>"

// webServer: the HttpListener script of the seed and the user guide.
func webServer(t *testing.T, c *cluster, rel, selector string) {
	objs := c.apply(t, rel)
	defer c.remove(t, objs, selector)
	pods := c.settledPods(t, "default", selector, 2, func(p corev1.Pod) bool { return ready(p) || pullFailed(p) })
	var serving []corev1.Pod
	for _, p := range pods {
		switch {
		case strings.HasPrefix(p.Spec.NodeName, "win2019-") && ready(p):
			serving = append(serving, p)
		case strings.HasPrefix(p.Spec.NodeName, "win2022-") && pullFailed(p):
			t.Logf("%s landed on %s", p.Name, p.Spec.NodeName)
			// rule: IMG-4 — the ltsc2019 index has no entry for 2022.
			c.event(t, "default", p.Name, "Failed", "no match for platform in manifest: not found")
		default:
			t.Errorf("%s on %s is %s", p.Name, p.Spec.NodeName, podState(p))
		}
	}
	if len(serving) == 0 {
		t.Fatalf("no replica serving: %v", pods)
	}
	p := serving[0]
	// From a Linux pod: the script reads its IP with Get-NetAdapter |
	// Get-NetIpAddress and counts the callers of each client IP.
	for n := 1; n <= 2; n++ {
		out, err := c.curl(t, "http://"+p.Status.PodIP+"/")
		want := fmt.Sprintf("%s<p>IP %s callerCount %d </body></html>", webHeader, p.Status.PodIP, n)
		if err != nil || out != want {
			t.Errorf("curl http://%s/ #%d: %q (%v), want %q", p.Status.PodIP, n, out, err, want)
		}
	}
	logs := c.logs(t, "default", p.Name, "windowswebserver")
	for _, want := range []string{"Listening at http://*:80/", "> http://" + p.Status.PodIP + "/", "< 200"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs of %s lack %q:\n%s", p.Name, want, logs)
		}
	}
	// The NodePort answers the same on every node. The backends run on
	// the 2019 nodes, so KP-7 (NodePort traffic to a backend on a
	// Windows Server 2022 overlay node) does not apply, whichever node
	// the traffic enters.
	// rule: KP-7
	svc, err := c.cs.CoreV1().Services("default").Get(ctx(t), "win-webserver", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	port := svc.Spec.Ports[0].NodePort
	nodes, err := c.cs.CoreV1().Nodes().List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		// kube-proxy programs the port a moment after the Service.
		url := fmt.Sprintf("http://%s:%d/", internalIP(n), port)
		waitFor(t, "NodePort "+url+" of "+n.Name, func() (bool, string) {
			out, err := c.curl(t, url)
			return err == nil && strings.Contains(out, webHeader), out + errString(err)
		})
	}
}

// deployHyperV: the Hyper-V isolation annotation was dockershim's; on
// containerd it changes nothing, and microsoft/iis (latest) is Windows
// Server 2016 only: every replica, wherever it lands, fails its pull.
func deployHyperV(t *testing.T, c *cluster) {
	objs := c.apply(t, "docs/deploy-hyperv.yaml")
	defer c.remove(t, objs, "app=iis")
	pods := c.settledPods(t, "default", "app=iis", 3, pullFailed)
	for _, p := range pods {
		// rule: IMG-4
		c.event(t, "default", p.Name, "Failed", `failed to pull and unpack image "docker.io/microsoft/iis:latest": no match for platform in manifest: not found`)
	}
}

// deployResource: limits as the Windows runtime receives them, though the
// image never runs (as deployHyperV).
func deployResource(t *testing.T, c *cluster) {
	objs := c.apply(t, "docs/deploy-resource.yaml")
	defer c.remove(t, objs, "app.kubernetes.io/name=iis")
	pods := c.settledPods(t, "default", "app.kubernetes.io/name=iis", 3, pullFailed)
	nodes := windowsNodes(t, c)
	described := 0
	for _, p := range pods {
		c.event(t, "default", p.Name, "Failed", "no match for platform in manifest: not found")
		n, ok := nodes[p.Spec.NodeName]
		if !ok {
			continue
		}
		out, err := exec.Command(winkube, "describe", "pod", p.Name, "--kubeconfig", c.kubeconfig()).CombinedOutput()
		if err != nil {
			t.Fatalf("winkube describe pod %s: %v\n%s", p.Name, err, out)
		}
		// rule: KLT-5, KLT-6 — cpu: 2 is 10000*2/cores of the node; 128Mi in bytes.
		cpus := n.Status.Capacity.Cpu().Value()
		want := fmt.Sprintf("CpuMaximum=%d MemoryLimitInBytes=%d", 10000*2/cpus, 128<<20)
		if !strings.Contains(string(out), want) {
			t.Errorf("describe %s lacks %q:\n%s", p.Name, want, out)
		}
		described++
	}
	if described == 0 {
		t.Logf("no replica landed on a Windows node: %v", pods)
	}
}

// configMapPod: redis:3.0-nanoserver is one manifest (no index) of Windows
// Server 2016: containerd pulls it, and the host refuses to start it.
func configMapPod(t *testing.T, c *cluster) {
	c.apply(t, "docs/configmap-pod.yaml")
	// rule: IMG-2
	c.event(t, "default", "configmap-pod", "Failed", "hcs::CreateComputeSystem configmap-redis: The container operating system does not match the host operating system.")
	c.event(t, "default", "configmap-pod", "BackOff", "Back-off restarting failed container configmap-redis")
}

// frozenImagePod: the examples' 1709 images are Windows Server 1709 only
// (the frozen Docker Hub repositories), a build no node runs.
func frozenImagePod(t *testing.T, c *cluster, rel, pod, image string) {
	c.apply(t, rel)
	p := c.waitPod(t, "default", pod, pullFailed)
	if _, ok := windowsNodes(t, c)[p.Spec.NodeName]; !ok {
		t.Errorf("%s on %s, not a Windows node", pod, p.Spec.NodeName)
	}
	// rule: IMG-4
	c.event(t, "default", pod, "Failed", fmt.Sprintf("failed to pull and unpack image %q: no match for platform in manifest: not found", "docker.io/"+image))
}

// daemonSet1709: one pod on every Windows node, each failing its pull.
func daemonSet1709(t *testing.T, c *cluster) {
	c.apply(t, "docs/daemonset.yaml")
	nodes := windowsNodes(t, c)
	pods := c.settledPods(t, "default", "app=foo", len(nodes), pullFailed)
	for _, p := range pods {
		if _, ok := nodes[p.Spec.NodeName]; !ok {
			t.Errorf("%s on %s, not a Windows node", p.Name, p.Spec.NodeName)
		}
		// rule: IMG-4
		c.event(t, "default", p.Name, "Failed", "no match for platform in manifest: not found")
	}
}

// secretPod: imagePullPolicy Never and no node has the image; the kubelet
// stops there, before it would look for the missing Secret.
func secretPod(t *testing.T, c *cluster) {
	c.apply(t, "docs/secret-pod.yaml")
	c.waitPod(t, "default", "secret-envars-test-pod", func(p corev1.Pod) bool { return podState(p) == "ErrImageNeverPull" })
	c.event(t, "default", "secret-envars-test-pod", "ErrImageNeverPull", `Container image "microsoft/windowsservercore:latest" is not present with pull policy of Never`)
}

// runAsUserName: whoami in the container says the user the pod asks for.
func runAsUserName(t *testing.T, c *cluster, rel, pod, user string) {
	c.apply(t, rel)
	p := c.waitPod(t, "default", pod, ready)
	if !strings.HasPrefix(p.Spec.NodeName, "win2019-") {
		t.Errorf("%s Ready on %s", pod, p.Spec.NodeName)
	}
	// rule: KLT-7
	if out, err := c.exec("default", pod, "run-as-username-demo", "whoami"); err != nil || strings.TrimSpace(out) != user {
		t.Errorf("whoami in %s: %q (%v), want %q", pod, out, err, user)
	}
	if out := c.logs(t, "default", pod, "run-as-username-demo"); !strings.Contains(out, "Pinging ") {
		t.Errorf("logs of %s (ping -t localhost): %q", pod, out)
	}
}

// userGuideRuntimeClass: the user guide's IIS Deployment as published
// (its selector indented by one space, as in seed 003) and its
// RuntimeClass, whose handler no node's containerd has.
func userGuideRuntimeClass(t *testing.T, c *cluster) {
	const rel = "docs/user-guide-iis-2019-asis.yaml"
	if out, code := c.lint(t, rel); code != 2 || !strings.Contains(out, rel+":29: input error: yaml: did not find expected key") {
		t.Errorf("winkube lint %s: exit %d\n%s", rel, code, out)
	}
	c.apply(t, "docs/user-guide-runtimeclass.yaml")
	out, code := c.lint(t, "docs/user-guide-runtimeclass.yaml")
	// rule: KLT-11
	if want := `failed to get sandbox runtime: no runtime for "example-container-runtime-handler" is configured`; code != 1 || !strings.Contains(out, "error KLT-11") || !strings.Contains(out, want) {
		t.Errorf("winkube lint of the RuntimeClass: exit %d, want KLT-11 and %q:\n%s", code, want, out)
	}
	fixed := loadBytes(t, rel, strings.Replace(readFile(t, rel), "\n selector:", "\n  selector:", 1))
	if err := c.applyObjects(t, fixed); err != nil {
		t.Fatalf("applying %s with its selector indented: %v", rel, err)
	}
	// rule: SCH-4, KLT-11
	c.handlerRefusedOn2019(t, "app.kubernetes.io/name=iis-2019", "example-container-runtime-handler")
}

// aspnetSample: the AKS quick start's .NET Framework sample, on any
// Windows node (the image has 2019 and 2022 entries), behind its
// LoadBalancer.
func aspnetSample(t *testing.T, c *cluster) {
	c.apply(t, "docs/aks-aspnetapp-sample.yaml")
	pods := c.settledPods(t, "default", "app=sample", 1, ready)
	if _, ok := windowsNodes(t, c)[pods[0].Spec.NodeName]; !ok {
		t.Errorf("sample on %s", pods[0].Spec.NodeName)
	}
	ip := c.loadBalancerIP(t, "default", "sample")
	var body string
	waitFor(t, "the sample's LoadBalancer", func() (bool, string) {
		var err error
		body, err = httpGet("http://" + ip + "/")
		return err == nil, body + errString(err)
	})
	// The sample's Web Forms home page, not IIS's welcome page (the
	// aspnet base image empties wwwroot).
	for _, want := range []string{"<title>Home Page - My ASP.NET Application</title>", "<h1>ASP.NET</h1>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the sample's page lacks %q:\n%s", want, body)
		}
	}
}
