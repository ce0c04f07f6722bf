package node

import (
	"context"
	"encoding/json"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

const (
	iis2019        = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"
	iis2022        = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"
	servercore2022 = "mcr.microsoft.com/windows/servercore:ltsc2022"
	// singleImage2022 stands for an image pushed without an index.
	singleImage2022 = "registry.example.com/windows/app:ltsc2022"
)

// rule: SCH-1, SCH-3, KLT-5, KLT-6, NET-10
func TestWindowsDeploymentGetsEndpoints(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	labels := map[string]string{"app": "iis"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "iis"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.17763"},
					Tolerations:  []corev1.Toleration{windowsToleration},
					Containers: []corev1.Container{{
						Name: "iis", Image: iis2019,
						Ports: []corev1.ContainerPort{{ContainerPort: 80}},
						Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("512Mi"),
						}},
						ReadinessProbe: &corev1.Probe{
							ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80)}},
							InitialDelaySeconds: 1,
						},
					}},
				},
			},
		},
	}
	ctx := context.Background()
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "iis"},
		Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}}},
	}
	if _, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create service: %v", err)
	}
	var pods []corev1.Pod
	waitFor(t, 90*time.Second, "2 ready IIS pods", func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=iis"})
		if err != nil {
			return false, nil
		}
		pods = list.Items
		ready := 0
		for _, p := range pods {
			if p.Status.Phase == corev1.PodRunning && podReady(&p) {
				ready++
			}
		}
		return ready == 2, nil
	})
	podIPs := map[string]bool{}
	for _, p := range pods {
		checkPodNetwork(t, &p)
		podIPs[p.Status.PodIP] = true
		checkWindowsResources(t, &p)
		waitEvent(t, ns, p.Name, "Started", "Container started", 10*time.Second)
	}
	// The real EndpointSlice controller publishes the ready pods.
	waitFor(t, 60*time.Second, "EndpointSlice with both pod IPs", func(ctx context.Context) (bool, error) {
		slices, err := client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=iis"})
		if err != nil {
			return false, nil
		}
		found := 0
		for _, s := range slices.Items {
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && *e.Conditions.Ready && podIPs[e.Addresses[0]] {
					found++
				}
			}
		}
		return found == 2, nil
	})
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// checkPodNetwork asserts the pod IP comes from its node's pod CIDR.
func checkPodNetwork(t *testing.T, p *corev1.Pod) {
	t.Helper()
	n, err := client.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get node %s: %v", p.Spec.NodeName, err)
	}
	cidr := netip.MustParsePrefix(n.Spec.PodCIDR)
	ip, err := netip.ParseAddr(p.Status.PodIP)
	if err != nil || !cidr.Contains(ip) || ip == cidr.Addr() || ip == cidr.Addr().Next() {
		t.Errorf("pod %s: IP %q is not a pod address of %s's CIDR %s", p.Name, p.Status.PodIP, n.Name, cidr)
	}
	if p.Status.HostIP == "" || p.Status.HostIP == p.Status.PodIP {
		t.Errorf("pod %s: hostIP %q", p.Name, p.Status.HostIP)
	}
	// rule: NET-3, KP-2: on Windows, .2 is the host endpoint or source VIP.
	if n.Labels[corev1.LabelOSStable] == "windows" && ip == cidr.Addr().Next().Next() {
		t.Errorf("pod %s on Windows node %s got %s, the address the host endpoint / source VIP holds", p.Name, n.Name, ip)
	}
	// Flannel's annotations are written once the node has its subnet.
	if n.Annotations["flannel.alpha.coreos.com/backend-type"] != "vxlan" || n.Annotations["flannel.alpha.coreos.com/public-ip"] == "" ||
		!strings.Contains(n.Annotations["flannel.alpha.coreos.com/backend-data"], `"VNI":4096`) {
		t.Errorf("node %s: flannel annotations %v", n.Name, n.Annotations)
	}
}

