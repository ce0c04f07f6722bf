package node

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/ephemeral"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

// Annotations on a Node that say which storage software its emulated host
// has installed. A real kubelet learns this from the plugins on the host;
// the emulated host has none unless the node is annotated.
// (annotations.VolumeDrivers and annotations.CSIProxy say what each holds.)
const (
	AnnotationVolumeDrivers = annotations.VolumeDrivers
	AnnotationCSIProxy      = annotations.CSIProxy
)

// The kubelet's volume manager timing (v1.36).
const (
	// A failed mount is retried after 500 ms, doubling up to 2m2s
	// (nestedpendingoperations' exponential back-off).
	mountRetryInitial = 500 * time.Millisecond
	mountRetryMax     = 2*time.Minute + 2*time.Second
	// A pod whose volumes cannot be processed is synced again after the
	// pod worker's back-off (workerBackOffPeriod).
	volumeSyncRetry = 10 * time.Second
)

// Event reasons of the kubelet's volume manager.
const (
	reasonFailedMount     = "FailedMount"
	reasonFailedMapVolume = "FailedMapVolume"
)

// windowsKubeletDir is the kubelet's default --root-dir, /var/lib/kubelet,
// as filepath.Clean spells it on Windows.
const windowsKubeletDir = `\var\lib\kubelet`

// volumeWait is the emulated volume manager's state for one pod: the
// kubelet starts a pod's sandbox only once every volume its containers use
// is mounted (SyncPod's WaitForAttachAndMount).
type volumeWait struct {
	mounted bool
	// syncAt is the next pod sync, which reports volumes that cannot be
	// processed at all.
	syncAt time.Time
	// retries holds each failing volume's next mount attempt.
	retries map[string]*mountRetry
}

type mountRetry struct {
	at    time.Time
	delay time.Duration
}

// volumeIssue is why one of a pod's volumes is not mounted.
type volumeIssue struct {
	name string // the pod's name for the volume
	// process is an error that keeps the volume from the mount step at all
	// (an unbound claim, no plugin for the volume type).
	process string
	// reason and message are the event of a failed mount attempt.
	reason, message string
	// attach: the volume waits for an attachment nobody performs; the
	// kubelet says nothing about it (the controller-manager does).
	attach bool
}

// volumesReady reports whether every volume the pod's containers use is
// mounted, emitting the kubelet's events for those that cannot be (STO-2).
// It does the work only when a retry is due, so the caller may call it at
// every wake-up.
func (w *podWorker) volumesReady(ctx context.Context, pod *corev1.Pod) bool {
	v := &w.volumes
	now := time.Now()
	if v.mounted || !v.due(now) {
		return v.mounted
	}
	issues := w.node.volumeIssues(ctx, pod)
	if len(issues) == 0 {
		v.mounted = true
		return true
	}
	w.reportMountFailures(pod, issues, now)
	if !now.Before(v.syncAt) {
		w.reportUnprocessed(pod, issues)
		v.syncAt = now.Add(volumeSyncRetry)
	}
	return false
}

// due reports whether the pod sync or a mount retry is due.
func (v *volumeWait) due(now time.Time) bool {
	if !now.Before(v.syncAt) {
		return true
	}
	for _, r := range v.retries {
		if !now.Before(r.at) {
			return true
		}
	}
	return false
}

// wake is when the next retry is due; zero once the volumes are mounted.
func (v *volumeWait) wake() time.Time {
	if v.mounted {
		return time.Time{}
	}
	next := v.syncAt
	for _, r := range v.retries {
		if r.at.Before(next) {
			next = r.at
		}
	}
	return next
}

// reportMountFailures emits one event per failing volume whose retry is
// due, and backs its next attempt off.
func (w *podWorker) reportMountFailures(pod *corev1.Pod, issues []volumeIssue, now time.Time) {
	v := &w.volumes
	failing := map[string]*mountRetry{}
	for _, is := range issues {
		if is.message == "" {
			continue
		}
		r := v.retries[is.name]
		if r == nil {
			r = &mountRetry{at: now}
		}
		failing[is.name] = r
		if now.Before(r.at) {
			continue
		}
		w.node.recorder.Event(pod, corev1.EventTypeWarning, is.reason, is.message)
		r.delay = min(max(2*r.delay, mountRetryInitial), mountRetryMax)
		r.at = now.Add(r.delay)
	}
	v.retries = failing
}

