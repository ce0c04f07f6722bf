package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// namespace holds the measured pods.
const namespace = "bench"

// images of the workload: the web servers of examples/, which run until
// deleted on both setups.
var images = map[string]string{
	"10.0.17763": "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019",
	"10.0.20348": "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022",
	"":           "nginx:1.27",
}

// windowsToleration is the taint winkube puts on Windows pools by default,
// and benchscale on kwok's Windows nodes.
var windowsToleration = corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}

// deployments are the workload: one plain Deployment per pool with pods,
// placed the way the README's examples place Windows pods (nodeSelector on
// the OS and build, toleration of the Windows taint), running image (else
// the pool's web server) with command (else the image's entrypoint).
func deployments(ps []pool, image string, command []string) []*appsv1.Deployment {
	var out []*appsv1.Deployment
	for _, p := range ps {
		if p.pods == 0 {
			continue
		}
		labels := map[string]string{"app": "bench-" + p.name, "bench": "scale"}
		spec := corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/os": p.os},
			Containers:   []corev1.Container{{Name: "web", Image: images[p.build], Command: command}},
		}
		if image != "" {
			spec.Containers[0].Image = image
		}
		if p.os == "windows" {
			spec.OS = &corev1.PodOS{Name: corev1.Windows}
			spec.NodeSelector["node.kubernetes.io/windows-build"] = p.build
			spec.Tolerations = []corev1.Toleration{windowsToleration}
		}
		out = append(out, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "bench-" + p.name, Namespace: namespace, Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To(int32(p.pods)),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
			},
		})
	}
	return out
}

// watcher counts Ready nodes and the workload's pods from informers, so a
// wait ends as soon as the last watch event arrives.
type watcher struct {
	mu      sync.Mutex
	nodes   map[string]string // name → Ready or NotReady
	pods    map[string]string // namespace/name → podState
	changed chan struct{}
}

func startWatcher(ctx context.Context, client kubernetes.Interface) (*watcher, error) {
	w := &watcher{nodes: map[string]string{}, pods: map[string]string{}, changed: make(chan struct{}, 1)}
	nodes := informers.NewSharedInformerFactory(client, 0)
	pods := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	ni := nodes.Core().V1().Nodes().Informer()
	pi := pods.Core().V1().Pods().Informer()
	nreg, err := ni.AddEventHandler(handler(w, w.nodes, nodeState))
	if err != nil {
		return nil, err
	}
	preg, err := pi.AddEventHandler(handler(w, w.pods, podState))
	if err != nil {
		return nil, err
	}
	nodes.Start(ctx.Done())
	pods.Start(ctx.Done())
	// The handlers' own HasSynced, not the informers': an informer has
	// synced once its cache holds the first list, while its handlers may
	// still be receiving it (with 5,000 nodes the first count once read
	// 3,497).
	if !cache.WaitForCacheSync(ctx.Done(), nreg.HasSynced, preg.HasSynced) {
		return nil, fmt.Errorf("watching nodes and pods: %w", ctx.Err())
	}
	return w, nil
}

const (
	ready   = "Ready"
	running = "Running"
)

func nodeState(obj any) string {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			return ready
		}
	}
	return "NotReady"
}

// podState is Running, or what a pod that is not Running waits for, in
// kubectl's words, for the progress lines and timeout errors.
func podState(obj any) string {
	p, ok := obj.(*corev1.Pod)
	switch {
	case !ok:
		return ""
	case p.DeletionTimestamp != nil:
		return "Terminating"
	case p.Status.Phase == corev1.PodRunning:
		return running
	case p.Spec.NodeName == "":
		return "unscheduled"
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Waiting != nil && c.State.Waiting.Reason != "" {
			return string(p.Status.Phase) + "/" + c.State.Waiting.Reason
		}
	}
	if p.Status.Phase == "" {
		return "no status"
	}
	return string(p.Status.Phase)
}

// handler keeps set up to date with state(object) for every object.
func handler(w *watcher, set map[string]string, state func(any) string) cache.ResourceEventHandlerFuncs {
	put := func(obj any) {
		key, err := cache.MetaNamespaceKeyFunc(obj)
		if err != nil {
			return
		}
		w.mu.Lock()
		set[key] = state(obj)
		w.mu.Unlock()
		w.poke()
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    put,
		UpdateFunc: func(_, obj any) { put(obj) },
		DeleteFunc: func(obj any) {
			key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			if err != nil {
				return
			}
			w.mu.Lock()
			delete(set, key)
			w.mu.Unlock()
			w.poke()
		},
	}
}