// rule: KLT-5, KLT-6
func checkWindowsResources(t *testing.T, p *corev1.Pod) {
	t.Helper()
	raw := p.Annotations[AnnotationWindowsResources]
	var got map[string]WindowsContainerConfig
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("pod %s: annotation %s = %q: %v", p.Name, AnnotationWindowsResources, raw, err)
	}
	// 2 CPUs on a 4-core node: 10*2000/4 = 5000.
	want := WindowsContainerConfig{CPUMaximum: 5000, MemoryLimitInBytes: 512 << 20}
	if got["iis"] != want {
		t.Errorf("pod %s: windows resources = %+v, want %+v", p.Name, got["iis"], want)
	}
}

// rule: SCH-5, IMG-4: a Linux image has no Windows entry, so containerd's
// pull fails (containerd core/images/handlers.go LimitManifests, wrapped by
// internal/cri/server/images/image_pull.go) and the kubelet backs off
// (k8s.io/kubernetes pkg/kubelet/images/image_manager.go).
func TestLinuxImageOnWindowsNodeBacksOff(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	createPod(t, ns, simplePod("nginx", "win2019-1", "nginx:1.27"))
	checkPullFailure(t, ns, "nginx", "nginx:1.27", "docker.io/library/nginx:1.27")
}

// rule: IMG-2, IMG-4: MCR publishes servercore:ltsc2022 as an index whose
// entry carries os.version 10.0.20348, so a containerd node of 10.0.17763
// refuses it at pull (containerd/platforms platform_windows_compat.go).
func TestWindows2022IndexOn2019NodeFailsPull(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	createPod(t, ns, simplePod("core", "win2019-1", servercore2022))
	checkPullFailure(t, ns, "core", servercore2022, servercore2022)
}

// checkPullFailure follows one failed pull: Pulling, Failed with
// containerd's words, ErrImagePull, then the back-off the kubelet shows at
// its next sync. Order and reasons only, no durations.
func checkPullFailure(t *testing.T, ns, name, image, normalised string) {
	t.Helper()
	waitPod(t, ns, name, 30*time.Second, "ImagePullBackOff", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "ImagePullBackOff"
	})
	want := `failed to pull and unpack image "` + normalised + `": no match for platform in manifest: not found`
	ev := waitEvent(t, ns, name, "Failed", `Failed to pull image "`+image+`"`, 10*time.Second)
	if !strings.Contains(ev.Message, want) {
		t.Errorf("pull failure event = %q, want it to contain %q", ev.Message, want)
	}
	waitEvent(t, ns, name, "Failed", "Error: ErrImagePull", 10*time.Second)
	waitEvent(t, ns, name, "BackOff", `Back-off pulling image "`+image+`"`, 10*time.Second)
	waitEvent(t, ns, name, "Failed", "Error: ImagePullBackOff", 10*time.Second)
	waitEvent(t, ns, name, "Pulling", `Pulling image "`+image+`"`, 10*time.Second)
	p, _ := client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase = %s, want Pending", p.Status.Phase)
	}
	for _, e := range podEvents(t, ns, name) {
		if e.Reason == "Created" || e.Reason == "Started" {
			t.Errorf("event %s %q: a pull failure creates no container", e.Reason, e.Message)
		}
	}
}

// rule: IMG-2, IMG-4: a single-platform image (one manifest, no index) is
// not matched at pull; HCS refuses it when containerd creates the task, so
// the kubelet shows RunContainerError and then a crash loop
// (k8s.io/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go
// startContainer, kuberuntime_manager.go doBackOff).
func TestWindows2022SingleImageOn2019NodeFailsStart(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	createPod(t, ns, simplePod("app", "win2019-1", singleImage2022))
	p := waitPod(t, ns, "app", 60*time.Second, "CrashLoopBackOff after a restart", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "CrashLoopBackOff" && p.Status.ContainerStatuses[0].RestartCount >= 1
	})
	st := p.Status.ContainerStatuses[0]
	last := st.LastTerminationState.Terminated
	const hcs = "The container operating system does not match the host operating system."
	if last == nil || last.ExitCode != 128 || last.Reason != "StartError" || !strings.Contains(last.Message, "hcs::CreateComputeSystem") || !strings.Contains(last.Message, hcs) {
		t.Errorf("last state = %+v, want exit 128, StartError with the HCS message", st.LastTerminationState)
	}
	if p.Status.Phase != corev1.PodRunning {
		t.Errorf("phase = %s, want Running (restarting)", p.Status.Phase)
	}
	waitEvent(t, ns, "app", "Pulled", "", 10*time.Second)
	waitEvent(t, ns, "app", "Created", "Container created", 10*time.Second)
	ev := waitEvent(t, ns, "app", "Failed", "Error: failed to create containerd task", 10*time.Second)
	// The kubelet names the container, not its ID, in events.
	if !strings.Contains(ev.Message, "hcs::CreateComputeSystem main: "+hcs) {
		t.Errorf("start failure event = %q", ev.Message)
	}
	waitEvent(t, ns, "app", "BackOff", "Back-off restarting failed container main", 10*time.Second)
	for _, e := range podEvents(t, ns, "app") {
		if e.Reason == "Started" {
			t.Errorf("event Started %q: the container never started", e.Message)
		}
	}
}

