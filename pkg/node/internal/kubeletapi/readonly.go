package kubeletapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfig "k8s.io/kubelet/config/v1beta1"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
)

// The read-only kubelet API beside logs: what `kubectl get --raw
// /api/v1/nodes/NODE/proxy/PATH` and metrics collectors read.
func (s *Server) routeReadOnly(mux *http.ServeMux) {
	mux.HandleFunc("GET /pods", s.withNode(s.pods))
	mux.HandleFunc("GET /pods/", s.withNode(s.pods))
	mux.HandleFunc("GET /configz", s.withNode(s.configz))
	mux.HandleFunc("GET /stats/summary", s.withNode(s.statsSummary))
	mux.HandleFunc("GET /metrics/resource", s.withNode(s.resourceMetrics))
	mux.HandleFunc("GET /metrics", s.withNode(s.kubeletMetrics))
	mux.HandleFunc("GET /metrics/cadvisor", s.withNode(s.cadvisorMetrics))
	mux.HandleFunc("GET /metrics/probes", s.withNode(s.probeMetrics))
}

// withNode finds the node the connection was dialled for.
func (s *Server) withNode(h func(http.ResponseWriter, *http.Request, Node)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, _ := r.Context().Value(nodeKey{}).(string)
		n := s.cfg.Node(name)
		if n == nil {
			http.Error(w, "no node for this connection", http.StatusNotFound)
			return
		}
		h(w, r, n)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// pods is GET /pods: the pods bound to the node, as a v1 PodList.
func (s *Server) pods(w http.ResponseWriter, _ *http.Request, n Node) {
	list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: []corev1.Pod{}}
	for _, p := range n.Pods() {
		list.Items = append(list.Items, *p)
	}
	writeJSON(w, list)
}

// statsSummary is GET /stats/summary; only_cpu_and_memory=true drops the
// network and filesystem figures, as the kubelet does for resource metrics.
func (s *Server) statsSummary(w http.ResponseWriter, r *http.Request, n Node) {
	sum := s.summary(n, time.Now())
	if r.URL.Query().Get("only_cpu_and_memory") == "true" {
		cpuAndMemoryOnly(sum)
	}
	writeJSON(w, sum)
}

func cpuAndMemoryOnly(sum *statsapi.Summary) {
	sum.Node.Network, sum.Node.Fs, sum.Node.Runtime = nil, nil, nil
	for i := range sum.Pods {
		sum.Pods[i].Network = nil
		for j := range sum.Pods[i].Containers {
			sum.Pods[i].Containers[j].Logs = nil
		}
	}
}

// resourceMetrics is GET /metrics/resource in the Prometheus text format,
// the series metrics-server reads: CPU as cumulative core-seconds, memory
// as working set, each sample stamped with its time in milliseconds.
func (s *Server) resourceMetrics(w http.ResponseWriter, _ *http.Request, n Node) {
	now := time.Now()
	sum := s.summary(n, now)
	ms := now.UnixMilli()
	var b strings.Builder
	family := func(name, help, kind string) {
		fmt.Fprintf(&b, "# HELP %s [STABLE] %s\n# TYPE %s %s\n", name, help, name, kind)
	}
	sample := func(name, labels string, v float64, stamped bool) {
		if labels != "" {
			labels = "{" + labels + "}"
		}
		if stamped {
			fmt.Fprintf(&b, "%s%s %g %d\n", name, labels, v, ms)
		} else {
			fmt.Fprintf(&b, "%s%s %g\n", name, labels, v)
		}
	}
	containers := sortedContainers(sum)
	family("container_cpu_usage_seconds_total", "Cumulative cpu time consumed by the container in core-seconds", "counter")
	for _, c := range containers {
		sample("container_cpu_usage_seconds_total", c.labels, coreSeconds(*c.stats.CPU.UsageCoreNanoSeconds), true)
	}
	family("container_memory_working_set_bytes", "Current working set of the container in bytes", "gauge")
	for _, c := range containers {
		if c.stats.Memory != nil {
			sample("container_memory_working_set_bytes", c.labels, float64(*c.stats.Memory.WorkingSetBytes), true)
		}
	}
	family("container_start_time_seconds", "Start time of the container since unix epoch in seconds", "gauge")
	for _, c := range containers {
		sample("container_start_time_seconds", c.labels, float64(c.stats.StartTime.UnixNano())/1e9, true)
	}
	family("node_cpu_usage_seconds_total", "Cumulative cpu time consumed by the node in core-seconds", "counter")
	sample("node_cpu_usage_seconds_total", "", coreSeconds(*sum.Node.CPU.UsageCoreNanoSeconds), true)
	family("node_memory_working_set_bytes", "Current working set of the node in bytes", "gauge")
	sample("node_memory_working_set_bytes", "", float64(*sum.Node.Memory.WorkingSetBytes), true)
	family("pod_cpu_usage_seconds_total", "Cumulative cpu time consumed by the pod in core-seconds", "counter")
	for _, p := range sum.Pods {
		sample("pod_cpu_usage_seconds_total", podLabels(p), coreSeconds(*p.CPU.UsageCoreNanoSeconds), true)
	}
	family("pod_memory_working_set_bytes", "Current working set of the pod in bytes", "gauge")
	for _, p := range sum.Pods {
		if p.Memory != nil {
			sample("pod_memory_working_set_bytes", podLabels(p), float64(*p.Memory.WorkingSetBytes), true)
		}
	}
	family("resource_scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", "gauge")
	sample("resource_scrape_error", "", 0, false)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	io.WriteString(w, b.String())
}