func (w *watcher) poke() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// counts are the current numbers: nodes, Ready nodes, pods, Running pods,
// and the pods that are not Running by state.
type counts struct {
	nodes, ready, pods, running int
	waiting                     map[string]int
}

func (w *watcher) counts() counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := counts{nodes: len(w.nodes), pods: len(w.pods), waiting: map[string]int{}}
	for _, s := range w.nodes {
		if s == ready {
			c.ready++
		}
	}
	for _, s := range w.pods {
		if s == running {
			c.running++
		} else {
			c.waiting[s]++
		}
	}
	return c
}

// waitFor waits until done holds for the counts and returns when that was
// seen. It prints the counts to progress when they changed in the last
// 10 s, else once a minute; after timeout it gives up with an error naming
// what was waited for and how far it got.
func (w *watcher) waitFor(ctx context.Context, progress io.Writer, timeout time.Duration, what string, done func(counts) bool) (time.Time, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	var said string
	var saidAt time.Time
	for {
		c := w.counts()
		if done(c) {
			return time.Now(), nil
		}
		select {
		case <-w.changed:
		case <-tick.C:
			if now := c.String(); now != said || time.Since(saidAt) >= time.Minute {
				fmt.Fprintf(progress, "   ... waiting for %s: %s\n", what, now)
				said, saidAt = now, time.Now()
			}
		case <-deadline.C:
			return time.Time{}, fmt.Errorf("%s did not happen within %s (%s); raise TIMEOUT, or look at the logs with KEEP=1", what, timeout, c)
		case <-ctx.Done():
			return time.Time{}, context.Cause(ctx)
		}
	}
}

func (c counts) String() string {
	s := fmt.Sprintf("%d/%d nodes Ready, %d/%d pods Running", c.ready, c.nodes, c.running, c.pods)
	if len(c.waiting) == 0 {
		return s
	}
	var parts []string
	for _, state := range slices.Sorted(maps.Keys(c.waiting)) {
		parts = append(parts, fmt.Sprintf("%d %s", c.waiting[state], state))
	}
	return s + " (" + strings.Join(parts, ", ") + ")"
}

// addonsSettled reports whether every kube-system DaemonSet and Deployment
// has all its pods updated and ready: until then the controllers are still
// creating add-on pods for new nodes and the cluster is not idle.
func addonsSettled(ctx context.Context, client kubernetes.Interface) (bool, string, error) {
	dss, err := client.AppsV1().DaemonSets("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, "", fmt.Errorf("listing kube-system DaemonSets: %w", err)
	}
	for _, ds := range dss.Items {
		s := ds.Status
		if s.ObservedGeneration < ds.Generation || s.NumberReady != s.DesiredNumberScheduled || s.UpdatedNumberScheduled != s.DesiredNumberScheduled {
			return false, fmt.Sprintf("DaemonSet %s: %d/%d ready", ds.Name, s.NumberReady, s.DesiredNumberScheduled), nil
		}
	}
	deps, err := client.AppsV1().Deployments("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, "", fmt.Errorf("listing kube-system Deployments: %w", err)
	}
	for _, d := range deps.Items {
		want := ptr.Deref(d.Spec.Replicas, 1)
		if d.Status.ObservedGeneration < d.Generation || d.Status.ReadyReplicas != want {
			return false, fmt.Sprintf("Deployment %s: %d/%d ready", d.Name, d.Status.ReadyReplicas, want), nil
		}
	}
	return true, "", nil
}

// waitAddons polls addonsSettled once a second.
func waitAddons(ctx context.Context, client kubernetes.Interface, progress io.Writer, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last := time.Now()
	for {
		ok, why, err := addonsSettled(ctx, client)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the kube-system add-ons did not settle within %s (%s); raise TIMEOUT", timeout, why)
		}
		if time.Since(last) >= 10*time.Second {
			fmt.Fprintf(progress, "   ... waiting for the add-ons: %s\n", why)
			last = time.Now()
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(time.Second):
		}
	}
}
