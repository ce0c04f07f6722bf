package annotations

import (
	"encoding/json"
	"fmt"
	"strings"
)

// WindowsContainerConfig is what the kubelet on Windows sends to the runtime
// for one container. Requests are never sent: only limits become HCS
// settings.
type WindowsContainerConfig struct {
	// CPUMaximum is the HCS CPU cap in 1/10000ths of the host (KLT-5); zero
	// when the container has no CPU limit.
	CPUMaximum int64 `json:"cpuMaximum,omitempty"`
	// MemoryLimitInBytes is the job object memory limit (KLT-6); zero when
	// the container has no memory limit.
	MemoryLimitInBytes int64 `json:"memoryLimitInBytes,omitempty"`
	// RunAsUserName is the effective user: the container's value overrides
	// the pod's (KLT-7).
	RunAsUserName string `json:"runAsUserName,omitempty"`
	// GMSACredentialSpecName is the effective gMSA credential spec name,
	// resolved the same way (KLT-7).
	GMSACredentialSpecName string `json:"gmsaCredentialSpecName,omitempty"`
}

// String shows the settings as HCS names them; requests never reach the
// runtime, and the text says so.
func (cfg WindowsContainerConfig) String() string {
	parts := []string{"CpuMaximum=" + unset(cfg.CPUMaximum), "MemoryLimitInBytes=" + unset(cfg.MemoryLimitInBytes)}
	if cfg.RunAsUserName != "" {
		parts = append(parts, "RunAsUserName="+cfg.RunAsUserName)
	}
	if cfg.GMSACredentialSpecName != "" {
		parts = append(parts, "GMSACredentialSpec="+cfg.GMSACredentialSpecName)
	}
	return strings.Join(parts, " ") + " (requests are not sent)"
}

func unset(v int64) string {
	if v == 0 {
		return "unset"
	}
	return fmt.Sprint(v)
}

// DecodeWindowsResources reads the WindowsResources annotation of a pod's
// annotations: the runtime settings per container name, empty when the
// pod has none (Linux nodes, or not yet written).
func DecodeWindowsResources(annotations map[string]string) map[string]WindowsContainerConfig {
	out := map[string]WindowsContainerConfig{}
	if v, ok := annotations[WindowsResources]; ok {
		_ = json.Unmarshal([]byte(v), &out)
	}
	return out
}