// reportUnprocessed emits the pod sync's event when some volumes could not
// be processed, in the kubelet's words (kubelet.go and volume_manager.go).
// Volumes that only fail to mount make the sync time out instead, and the
// kubelet reports no timeout event.
func (w *podWorker) reportUnprocessed(pod *corev1.Pod, issues []volumeIssue) {
	var unmounted, unattached, unprocessed, errs []string
	for _, is := range issues {
		unmounted = append(unmounted, is.name)
		if is.attach {
			unattached = append(unattached, is.name)
		}
		if is.process != "" {
			unprocessed = append(unprocessed, is.name)
			errs = append(errs, is.process)
		}
	}
	if len(errs) == 0 {
		return
	}
	for _, list := range [][]string{unmounted, unattached, unprocessed, errs} {
		slices.Sort(list)
	}
	w.node.recorder.Eventf(pod, corev1.EventTypeWarning, reasonFailedMount,
		"Unable to attach or mount volumes: unmounted volumes=%v, unattached volumes=%v, failed to process volumes=%v: %s",
		unmounted, unattached, unprocessed, strings.Join(slices.Compact(errs), "; "))
}

// volumeIssues checks every volume the pod's containers use.
func (n *emuNode) volumeIssues(ctx context.Context, pod *corev1.Pod) []volumeIssue {
	mounts, devices := usedVolumes(pod)
	host := n.storageHost()
	var out []volumeIssue
	for _, vol := range pod.Spec.Volumes {
		block := devices[vol.Name]
		if !mounts[vol.Name] && !block {
			continue // the kubelet skips volumes no container uses
		}
		if is := n.volumeIssue(ctx, pod, vol, block, host); is != nil {
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
func (n *emuNode) volumeIssue(ctx context.Context, pod *corev1.Pod, vol corev1.Volume, block bool, host storageHost) *volumeIssue {
	claimName, readOnly := "", false
	switch {
	case vol.PersistentVolumeClaim != nil:
		claimName, readOnly = vol.PersistentVolumeClaim.ClaimName, vol.PersistentVolumeClaim.ReadOnly
	case vol.Ephemeral != nil:
		claimName = ephemeral.VolumeClaimName(pod, &vol)
	default:
		return n.hostIssue(ctx, pod, vol.Name, inlineSource(vol), block, host)
	}
	pv, err := n.claimedVolume(ctx, pod, claimName, vol.Ephemeral != nil)
	if err == nil {
		err = checkVolumeMode(vol.Name, pv, block)
	}
	if err != nil {
		return &volumeIssue{name: vol.Name, process: err.Error()}
	}
	return n.hostIssue(ctx, pod, vol.Name, persistentSource(pv, readOnly), block, host)
}

// claimedVolume fetches a claim and its bound volume, with the kubelet's
// errors for each way that fails.
func (n *emuNode) claimedVolume(ctx context.Context, pod *corev1.Pod, claimName string, isEphemeral bool) (*corev1.PersistentVolume, error) {
	ns := pod.Namespace
	wrap := func(err error) error { return fmt.Errorf("error processing PVC %s/%s: %v", ns, claimName, err) }
	core := n.agent.client.CoreV1()
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

// storageHost is the storage software of the emulated host.
type storageHost struct {
	windows  bool
	labels   map[string]string // the node's labels, for volume node affinity; nil if unknown
	drivers  map[string]bool
	csiProxy bool
}

func (n *emuNode) storageHost() storageHost {
	h := storageHost{windows: n.spec.host.OS() == "windows", drivers: map[string]bool{}}
	node, err := n.agent.nodeLister.Get(n.spec.name)
	if err != nil {
		return h
	}
	h.labels = node.Labels
	for _, d := range strings.Split(node.Annotations[AnnotationVolumeDrivers], ",") {
		if d = strings.TrimSpace(d); d != "" {
			h.drivers[d] = true
		}
	}
	h.csiProxy = node.Annotations[AnnotationCSIProxy] == "true"
	return h
}

// csiRegistered: a CSI driver's node plugin registers with the kubelet
// when it runs, and on Windows it runs only through csi-proxy (STO-1).
func (h storageHost) csiRegistered(driver string) bool {
	return h.drivers[driver] && (!h.windows || h.csiProxy)
}
