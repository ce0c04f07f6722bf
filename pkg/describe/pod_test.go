package describe

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/apis/annotations"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The container block shows limits and requests as the user wrote them,
// and beside them what the Windows runtime received: limits only.
func TestPrintContainers(t *testing.T) {
	mem := resource.MustParse("512Mi")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
			annotations.WindowsResources: `{"web":{"cpuMaximum":1250,"memoryLimitInBytes":536870912,"runAsUserName":"ContainerUser"},"init":{}}`,
		}},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "nanoserver"}},
			Containers: []corev1.Container{{Name: "web", Image: "servercore", Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: mem},
				Requests: corev1.ResourceList{corev1.ResourceMemory: mem},
			}}},
		},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "web",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerError"}}}}},
	}
	var out strings.Builder
	printContainers(&out, pod)
	// rule: KLT-5, KLT-6, KLT-7
	for _, want := range []string{
		"Windows runtime:  CpuMaximum=unset MemoryLimitInBytes=unset (requests are not sent)",
		"State:            Waiting: CreateContainerError",
		"Limits:           cpu=500m memory=512Mi",
		"Windows runtime:  CpuMaximum=1250 MemoryLimitInBytes=536870912 RunAsUserName=ContainerUser (requests are not sent)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
