package kubeletapi

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

func runningPod(annotations map[string]string, containers ...corev1.Container) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: annotations}, Spec: corev1.PodSpec{Containers: containers}}
	started := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, c := range containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
		})
	}
	return p
}

func withRequests(name, cpu, mem string) corev1.Container {
	c := corev1.Container{Name: name}
	if cpu != "" {
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	}
	return c
}

// Usage is half the request, an idle figure without one, and an
// annotation shares a pod total by request; a limit caps it.
func TestPodUsage(t *testing.T) {
	limited := withRequests("limited", "100m", "64Mi")
	limited.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("150m")}
	cases := []struct {
		name      string
		pod       *corev1.Pod
		wantCPU   []uint64
		wantBytes []uint64
	}{
		{"half the request", runningPod(nil, withRequests("a", "200m", "100Mi")), []uint64{100_000_000}, []uint64{50 << 20}},
		{"idle without a request", runningPod(nil, withRequests("a", "", "")), []uint64{idleCPUNanoCores}, []uint64{idleMemoryBytes}},
		{"annotation shared by request", runningPod(map[string]string{annotations.UsageCPU: "900m", annotations.UsageMemory: "300Mi"},
			withRequests("a", "200m", "100Mi"), withRequests("b", "100m", "200Mi")),
			[]uint64{600_000_000, 300_000_000}, []uint64{100 << 20, 200 << 20}},
		{"annotation capped by the limit", runningPod(map[string]string{annotations.UsageCPU: "1"}, limited), []uint64{150_000_000}, []uint64{32 << 20}},
		{"unparsable annotation ignored", runningPod(map[string]string{annotations.UsageCPU: "lots"}, withRequests("a", "200m", "100Mi")), []uint64{100_000_000}, []uint64{50 << 20}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := podUsage(tc.pod)
			if len(got) != len(tc.wantCPU) {
				t.Fatalf("%d containers, want %d", len(got), len(tc.wantCPU))
			}
			for i, u := range got {
				if u.nanoCores != tc.wantCPU[i] || u.memory != tc.wantBytes[i] {
					t.Errorf("%s: %d nano-cores, %d bytes; want %d, %d", u.name, u.nanoCores, u.memory, tc.wantCPU[i], tc.wantBytes[i])
				}
			}
		})
	}
}

// CPU time accumulates at the usage rate from the container's start.
func TestCoreNanoSeconds(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	u := containerUsage{started: start, nanoCores: 250_000_000}
	if got := u.coreNanoSeconds(start.Add(4 * time.Second)); got != 1_000_000_000 {
		t.Errorf("4 s at 250m = %d core-ns, want 1e9", got)
	}
	if got := u.coreNanoSeconds(start.Add(-time.Second)); got != 0 {
		t.Errorf("before the start = %d, want 0", got)
	}
	// A container under a second old has used CPU already, as a real one
	// has to start (upstream's Windows Kubelet-Stats test fails on a zero).
	if got := u.coreNanoSeconds(start.Add(400 * time.Millisecond)); got != 100_000_000 {
		t.Errorf("0.4 s at 250m = %d core-ns, want 1e8", got)
	}
}