// rule: IMG-5, TS-11
func TestIncompatiblePauseImageKeepsPodCreating(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("iis", "win2019-1", iis2019)
	pod.Annotations = map[string]string{AnnotationSandboxImage: "registry.k8s.io/pause:3.2"} // Linux-only pause
	createPod(t, ns, pod)
	waitEvent(t, ns, "iis", "FailedCreatePodSandBox", "Failed to create pod sandbox:", 30*time.Second)
	p, _ := client.CoreV1().Pods(ns).Get(context.Background(), "iis", metav1.GetOptions{})
	if p.Status.Phase != corev1.PodPending || p.Status.PodIP != "" {
		t.Errorf("phase %s, podIP %q: want Pending without an IP", p.Status.Phase, p.Status.PodIP)
	}
	if r := waitingReason(p, "main"); r != "" && r != "ContainerCreating" {
		t.Errorf("container waiting reason = %q, want ContainerCreating", r)
	}
}

// rule: KLT-4
func TestAdmissionRejections(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	label := simplePod("os-label", "win2019-1", iis2019)
	label.Labels = map[string]string{"kubernetes.io/os": "linux"}
	field := simplePod("os-field", "win2019-1", "nginx")
	field.Spec.OS = &corev1.PodOS{Name: corev1.Linux}
	big := simplePod("too-big", "win2019-2", iis2019)
	big.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}
	cases := []struct {
		pod             *corev1.Pod
		reason, message string
	}{
		{label, "PodOSSelectorNodeLabelDoesNotMatch", regexp.QuoteMeta("Pod was rejected: Failed to admit pod as the `kubernetes.io/os` label doesn't match node label")},
		{field, "PodOSNotSupported", regexp.QuoteMeta("Pod was rejected: Failed to admit pod as the OS field doesn't match node OS")},
		// "used" depends on what other tests left on the node.
		{big, "OutOfcpu", `^Pod was rejected: Node didn't have enough resource: cpu, requested: 64000, used: \d+, capacity: 4000$`},
	}
	for _, c := range cases {
		createPod(t, ns, c.pod)
	}
	for _, c := range cases {
		p := waitPod(t, ns, c.pod.Name, 30*time.Second, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
		if p.Status.Reason != c.reason || !regexp.MustCompile(c.message).MatchString(p.Status.Message) {
			t.Errorf("%s: reason %q message %q, want %q %q", c.pod.Name, p.Status.Reason, p.Status.Message, c.reason, c.message)
		}
		waitEvent(t, ns, c.pod.Name, c.reason, "", 10*time.Second)
	}
}

// rule: KLT-4
func TestJobCompletes(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi"},
		Spec: batchv1.JobSpec{
			Completions: ptr.To[int32](2),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				NodeSelector:  map[string]string{"kubernetes.io/os": "windows"},
				Tolerations:   []corev1.Toleration{windowsToleration},
				Containers:    []corev1.Container{{Name: "pi", Image: "mcr.microsoft.com/powershell:lts"}},
			}},
		},
	}
	if _, err := client.BatchV1().Jobs(ns).Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create job: %v", err)
	}
	waitFor(t, 90*time.Second, "job complete", func(ctx context.Context) (bool, error) {
		j, err := client.BatchV1().Jobs(ns).Get(ctx, "pi", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	pods, _ := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "job-name=pi"})
	for _, p := range pods.Items {
		st := p.Status.ContainerStatuses
		if p.Status.Phase != corev1.PodSucceeded || len(st) != 1 || st[0].State.Terminated == nil || st[0].State.Terminated.Reason != "Completed" {
			t.Errorf("job pod %s: phase %s statuses %+v", p.Name, p.Status.Phase, st)
		}
	}
}

