package node

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/windows"
)

// AnnotationWindowsResources holds, per container, what the Windows runtime
// receives for the container (annotations.WindowsResources).
const AnnotationWindowsResources = annotations.WindowsResources

// WindowsContainerConfig is what the kubelet on Windows sends to the
// runtime for one container (annotations.WindowsContainerConfig).
type WindowsContainerConfig = annotations.WindowsContainerConfig

// WindowsResources reads the pod's AnnotationWindowsResources: the runtime
// settings per container name, empty when the pod has none (Linux nodes, or
// not yet written).
func WindowsResources(pod *corev1.Pod) map[string]WindowsContainerConfig {
	return annotations.DecodeWindowsResources(pod.Annotations)
}

// windowsContainerConfigs computes the runtime settings for every init and
// regular container of pod on a host with cpuCount logical processors.
func windowsContainerConfigs(pod *corev1.Pod, cpuCount int64) map[string]WindowsContainerConfig {
	out := map[string]WindowsContainerConfig{}
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

func windowsContainerConfig(c *corev1.Container, podOpts *corev1.WindowsSecurityContextOptions, cpuCount int64) WindowsContainerConfig {
	var cfg WindowsContainerConfig
	if cpu, ok := c.Resources.Limits[corev1.ResourceCPU]; ok && !cpu.IsZero() {
		cfg.CPUMaximum = windows.CPUMaximum(cpu.MilliValue(), cpuCount)
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

// windowsResourcesAnnotation renders the annotation value.
func windowsResourcesAnnotation(pod *corev1.Pod, cpuCount int64) (string, error) {
	b, err := json.Marshal(windowsContainerConfigs(pod, cpuCount))
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", AnnotationWindowsResources, err)
	}
	return string(b), nil
}
