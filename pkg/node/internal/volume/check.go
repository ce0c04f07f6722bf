// Package volume is the emulated kubelet's volume manager's verdict on a
// pod's volumes: which of the volumes its containers use cannot be
// processed (an unbound claim, no plugin), wait for an attachment nobody
// performs, or fail the plugin's mount on the node's OS, each with the
// kubelet's words (STO-1, STO-2, LIM-4, LIM-5, LIM-9); and the wait for
// them before a pod's sandbox starts, with its retries and events
// (wait.go), which the pod worker holds one of per pod.
package volume

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-helpers/storage/ephemeral"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/node/internal/csimount"
)

// Event reasons of the kubelet's volume manager.
const (
	ReasonFailedMount     = "FailedMount"
	ReasonFailedMapVolume = "FailedMapVolume"
)

// windowsKubeletDir is the kubelet's default --root-dir, /var/lib/kubelet,
// as filepath.Clean spells it on Windows.
const windowsKubeletDir = `\var\lib\kubelet`

// Checker looks claims, volumes and CSIDriver objects up through Client
// (the agent's).
type Checker struct {
	Client kubernetes.Interface
}

// Issue is why one of a pod's volumes is not mounted.
type Issue struct {
	Name string // the pod's name for the volume
	// Process is an error that keeps the volume from the mount step at all
	// (an unbound claim, no plugin for the volume type).
	Process string
	// Reason and Message are the event of a failed mount attempt.
	Reason, Message string
	// Attach: the volume waits for an attachment nobody performs; the
	// kubelet says nothing about it (the controller-manager does).
	Attach bool
	// Pending: a mount operation is under way (a CSI driver's call).
	Pending bool
}

// Issues checks every volume the pod's containers use on host: nil when
// they all mount.
func (c *Checker) Issues(ctx context.Context, pod *corev1.Pod, host Host) []Issue {
	mounts, devices := usedVolumes(pod)
	var out []Issue
	for _, vol := range pod.Spec.Volumes {
		block := devices[vol.Name]
		if !mounts[vol.Name] && !block {
			continue // the kubelet skips volumes no container uses
		}
		if is := c.volumeIssue(ctx, pod, vol, block, host); is != nil {
			out = append(out, *is)
		}
	}
	return out
}

// usedVolumes lists the volumes containers mount and the raw block volumes
// they map (volumeDevices).
func usedVolumes(pod *corev1.Pod) (mounts, devices map[string]bool) {
	mounts, devices = map[string]bool{}, map[string]bool{}
	add := func(vm []corev1.VolumeMount, vd []corev1.VolumeDevice) {
		for _, m := range vm {
			mounts[m.Name] = true
		}
		for _, d := range vd {
			devices[d.Name] = true
		}
	}
	for _, c := range pod.Spec.InitContainers {
		add(c.VolumeMounts, c.VolumeDevices)
	}
	for _, c := range pod.Spec.Containers {
		add(c.VolumeMounts, c.VolumeDevices)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		add(c.VolumeMounts, c.VolumeDevices)
	}
	return mounts, devices
}

// volumeIssue resolves a claim to its volume, as the kubelet's desired
// state of world populator does, then asks the host whether it mounts.
func (c *Checker) volumeIssue(ctx context.Context, pod *corev1.Pod, vol corev1.Volume, block bool, host Host) *Issue {
	claimName, readOnly := "", false
	switch {
	case vol.PersistentVolumeClaim != nil:
		claimName, readOnly = vol.PersistentVolumeClaim.ClaimName, vol.PersistentVolumeClaim.ReadOnly
	case vol.Ephemeral != nil:
		claimName = ephemeral.VolumeClaimName(pod, &vol)
	default:
		return c.hostIssue(ctx, pod, vol.Name, inlineSource(vol), block, host)
	}
	pv, err := c.claimedVolume(ctx, pod, claimName, vol.Ephemeral != nil)
	if err == nil {
		err = checkVolumeMode(vol.Name, pv, block)
	}
	if err != nil {
		return &Issue{Name: vol.Name, Process: err.Error()}
	}
	return c.hostIssue(ctx, pod, vol.Name, persistentSource(pv, readOnly), block, host)
}

