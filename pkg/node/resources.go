package node

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
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
