package windows

import (
	"fmt"
	"slices"
	"strings"
)

// Container runtimes named by the runtime-dependent rules (KLT-10).
const (
	RuntimeContainerd = "containerd"
	RuntimeDocker     = "docker"
)

// DockerShutdownWait is how long Docker on Windows waits after sending
// CTRL_SHUTDOWN_EVENT before it kills the container (LIM-14). The value is the
// registry default inside the image (WaitToKillServiceTimeout), not something
// the pod can change.
const DockerShutdownWait int64 = 5

// GracePeriod implements rule LIM-14: the seconds a container really gets to
// stop when the pod asks for `requested`. containerd honours the full period;
// Docker kills after at most 5 seconds. Negative requests count as zero.
func GracePeriod(runtime string, requested int64) int64 {
	if requested < 0 {
		requested = 0
	}
	if IsDocker(runtime) && requested > DockerShutdownWait {
		return DockerShutdownWait
	}
	return requested
}

// IsDocker reports whether a runtime name or version string
// ("docker", "docker://19.3.14") is Docker (dockershim, Docker EE or Mirantis).
func IsDocker(runtime string) bool {
	r := strings.ToLower(strings.TrimSpace(runtime))
	return r == RuntimeDocker || strings.HasPrefix(r, "docker://")
}

// Runtime handlers of the default configurations (KLT-11): containerd's
// process-isolation runtime on Windows and runc on Linux; the one name
// cri-dockerd accepts.
const (
	HandlerProcess = "runhcs-wcow-process"
	HandlerRunc    = "runc"
	HandlerDocker  = "docker"
)

// RuntimeHandlers are the RuntimeClass handlers a node's runtime accepts
// as configured by default (KLT-11); the empty handler, the default
// runtime, is always accepted.
func RuntimeHandlers(runtime, os string) []string {
	switch {
	case IsDocker(runtime):
		return []string{HandlerDocker}
	case os == "windows":
		return []string{HandlerProcess}
	default:
		return []string{HandlerRunc}
	}
}

// HandlerError is the runtime's refusal of a sandbox whose RuntimeClass
// handler it has no runtime for (KLT-11), as the kubelet's
// FailedCreatePodSandBox event carries it; "" when the handler is one
// the runtime has.
func HandlerError(runtime, os, handler string) string {
	if handler == "" || slices.Contains(RuntimeHandlers(runtime, os), handler) {
		return ""
	}
	if IsDocker(runtime) {
		return fmt.Sprintf("rpc error: code = Unknown desc = RuntimeHandler %q not supported", handler)
	}
	return fmt.Sprintf("rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for %q is configured", handler)
}