// claimedVolume fetches a claim and its bound volume, with the kubelet's
// errors for each way that fails.
func (c *Checker) claimedVolume(ctx context.Context, pod *corev1.Pod, claimName string, isEphemeral bool) (*corev1.PersistentVolume, error) {
	ns := pod.Namespace
	wrap := func(err error) error { return fmt.Errorf("error processing PVC %s/%s: %v", ns, claimName, err) }
	core := c.Client.CoreV1()
	pvc, err := core.PersistentVolumeClaims(ns).Get(ctx, claimName, metav1.GetOptions{})
	switch {
	case err != nil:
		return nil, wrap(fmt.Errorf("failed to fetch PVC from API server: %v", err))
	case pvc.DeletionTimestamp != nil && !slices.Contains(pvc.Finalizers, "kubernetes.io/pvc-protection"):
		return nil, wrap(fmt.Errorf("PVC is being deleted"))
	case pvc.Status.Phase != corev1.ClaimBound:
		return nil, wrap(fmt.Errorf("PVC is not bound"))
	case pvc.Spec.VolumeName == "":
		return nil, wrap(fmt.Errorf("PVC has empty pvc.Spec.VolumeName"))
	}
	if isEphemeral {
		if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
			return nil, err
		}
	}
	pv, err := core.PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{})
	switch {
	case err != nil:
		return nil, wrap(fmt.Errorf("failed to fetch PV %s from API server: %v", pvc.Spec.VolumeName, err))
	case pv.Spec.ClaimRef == nil:
		return nil, wrap(fmt.Errorf("found PV object %s but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim", pv.Name))
	case pv.Spec.ClaimRef.UID != pvc.UID:
		return nil, wrap(fmt.Errorf("found PV object %s but its pv.Spec.ClaimRef.UID %s does not point to claim.UID %s", pv.Name, pv.Spec.ClaimRef.UID, pvc.UID))
	}
	return pv, nil
}

// checkVolumeMode: a Filesystem volume must be mounted, a Block volume
// mapped.
func checkVolumeMode(name string, pv *corev1.PersistentVolume, block bool) error {
	mode := corev1.PersistentVolumeFilesystem
	if pv.Spec.VolumeMode != nil {
		mode = *pv.Spec.VolumeMode
	}
	switch {
	case !block && mode != corev1.PersistentVolumeFilesystem:
		return fmt.Errorf("volume %s has volumeMode %s, but is specified in volumeMounts", name, mode)
	case block && mode != corev1.PersistentVolumeBlock:
		return fmt.Errorf("volume %s has volumeMode %s, but is specified in volumeDevices", name, mode)
	}
	return nil
}

// Host is the storage software of the emulated host.
type Host struct {
	Windows bool
	// Labels are the node's labels, for volume node affinity; nil if
	// unknown.
	Labels   map[string]string
	Drivers  map[string]bool
	CSIProxy bool
	// CSI is the node's CSI volume plugin, which calls the drivers
	// registered with the node's kubelet; nil: none is.
	CSI *csimount.Mounter
	// Due reports whether a new mount attempt of the pod's volume name is
	// due (its back-off has passed); nil: always.
	Due func(name string) bool
}

// HostOf is the storage software a node says its host has installed
// (annotations.VolumeDrivers, annotations.CSIProxy); a real kubelet learns
// this from the plugins on the host, the emulated host has none unless
// the node is annotated. node may be nil (not yet known).
func HostOf(node *corev1.Node, windows bool) Host {
	h := Host{Windows: windows, Drivers: map[string]bool{}}
	if node == nil {
		return h
	}
	h.Labels = node.Labels
	for _, d := range strings.Split(node.Annotations[annotations.VolumeDrivers], ",") {
		if d = strings.TrimSpace(d); d != "" {
			h.Drivers[d] = true
		}
	}
	h.CSIProxy = node.Annotations[annotations.CSIProxy] == "true"
	return h
}

// csiRegistered: a CSI driver's node plugin registers with the kubelet
// when it runs, and on Windows it runs only through csi-proxy (STO-1).
func (h Host) csiRegistered(driver string) bool {
	return h.Drivers[driver] && (!h.Windows || h.CSIProxy)
}
