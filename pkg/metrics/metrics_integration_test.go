package metrics_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/component-base/metrics/testutil"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/node"
)

const (
	iis2022   = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"
	hostImage = "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0"
	win2022   = "win2022-1"
)

// windowsToleration tolerates the default Windows pools' taint.
var windowsToleration = corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}

func newNamespace(t *testing.T) string {
	t.Helper()
	ns, err := client.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: strings.ToLower(t.Name()) + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() { _ = client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{}) })
	waitFor(t, 30*time.Second, "default service account", func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	return ns.Name
}

// webContainer requests 200m CPU and 100Mi memory.
func webContainer() corev1.Container {
	return corev1.Container{Name: "web", Image: iis2022, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("100Mi"),
	}}}
}

func startPod(t *testing.T, ns string, pod *corev1.Pod) {
	t.Helper()
	if _, err := client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", pod.Name, err)
	}
	waitFor(t, time.Minute, "pod "+pod.Name+" Running", func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning, nil
	})
}

// nodeProxy GETs a kubelet path through the API server's node proxy, as
// `kubectl get --raw /api/v1/nodes/NODE/proxy/PATH` does.
func nodeProxy(t *testing.T, nodeName, path string) []byte {
	t.Helper()
	raw, err := rawREST.Get().AbsPath("/api/v1/nodes", nodeName, "proxy", path).DoRaw(context.Background())
	if err != nil {
		t.Fatalf("GET /api/v1/nodes/%s/proxy/%s: %v (%s)", nodeName, path, err, raw)
	}
	return raw
}

// Every kubelet path answers through the node proxy, in the Windows
// kubelet's shapes (pkg/kubelet/stats/cri_stats_provider_windows.go,
// pkg/kubelet/metrics/collectors/resource_metrics.go).
func TestNodeProxyPaths(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	startPod(t, ns, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       corev1.PodSpec{NodeName: win2022, Tolerations: []corev1.Toleration{windowsToleration}, Containers: []corev1.Container{webContainer()}},
	})
	startPod(t, ns, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "host"},
		Spec: corev1.PodSpec{
			NodeName: win2022, HostNetwork: true, Tolerations: []corev1.Toleration{windowsToleration},
			SecurityContext: &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{
				HostProcess: ptr.To(true), RunAsUserName: ptr.To(`NT AUTHORITY\SYSTEM`),
			}},
			Containers: []corev1.Container{{Name: "agent", Image: hostImage}},
		},
	})

	if got := string(nodeProxy(t, "win2019-1", "healthz")); got != "ok" {
		t.Errorf("healthz = %q, want ok", got)
	}

	var pods corev1.PodList
	mustJSON(t, nodeProxy(t, win2022, "pods"), &pods)
	if pods.Kind != "PodList" || !hasPod(pods.Items, ns, "web") || !hasPod(pods.Items, ns, "host") {
		t.Errorf("/pods: kind %q, %d pods, want a PodList with web and host", pods.Kind, len(pods.Items))
	}

	var configz struct {
		Config map[string]any `json:"kubeletconfig"`
	}
	mustJSON(t, nodeProxy(t, win2022, "configz"), &configz)
	if configz.Config["containerRuntimeEndpoint"] != "npipe:////./pipe/containerd-containerd" || configz.Config["cgroupsPerQOS"] != false {
		t.Errorf("/configz: runtime endpoint %v, cgroupsPerQOS %v; want containerd's named pipe and no QoS cgroups",
			configz.Config["containerRuntimeEndpoint"], configz.Config["cgroupsPerQOS"])
	}

	var sum statsapi.Summary
	mustJSON(t, nodeProxy(t, win2022, "stats/summary"), &sum)
	checkSummary(t, &sum, ns)

	text := string(nodeProxy(t, win2022, "metrics/resource"))
	for _, want := range []string{
		`container_cpu_usage_seconds_total{container="web",namespace="` + ns + `",pod="web"} `,
		`container_memory_working_set_bytes{container="web",namespace="` + ns + `",pod="web"} 5.24288e+07 `,
		"# TYPE node_cpu_usage_seconds_total counter",
		"node_memory_working_set_bytes ",
		"resource_scrape_error 0",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics/resource lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, `container_memory_working_set_bytes{container="agent"`) {
		t.Errorf("/metrics/resource lacks the HostProcess container's working set:\n%s", text)
	}

	kubelet := string(nodeProxy(t, win2022, "metrics"))
	for _, want := range []string{
		`kubelet_node_name{node="` + win2022 + `"} 1`,
		`kubelet_running_containers{container_state="running"} `,
		"# TYPE kubelet_running_pods gauge",
		"# TYPE kubelet_started_host_process_containers_total counter",
		"process_start_time_seconds ",
	} {
		if !strings.Contains(kubelet, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, kubelet)
		}
	}
	if _, err := promParse(kubelet); err != nil {
		t.Errorf("/metrics is not valid Prometheus text: %v", err)
	}
	for _, path := range []string{"metrics/cadvisor", "metrics/probes"} {
		if _, err := promParse(string(nodeProxy(t, win2022, path))); err != nil {
			t.Errorf("/%s is not valid Prometheus text: %v", path, err)
		}
	}
}

