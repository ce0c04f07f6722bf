package node

// The annotations of pkg/apis/annotations that steer the pod workers
// (internal/podworker), under the names the agent's callers use.

import "github.com/winkube/winkube/pkg/apis/annotations"

// Annotations that steer the emulated processes of a pod (see
// pkg/apis/annotations). Without AnnotationRunSeconds, containers of pods
// whose restartPolicy is not Always exit after the pod worker's
// defaultRunSeconds (internal/podworker).
const (
	AnnotationRunSeconds    = annotations.RunSeconds
	AnnotationExitCode      = annotations.ExitCode
	AnnotationIgnoreSIGTERM = annotations.IgnoreSIGTERM
	AnnotationSandboxImage  = annotations.SandboxImage
)

// AnnotationImageUsers lists, comma-separated, the Windows accounts an image
// adds to the base image's (annotations.ImageUsers).
const AnnotationImageUsers = annotations.ImageUsers

// AnnotationUnknownProgram picks what runs for a container whose program
// winkube cannot follow: "stand-in" (the default), "idle" or "exit CODE"
// (annotations.UnknownProgram).
const AnnotationUnknownProgram = annotations.UnknownProgram

// Annotations on a Node that say which storage software its emulated host
// has installed. A real kubelet learns this from the plugins on the host;
// the emulated host has none unless the node is annotated.
// (annotations.VolumeDrivers and annotations.CSIProxy say what each holds.)
const (
	AnnotationVolumeDrivers = annotations.VolumeDrivers
	AnnotationCSIProxy      = annotations.CSIProxy
)
