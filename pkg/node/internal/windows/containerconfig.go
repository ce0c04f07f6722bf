package windows

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// ContainerConfigs computes the runtime settings for every init and
// regular container of pod on a host with cpuCount logical processors.
func ContainerConfigs(pod *corev1.Pod, cpuCount int64) map[string]annotations.WindowsContainerConfig {
	out := map[string]annotations.WindowsContainerConfig{}
	var podOpts *corev1.WindowsSecurityContextOptions
	if pod.Spec.SecurityContext != nil {
		podOpts = pod.Spec.SecurityContext.WindowsOptions
	}
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			out[list[i].Name] = windowsContainerConfig(&list[i], podOpts, cpuCount)
		}
	}
	return out
}

func windowsContainerConfig(c *corev1.Container, podOpts *corev1.WindowsSecurityContextOptions, cpuCount int64) annotations.WindowsContainerConfig {
	var cfg annotations.WindowsContainerConfig
	if cpu, ok := c.Resources.Limits[corev1.ResourceCPU]; ok && !cpu.IsZero() {
		cfg.CPUMaximum = kubelet.CPUMaximum(cpu.MilliValue(), cpuCount)
	}
	if mem, ok := c.Resources.Limits[corev1.ResourceMemory]; ok && !mem.IsZero() {
		cfg.MemoryLimitInBytes = mem.Value()
	}
	var ctrOpts *corev1.WindowsSecurityContextOptions
	if c.SecurityContext != nil {
		ctrOpts = c.SecurityContext.WindowsOptions
	}
	cfg.RunAsUserName = firstSet(ctrOpts, podOpts, func(o *corev1.WindowsSecurityContextOptions) *string { return o.RunAsUserName })
	cfg.GMSACredentialSpecName = firstSet(ctrOpts, podOpts, func(o *corev1.WindowsSecurityContextOptions) *string { return o.GMSACredentialSpecName })
	return cfg
}

// firstSet returns the container's value when set, else the pod's.
func firstSet(ctr, pod *corev1.WindowsSecurityContextOptions, get func(*corev1.WindowsSecurityContextOptions) *string) string {
	for _, o := range []*corev1.WindowsSecurityContextOptions{ctr, pod} {
		if o != nil && get(o) != nil {
			return *get(o)
		}
	}
	return ""
}

// ResourcesAnnotation renders the value of annotations.WindowsResources:
// what the Windows runtime receives for each container.
func ResourcesAnnotation(pod *corev1.Pod, cpuCount int64) (string, error) {
	b, err := json.Marshal(ContainerConfigs(pod, cpuCount))
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", annotations.WindowsResources, err)
	}
	return string(b), nil
}
