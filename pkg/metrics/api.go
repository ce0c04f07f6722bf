package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

const groupVersion = "metrics.k8s.io/v1beta1"

// window is the span the reported CPU rate covers; the kubelet summary's
// usageNanoCores is a rate over its last sampling interval.
const window = 10 * time.Second

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	base := "/apis/" + groupVersion
	mux.HandleFunc("GET "+base, s.discovery)
	mux.HandleFunc("GET "+base+"/nodes", s.nodes)
	mux.HandleFunc("GET "+base+"/nodes/{name}", s.nodes)
	mux.HandleFunc("GET "+base+"/pods", s.pods)
	mux.HandleFunc("GET "+base+"/namespaces/{namespace}/pods", s.pods)
	mux.HandleFunc("GET "+base+"/namespaces/{namespace}/pods/{name}", s.pods)
	mux.HandleFunc("GET /openapi/v2", s.openAPIV2)
	mux.HandleFunc("GET /openapi/v3", s.openAPIV3Root)
	mux.HandleFunc("GET /openapi/v3/"+openAPIV3Path, s.openAPIV3)
	// Anything else (aggregated discovery at /apis among it) is a 404, on
	// which the aggregator falls back to the group version's resource list.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
	})
	return mux
}

// discovery lists the two resources, both read-only.
func (s *Server) discovery(w http.ResponseWriter, _ *http.Request) {
	verbs := metav1.Verbs{"get", "list"}
	writeJSON(w, http.StatusOK, metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: groupVersion,
		APIResources: []metav1.APIResource{
			{Name: "nodes", Kind: "NodeMetrics", Verbs: verbs},
			{Name: "pods", Kind: "PodMetrics", Namespaced: true, Verbs: verbs},
		},
	})
}

// nodes serves NodeMetrics: one by name, or a list by label selector.
func (s *Server) nodes(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.PathValue("name")
	sel, ok := selector(w, r)
	if !ok {
		return
	}
	list, err := s.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		writeError(w, err)
		return
	}
	var names []string
	for _, n := range list.Items {
		if name == "" || n.Name == name {
			names = append(names, n.Name)
		}
	}
	summaries := s.summaries(ctx, names)
	out := metricsv1beta1.NodeMetricsList{TypeMeta: metav1.TypeMeta{Kind: "NodeMetricsList", APIVersion: groupVersion}, Items: []metricsv1beta1.NodeMetrics{}}
	for _, n := range list.Items {
		if m, ok := nodeMetrics(&n, summaries[n.Name]); ok && (name == "" || n.Name == name) {
			out.Items = append(out.Items, m)
		}
	}
	if name == "" {
		writeJSON(w, http.StatusOK, out)
		return
	}
	if len(out.Items) == 0 {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf("nodemetrics.metrics.k8s.io %q not found", name))
		return
	}
	writeJSON(w, http.StatusOK, out.Items[0])
}

// pods serves PodMetrics: one by name, or a list by namespace (all when
// none) and label selector.
func (s *Server) pods(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	sel, ok := selector(w, r)
	if !ok {
		return
	}
	list, err := s.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		writeError(w, err)
		return
	}
	var pods []corev1.Pod
	nodeSet := map[string]bool{}
	for _, p := range list.Items {
		if (name == "" || p.Name == name) && p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
			pods = append(pods, p)
			nodeSet[p.Spec.NodeName] = true
		}
	}
	var nodes []string
	for n := range nodeSet {
		nodes = append(nodes, n)
	}
	summaries := s.summaries(ctx, nodes)
	out := metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: groupVersion}, Items: []metricsv1beta1.PodMetrics{}}
	for i := range pods {
		if m, ok := podMetrics(&pods[i], summaries[pods[i].Spec.NodeName]); ok {
			out.Items = append(out.Items, m)
		}
	}
	if name == "" {
		writeJSON(w, http.StatusOK, out)
		return
	}
	if len(out.Items) == 0 {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf("podmetrics.metrics.k8s.io %q not found", name))
		return
	}
	writeJSON(w, http.StatusOK, out.Items[0])
}

// summaries reads the nodes' kubelet summaries through the API server's
// node proxy, in parallel; a node that does not answer is left out, as
// metrics-server leaves out a kubelet it cannot scrape.
func (s *Server) summaries(ctx context.Context, nodes []string) map[string]*statsapi.Summary {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	out := map[string]*statsapi.Summary{}
	for _, n := range nodes {
		wg.Go(func() {
			raw, err := s.client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", n, "proxy", "stats", "summary").
				Param("only_cpu_and_memory", "true").DoRaw(ctx)
			var sum statsapi.Summary
			if err != nil || json.Unmarshal(raw, &sum) != nil {
				return
			}
			mu.Lock()
			out[n] = &sum
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

func nodeMetrics(n *corev1.Node, sum *statsapi.Summary) (metricsv1beta1.NodeMetrics, bool) {
	if sum == nil || sum.Node.CPU == nil || sum.Node.CPU.UsageNanoCores == nil || sum.Node.Memory == nil || sum.Node.Memory.WorkingSetBytes == nil {
		return metricsv1beta1.NodeMetrics{}, false
	}
	return metricsv1beta1.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, CreationTimestamp: metav1.Now()},
		Timestamp:  sum.Node.CPU.Time,
		Window:     metav1.Duration{Duration: window},
		Usage:      usage(*sum.Node.CPU.UsageNanoCores, *sum.Node.Memory.WorkingSetBytes),
	}, true
}

// podMetrics needs CPU and memory of every container, as metrics-server
// does: a pod with a container lacking either has no metrics.
func podMetrics(p *corev1.Pod, sum *statsapi.Summary) (metricsv1beta1.PodMetrics, bool) {
	if sum == nil {
		return metricsv1beta1.PodMetrics{}, false
	}
	for _, ps := range sum.Pods {
		if ps.PodRef.Namespace != p.Namespace || ps.PodRef.Name != p.Name || len(ps.Containers) == 0 {
			continue
		}
		m := metricsv1beta1.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels, CreationTimestamp: metav1.Now()},
			Window:     metav1.Duration{Duration: window},
		}
		for _, c := range ps.Containers {
			if c.CPU == nil || c.CPU.UsageNanoCores == nil || c.Memory == nil || c.Memory.WorkingSetBytes == nil {
				return metricsv1beta1.PodMetrics{}, false
			}
			m.Timestamp = c.CPU.Time
			m.Containers = append(m.Containers, metricsv1beta1.ContainerMetrics{Name: c.Name, Usage: usage(*c.CPU.UsageNanoCores, *c.Memory.WorkingSetBytes)})
		}
		return m, true
	}
	return metricsv1beta1.PodMetrics{}, false
}

func usage(nanoCores, workingSet uint64) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewScaledQuantity(int64(nanoCores), resource.Nano),
		corev1.ResourceMemory: *resource.NewQuantity(int64(workingSet), resource.BinarySI),
	}
}

// selector reads labelSelector; a bad one is a 400 naming the parameter.
func selector(w http.ResponseWriter, r *http.Request) (labels.Selector, bool) {
	sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf("labelSelector: %v", err))
		return nil, false
	}
	return sel, true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	writeJSON(w, code, metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg,
	})
}

// writeError passes on the API server's own answer when it gave one.
func writeError(w http.ResponseWriter, err error) {
	if st, ok := err.(apierrors.APIStatus); ok {
		s := st.Status()
		s.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		writeJSON(w, int(s.Code), s)
		return
	}
	writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
}