type labelledContainer struct {
	labels string
	stats  statsapi.ContainerStats
}

// sortedContainers lists every pod's containers with their labels, sorted
// as the Prometheus registry sorts series.
func sortedContainers(sum *statsapi.Summary) []labelledContainer {
	var out []labelledContainer
	for _, p := range sum.Pods {
		for _, c := range p.Containers {
			l := fmt.Sprintf("container=%q,namespace=%q,pod=%q", c.Name, p.PodRef.Namespace, p.PodRef.Name)
			out = append(out, labelledContainer{labels: l, stats: c})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].labels < out[j].labels })
	return out
}

func podLabels(p statsapi.PodStats) string {
	return fmt.Sprintf("namespace=%q,pod=%q", p.PodRef.Namespace, p.PodRef.Name)
}

func coreSeconds(ns uint64) float64 { return float64(ns) / 1e9 }

// configz is GET /configz: the node's kubelet configuration under
// "kubeletconfig". On Windows the kubelet runs without QoS cgroups and
// without node-allocatable enforcement, and reaches containerd by a pipe.
func (s *Server) configz(w http.ResponseWriter, _ *http.Request, n Node) {
	writeJSON(w, map[string]any{"kubeletconfig": s.kubeletConfig(n)})
}

func (s *Server) kubeletConfig(n Node) kubeletconfig.KubeletConfiguration {
	facts := n.Facts()
	win, pool := facts.Windows, facts.Pool
	c := kubeletconfig.KubeletConfiguration{
		EnableServer:              ptrTo(true),
		Address:                   "0.0.0.0",
		Port:                      s.port(facts.Name),
		SyncFrequency:             metav1.Duration{Duration: time.Minute},
		NodeStatusUpdateFrequency: metav1.Duration{Duration: 10 * time.Second},
		NodeStatusReportFrequency: metav1.Duration{Duration: 5 * time.Minute},
		ClusterDomain:             "cluster.local",
		MaxPods:                   110,
		PodPidsLimit:              ptrTo[int64](-1),
		CgroupsPerQOS:             ptrTo(!win),
		CgroupDriver:              "cgroupfs",
		ContainerLogMaxSize:       "10Mi",
		ContainerLogMaxFiles:      ptrTo[int32](5),
		KubeReserved:              resourceStrings(pool.KubeReserved),
		SystemReserved:            resourceStrings(pool.SystemReserved),
		EvictionHard:              pool.EvictionHard,
		ContainerRuntimeEndpoint:  "unix:///run/containerd/containerd.sock",
		EnforceNodeAllocatable:    []string{"pods"},
	}
	if pool.MaxPods > 0 {
		c.MaxPods = int32(pool.MaxPods)
	}
	if s.cfg.DNSServiceIP != "" {
		c.ClusterDNS = []string{s.cfg.DNSServiceIP}
	}
	if win {
		c.ContainerRuntimeEndpoint = "npipe:////./pipe/containerd-containerd"
		c.EnforceNodeAllocatable = []string{}
		c.CgroupDriver = ""
	}
	return c
}

func resourceStrings(l corev1.ResourceList) map[string]string {
	if len(l) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, v := range l {
		out[string(k)] = v.String()
	}
	return out
}

// promText builds a Prometheus text exposition: families in the order
// written, samples sorted within each as the registry sorts them.
type promText struct{ b strings.Builder }

func (p *promText) family(name, stability, help, kind string) {
	fmt.Fprintf(&p.b, "# HELP %s [%s] %s\n# TYPE %s %s\n", name, stability, help, name, kind)
}

func (p *promText) sample(name, labels string, v float64) {
	if labels != "" {
		labels = "{" + labels + "}"
	}
	fmt.Fprintf(&p.b, "%s%s %s\n", name, labels, strconv.FormatFloat(v, 'g', -1, 64))
}

func (p *promText) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	io.WriteString(w, p.b.String())
}