// promParse parses Prometheus text as the e2e framework's metrics grabber
// does.
func promParse(text string) (testutil.Metrics, error) {
	m := testutil.NewMetrics()
	return m, testutil.ParseMetrics(text, &m)
}

// checkSummary: half the requests without an annotation, the HNS names,
// a HostProcess container's working set, and the containers' log figures.
func checkSummary(t *testing.T, sum *statsapi.Summary, ns string) {
	t.Helper()
	if sum.Node.NodeName != win2022 || sum.Node.Network == nil || sum.Node.Network.Name != "vEthernet (Ethernet)" {
		t.Errorf("summary node: %+v, want win2022-1 with the vEthernet (Ethernet) interface", sum.Node)
	}
	web, host := findPod(sum, ns, "web"), findPod(sum, ns, "host")
	if web == nil || host == nil {
		t.Fatalf("summary lacks pod web or host: %+v", sum.Pods)
	}
	c := web.Containers[0]
	if *c.CPU.UsageNanoCores != 100_000_000 || c.Memory == nil || *c.Memory.WorkingSetBytes != 50<<20 {
		t.Errorf("web usage: %d nano-cores, memory %+v; want 100m and 50Mi (half of 200m and 100Mi)", *c.CPU.UsageNanoCores, c.Memory)
	}
	if web.Network == nil || !strings.HasSuffix(web.Network.Name, "_vxlan0") {
		t.Errorf("web network: %+v, want the HNS endpoint <sandbox>_vxlan0", web.Network)
	}
	if m := host.Containers[0].Memory; m == nil || *m.WorkingSetBytes == 0 || host.Memory == nil || *host.Memory.WorkingSetBytes == 0 {
		t.Errorf("HostProcess pod has no working set: %+v", host)
	}
	for _, ps := range []*statsapi.PodStats{web, host} {
		l := ps.Containers[0].Logs
		if l == nil || *l.AvailableBytes == 0 || *l.CapacityBytes == 0 || *l.UsedBytes == 0 || l.InodesFree == nil {
			t.Errorf("pod %s container log stats %+v, want capacity, available and used bytes", ps.PodRef.Name, l)
		}
	}
}

// kubectl top reads metrics.k8s.io through the aggregator; the annotation
// raises a pod's usage.
func TestMetricsAPI(t *testing.T) {
	needCluster(t)
	waitAvailable(t)
	ns := newNamespace(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{node.AnnotationUsageCPU: "750m", node.AnnotationUsageMemory: "300Mi"}},
		Spec:       corev1.PodSpec{NodeName: win2022, Tolerations: []corev1.Toleration{windowsToleration}, Containers: []corev1.Container{webContainer()}},
	}
	startPod(t, ns, pod)

	var pm metricsv1beta1.PodMetrics
	mustJSON(t, rawGet(t, "/apis/metrics.k8s.io/v1beta1/namespaces/"+ns+"/pods/web"), &pm)
	if len(pm.Containers) != 1 || pm.Containers[0].Usage.Cpu().MilliValue() != 750 || pm.Containers[0].Usage.Memory().Value() != 300<<20 {
		t.Errorf("pod metrics: %+v, want web at 750m and 300Mi", pm.Containers)
	}
	var nodes metricsv1beta1.NodeMetricsList
	mustJSON(t, rawGet(t, "/apis/metrics.k8s.io/v1beta1/nodes"), &nodes)
	names := map[string]bool{}
	for _, n := range nodes.Items {
		names[n.Name] = true
	}
	if !names[win2022] || !names["win2019-1"] || !names["linux-1"] {
		t.Errorf("node metrics for %v, want every node", names)
	}
}

