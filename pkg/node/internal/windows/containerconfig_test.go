package windows

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

// rule: KLT-5, KLT-6
func TestWindowsContainerConfigVectors(t *testing.T) {
	cases := []struct {
		limit string
		cores int64
		want  int64
	}{{"1", 1, 10000}, {"94", 96, 9791}, {"1", 2, 5000}, {"2", 1, 10000}, {"1m", 100, 1}}
	for _, c := range cases {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c",
			Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c.limit), corev1.ResourceMemory: resource.MustParse("1Gi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m")},
			},
		}}}}
		got := ContainerConfigs(pod, c.cores)["c"]
		if got.CPUMaximum != c.want || got.MemoryLimitInBytes != 1<<30 {
			t.Errorf("limit %s on %d cores: %+v, want cpuMaximum %d and 1Gi", c.limit, c.cores, got, c.want)
		}
	}
	// Requests alone send nothing.
	reqOnly := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}}}
	if got := ContainerConfigs(reqOnly, 4)["c"]; got != (annotations.WindowsContainerConfig{}) {
		t.Errorf("requests only: %+v, want nothing sent", got)
	}
}

// rule: KLT-7
func TestRunAsUserNamePrecedence(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{
			RunAsUserName: ptr.To("ContainerUser"), GMSACredentialSpecName: ptr.To("webapp"),
		}},
		Containers: []corev1.Container{
			{Name: "own", SecurityContext: &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("ContainerAdministrator")}}},
			{Name: "inherits"},
		},
	}}
	got := ContainerConfigs(pod, 4)
	if got["own"].RunAsUserName != "ContainerAdministrator" || got["inherits"].RunAsUserName != "ContainerUser" {
		t.Errorf("runAsUserName: %+v", got)
	}
	if got["own"].GMSACredentialSpecName != "webapp" {
		t.Errorf("gMSA spec not inherited: %+v", got["own"])
	}
}