// kubeletMetrics is GET /metrics: the kubelet's own series that test
// frameworks and dashboards read (pkg/kubelet/metrics), per node.
func (s *Server) kubeletMetrics(w http.ResponseWriter, _ *http.Request, n Node) {
	var p promText
	pods, states := s.runningCounts(n)
	p.family("kubelet_node_name", "ALPHA", "The node's name. The count is always 1.", "gauge")
	facts := n.Facts()
	p.sample("kubelet_node_name", fmt.Sprintf("node=%q", facts.Name), 1)
	p.family("kubelet_running_containers", "ALPHA", "Number of containers currently running", "gauge")
	for _, st := range []string{"created", "exited", "running", "unknown"} {
		p.sample("kubelet_running_containers", fmt.Sprintf("container_state=%q", st), float64(states[st]))
	}
	p.family("kubelet_running_pods", "ALPHA", "Number of pods that have a running pod sandbox", "gauge")
	p.sample("kubelet_running_pods", "", float64(pods))
	c := n.Counters()
	c.mu.Lock()
	counterFamily(&p, "kubelet_started_containers_errors_total", "Cumulative number of errors when starting containers", c.errors)
	counterFamily(&p, "kubelet_started_containers_total", "Cumulative number of containers started", c.started)
	if facts.Windows {
		counterFamily(&p, "kubelet_started_host_process_containers_errors_total", "Cumulative number of errors when starting hostprocess containers. This metric will only be collected on Windows.", c.hostProcessErrors)
		counterFamily(&p, "kubelet_started_host_process_containers_total", "Cumulative number of hostprocess containers started. This metric will only be collected on Windows.", c.hostProcessStarted)
	}
	c.mu.Unlock()
	p.family("process_start_time_seconds", "ALPHA", "Start time of the process since unix epoch in seconds.", "gauge")
	p.sample("process_start_time_seconds", "", float64(s.started.Unix()))
	p.write(w)
}

// counterFamily writes one counter family from label sets to counts.
func counterFamily(p *promText, name, help string, counts map[string]float64) {
	p.family(name, "ALPHA", help, "counter")
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.sample(name, k, counts[k])
	}
}

// runningCounts counts, from the statuses of the node's pods, the pods with
// a live sandbox and the containers by runtime state.
func (s *Server) runningCounts(n Node) (pods int, states map[string]int) {
	states = map[string]int{}
	for _, pod := range n.Pods() {
		if podutil.IsPodPhaseTerminal(pod.Status.Phase) || pod.Status.StartTime == nil {
			continue
		}
		if _, c := podutil.GetPodCondition(&pod.Status, corev1.PodReadyToStartContainers); c != nil && c.Status == corev1.ConditionTrue {
			pods++
		}
		all := append(append(append([]corev1.ContainerStatus(nil), pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...), pod.Status.EphemeralContainerStatuses...)
		for _, cs := range all {
			switch {
			case cs.State.Running != nil:
				states["running"]++
			case cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil:
				states["exited"]++
			}
		}
	}
	return pods, states
}

// cadvisorMetrics is GET /metrics/cadvisor: the container series of the
// kubelet's embedded cAdvisor, from the same figures as /stats/summary.
func (s *Server) cadvisorMetrics(w http.ResponseWriter, _ *http.Request, n Node) {
	now := time.Now()
	sum := s.summary(n, now)
	var p promText
	containers := sortedContainers(sum)
	p.family("container_cpu_usage_seconds_total", "ALPHA", "Cumulative cpu time consumed in seconds.", "counter")
	for _, c := range containers {
		p.sample("container_cpu_usage_seconds_total", c.labels, coreSeconds(*c.stats.CPU.UsageCoreNanoSeconds))
	}
	p.family("container_memory_working_set_bytes", "ALPHA", "Current working set in bytes.", "gauge")
	for _, c := range containers {
		if c.stats.Memory != nil {
			p.sample("container_memory_working_set_bytes", c.labels, float64(*c.stats.Memory.WorkingSetBytes))
		}
	}
	p.family("container_start_time_seconds", "ALPHA", "Start time of the container since unix epoch in seconds.", "gauge")
	for _, c := range containers {
		p.sample("container_start_time_seconds", c.labels, float64(c.stats.StartTime.Unix()))
	}
	facts := n.Facts()
	p.family("machine_cpu_cores", "ALPHA", "Number of logical CPU cores.", "gauge")
	p.sample("machine_cpu_cores", "", float64(facts.Pool.CPU))
	p.family("machine_memory_bytes", "ALPHA", "Amount of memory installed on the machine.", "gauge")
	p.sample("machine_memory_bytes", "", float64(quantityOf(facts.Capacity, corev1.ResourceMemory)))
	p.write(w)
}

// probeMetrics is GET /metrics/probes. The emulated prober keeps no
// counts, so the family is declared without samples.
func (s *Server) probeMetrics(w http.ResponseWriter, _ *http.Request, _ Node) {
	var p promText
	p.family("prober_probe_total", "ALPHA", "Cumulative number of a liveness, readiness or startup probe for a container by result.", "counter")
	p.write(w)
}