// A failing container of a Never pod fails the pod with reason Error.
func TestExitCodeFailsPod(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("fails", "linux-1", "busybox")
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.InitContainers = []corev1.Container{{Name: "setup", Image: "busybox"}}
	pod.Annotations = map[string]string{AnnotationExitCode: "3", AnnotationRunSeconds: "0.5"}
	createPod(t, ns, pod)
	p := waitPod(t, ns, "fails", 30*time.Second, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	term := p.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.ExitCode != 3 || term.Reason != "Error" {
		t.Errorf("terminated = %+v, want exit 3 reason Error", term)
	}
	if it := p.Status.InitContainerStatuses[0].State.Terminated; it == nil || it.ExitCode != 0 {
		t.Errorf("init container = %+v, want completed first", p.Status.InitContainerStatuses[0].State)
	}
}

// rule: LIM-14
func TestGracefulDeletion(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	prompt := simplePod("prompt", "win2022-1", servercore2022)
	stubborn := simplePod("stubborn", "win2022-1", servercore2022)
	stubborn.Annotations = map[string]string{AnnotationIgnoreSIGTERM: "true"}
	stubborn.Spec.TerminationGracePeriodSeconds = ptr.To[int64](3)
	for _, p := range []*corev1.Pod{prompt, stubborn} {
		createPod(t, ns, p)
		waitPod(t, ns, p.Name, 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	}
	for _, c := range []struct {
		name     string
		min, max time.Duration
	}{{"prompt", 0, 3 * time.Second}, {"stubborn", 3 * time.Second, 8 * time.Second}} {
		began := time.Now()
		if err := client.CoreV1().Pods(ns).Delete(context.Background(), c.name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete %s: %v", c.name, err)
		}
		waitGone(t, ns, c.name, 30*time.Second)
		took := time.Since(began)
		if took < c.min || took > c.max {
			t.Errorf("%s: gone after %s, want between %s and %s", c.name, took, c.min, c.max)
		}
		waitEvent(t, ns, c.name, "Killing", "Stopping container main", 10*time.Second)
	}
}

// rule: LIM-14, KLT-10
func TestDockerCapsGracePeriod(t *testing.T) {
	needCluster(t)
	dockerCluster := &v1alpha1.Cluster{NodePools: []v1alpha1.NodePool{{
		Name: "dock2019", OS: v1alpha1.OSWindows, Release: "2019", Runtime: v1alpha1.RuntimeDocker,
		Count: ptr.To(1), Taints: []corev1.Taint{},
	}}}
	v1alpha1.SetDefaults(dockerCluster)
	dockerCluster.Network.ManagementCIDR = "10.127.131.0/24"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := Start(ctx, Options{Config: restConfig, Cluster: dockerCluster})
	if err != nil {
		t.Fatalf("start docker agent: %v", err)
	}
	defer a.Close()
	select {
	case <-a.Ready():
	case <-ctx.Done():
		t.Fatal("docker node not Ready within a minute")
	}
	n, _ := client.CoreV1().Nodes().Get(ctx, "dock2019-1", metav1.GetOptions{})
	if v := n.Status.NodeInfo.ContainerRuntimeVersion; !strings.HasPrefix(v, "docker://") {
		t.Errorf("containerRuntimeVersion = %q, want docker://", v)
	}
	ns := newNamespace(t)
	pod := simplePod("stubborn", "dock2019-1", iis2019)
	pod.Annotations = map[string]string{AnnotationIgnoreSIGTERM: "true"}
	pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](60)
	createPod(t, ns, pod)
	waitPod(t, ns, "stubborn", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	began := time.Now()
	if err := client.CoreV1().Pods(ns).Delete(ctx, "stubborn", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waitGone(t, ns, "stubborn", 30*time.Second)
	if took := time.Since(began); took < 5*time.Second || took > 10*time.Second {
		t.Errorf("gone after %s: Docker should kill after 5 s, not honour 60 s", took)
	}
}

func waitGone(t *testing.T, ns, name string, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, "pod "+name+" gone", func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		return err != nil, nil
	})
}

func waitingReason(p *corev1.Pod, container string) string {
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == container && s.State.Waiting != nil {
			return s.State.Waiting.Reason
		}
	}
	return ""
}