// An HPA on a Windows Deployment scales up when the pods' usage rises
// (seed 000 lists the HPA among what Windows nodes support).
func TestHPAScalesWindowsDeployment(t *testing.T) {
	needCluster(t)
	waitAvailable(t)
	ns := newNamespace(t)
	labels := map[string]string{"app": "web"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.20348"},
					Tolerations:  []corev1.Toleration{windowsToleration},
					Containers:   []corev1.Container{webContainer()},
				},
			},
		},
	}
	if _, err := client.AppsV1().Deployments(ns).Create(context.Background(), dep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    ptr.To[int32](1), MaxReplicas: 4,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)},
			}}},
		},
	}
	hpas := client.AutoscalingV2().HorizontalPodAutoscalers(ns)
	if _, err := hpas.Create(context.Background(), hpa, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create hpa: %v", err)
	}
	// At rest each pod uses half its request: 50%, on target, one replica.
	got := waitHPA(t, ns, "50% utilisation at rest", func(h *autoscalingv2.HorizontalPodAutoscaler) bool {
		return cpuUtilization(h) == 50
	})
	if got.Status.DesiredReplicas != 1 {
		t.Errorf("at rest: desiredReplicas %d, want 1", got.Status.DesiredReplicas)
	}
	// 400m on a 200m request is 200%: four times the target, so the
	// maximum of four replicas.
	pods, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatalf("list pods: %v", err)
	}
	patch := []byte(`{"metadata":{"annotations":{"` + node.AnnotationUsageCPU + `":"400m"}}}`)
	for _, p := range pods.Items {
		if _, err := client.CoreV1().Pods(ns).Patch(context.Background(), p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("annotate pod %s: %v", p.Name, err)
		}
	}
	waitHPA(t, ns, "scale-up to 4 replicas", func(h *autoscalingv2.HorizontalPodAutoscaler) bool {
		return h.Status.DesiredReplicas == 4 && cpuUtilization(h) > 50
	})
}

func cpuUtilization(h *autoscalingv2.HorizontalPodAutoscaler) int32 {
	for _, m := range h.Status.CurrentMetrics {
		if m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			return *m.Resource.Current.AverageUtilization
		}
	}
	return -1
}

func waitHPA(t *testing.T, ns, what string, cond func(*autoscalingv2.HorizontalPodAutoscaler) bool) *autoscalingv2.HorizontalPodAutoscaler {
	t.Helper()
	var last *autoscalingv2.HorizontalPodAutoscaler
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		h, err := client.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = h
		return cond(h), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v; last HPA status: %+v", what, err, last.Status)
	}
	return last
}

// waitAvailable waits for the aggregator to call the metrics APIService
// Available, which it decides by calling the server.
func waitAvailable(t *testing.T) {
	t.Helper()
	waitFor(t, 2*time.Minute, "APIService v1beta1.metrics.k8s.io Available", func(ctx context.Context) (bool, error) {
		raw, err := rawREST.Get().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io").DoRaw(ctx)
		if err != nil {
			return false, nil
		}
		var svc apiregistrationv1.APIService
		if json.Unmarshal(raw, &svc) != nil {
			return false, nil
		}
		for _, c := range svc.Status.Conditions {
			if c.Type == apiregistrationv1.Available {
				return c.Status == apiregistrationv1.ConditionTrue, nil
			}
		}
		return false, nil
	})
}

func rawGet(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := rawREST.Get().AbsPath(path).DoRaw(context.Background())
	if err != nil {
		t.Fatalf("GET %s: %v (%s)", path, err, raw)
	}
	return raw
}

func mustJSON(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, raw)
	}
}

func hasPod(pods []corev1.Pod, ns, name string) bool {
	for _, p := range pods {
		if p.Namespace == ns && p.Name == name {
			return true
		}
	}
	return false
}

func findPod(sum *statsapi.Summary, ns, name string) *statsapi.PodStats {
	for i := range sum.Pods {
		if sum.Pods[i].PodRef.Namespace == ns && sum.Pods[i].PodRef.Name == name {
			return &sum.Pods[i]
		}
	}
	return nil
}