// rule: KLT-7: with runAsNonRoot the Windows kubelet treats
// ContainerAdministrator as root, whether runAsUserName names it (in any
// case) or the image runs as it by default (Server Core), and refuses to
// create the container: CreateContainerConfigError, pod Pending
// (k8s.io/kubernetes pkg/kubelet/kuberuntime/security_context_windows.go
// verifyRunAsNonRoot; test/e2e/windows/security_context.go). Nano Server
// runs as ContainerUser and starts.
func TestRunAsNonRootRefusesContainerAdministrator(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const nano = "mcr.microsoft.com/windows/nanoserver:1809"
	cases := []struct {
		name, image, user, want string
	}{
		{"explicit", nano, "ContainerAdministrator", "container's runAsUserName (ContainerAdministrator) which will be regarded as root identity and will break non-root policy"},
		{"upper", nano, "CONTAINERADMINISTRATOR", "container's runAsUserName (CONTAINERADMINISTRATOR) which will be regarded as root identity and will break non-root policy"},
		{"image-default", "mcr.microsoft.com/windows/servercore:ltsc2019", "", "container's runAsUser (ContainerAdministrator) which will be regarded as root identity and will break non-root policy"},
		{"nano-default", nano, "", ""},
	}
	for _, tc := range cases {
		pod := simplePod(tc.name, "win2019-1", tc.image)
		pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true)}
		if tc.user != "" {
			pod.Spec.SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To(tc.user)}
		}
		createPod(t, ns, pod)
	}
	for _, tc := range cases {
		if tc.want == "" {
			waitPod(t, ns, tc.name, 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
			continue
		}
		p := waitPod(t, ns, tc.name, 30*time.Second, "CreateContainerConfigError", func(p *corev1.Pod) bool {
			return waitingReason(p, "main") == "CreateContainerConfigError"
		})
		if msg := p.Status.ContainerStatuses[0].State.Waiting.Message; !strings.Contains(msg, tc.want) || !strings.Contains(msg, "container: main") {
			t.Errorf("%s: waiting message = %q, want it to contain %q", tc.name, msg, tc.want)
		}
		if p.Status.Phase != corev1.PodPending {
			t.Errorf("%s: phase = %s, want Pending", tc.name, p.Status.Phase)
		}
		waitEvent(t, ns, tc.name, "Failed", "Error: "+tc.want, 10*time.Second)
		for _, e := range podEvents(t, ns, tc.name) {
			if e.Reason == "Created" || e.Reason == "Started" {
				t.Errorf("%s: event %s %q: the kubelet creates no container", tc.name, e.Reason, e.Message)
			}
		}
	}
}

// rule: KLT-11: the seed's RuntimeClass (handler docker) on a containerd
// node fails the sandbox in containerd's words, and the pod stays
// ContainerCreating; the process-isolation handler starts it.
func TestRuntimeClassHandlerTheRuntimeLacks(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	ctx := context.Background()
	for _, handler := range []string{"docker", "runhcs-wcow-process"} {
		rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + handler}, Handler: handler}
		if _, err := client.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = client.NodeV1().RuntimeClasses().Delete(ctx, rc.Name, metav1.DeleteOptions{}) })
		pod := simplePod(handler, "win2019-1", iis2019)
		pod.Spec.RuntimeClassName = &rc.Name
		createPod(t, ns, pod)
	}
	waitEvent(t, ns, "docker", "FailedCreatePodSandBox",
		`Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "docker" is configured`, 30*time.Second)
	p, _ := client.CoreV1().Pods(ns).Get(ctx, "docker", metav1.GetOptions{})
	if p.Status.Phase != corev1.PodPending || waitingReason(p, "main") != "ContainerCreating" {
		t.Errorf("phase %s, waiting %q: want Pending, ContainerCreating", p.Status.Phase, waitingReason(p, "main"))
	}
	waitPod(t, ns, "runhcs-wcow-process", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}
