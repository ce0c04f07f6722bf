package storage

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/windows"
)

// Where volumes live on a node, as kind's local-path-provisioner lays them
// out: one directory per volume under a base directory per node OS.
const (
	linuxBaseDir   = "/var/local-path-provisioner"
	windowsBaseDir = `C:\local-path-provisioner`
)

// VolumeName is the name of the volume provisioned for a claim: "pvc-" and
// the claim's UID, as every external provisioner names it. The name being
// fixed is what makes provisioning safe to repeat after a restart.
func VolumeName(claim *corev1.PersistentVolumeClaim) string {
	return "pvc-" + string(claim.UID)
}

// VolumePath is the directory of a volume on a node whose OS is nodeOS
// (windows.HostOf): <base>/<volume>_<namespace>_<claim>.
func VolumePath(nodeOS, volume, namespace, claim string) string {
	folder := volume + "_" + namespace + "_" + claim
	if nodeOS == "windows" {
		return windowsBaseDir + `\` + folder
	}
	return linuxBaseDir + "/" + folder
}

// checkClaim says why a claim cannot get a node-local directory volume.
func checkClaim(claim *corev1.PersistentVolumeClaim) error {
	if claim.Spec.VolumeMode != nil && *claim.Spec.VolumeMode == corev1.PersistentVolumeBlock {
		// The provisioner library's wording for a provisioner without block support.
		return fmt.Errorf("%s does not support block volume provisioning", ProvisionerName)
	}
	if claim.Spec.Selector != nil {
		return errors.New("claim.Spec.Selector is not supported")
	}
	for _, m := range claim.Spec.AccessModes {
		if m != corev1.ReadWriteOnce && m != corev1.ReadWriteOncePod {
			return fmt.Errorf("%s only supports the ReadWriteOnce and ReadWriteOncePod access modes: a node-local directory cannot be shared between nodes (claim asks for %s)", ProvisionerName, m)
		}
	}
	return nil
}

// newVolume builds the volume for a claim on node: a hostPath directory
// (created on first mount) that only that node can reach, pre-bound to the
// claim so the PV controller completes the binding.
func newVolume(claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass, node *corev1.Node) *corev1.PersistentVolume {
	name := VolumeName(claim)
	hostname := node.Labels[corev1.LabelHostname]
	if hostname == "" {
		hostname = node.Name
	}
	reclaim := corev1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{AnnotationProvisionedBy: class.Provisioner},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{
				corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage],
			},
			AccessModes:                   claim.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              class.Name,
			MountOptions:                  class.MountOptions,
			VolumeMode:                    ptr.To(corev1.PersistentVolumeFilesystem),
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: VolumePath(windows.HostOf(node).OS, name, claim.Namespace, claim.Name),
				Type: ptr.To(corev1.HostPathDirectoryOrCreate),
			}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{hostname},
				}}}},
			}},
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: claim.Namespace, Name: claim.Name,
				UID: claim.UID, ResourceVersion: claim.ResourceVersion,
			},
		},
	}
}

// wantsVolume reports whether the claim waits for this provisioner: the PV
// controller has handed it over (storage-provisioner annotation), it is
// unbound, and a WaitForFirstConsumer claim has its node.
func wantsVolume(claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass) bool {
	if claim.Spec.VolumeName != "" || claim.DeletionTimestamp != nil || class.Provisioner != ProvisionerName {
		return false
	}
	handed := claim.Annotations[annotationStorageProvisioner]
	if handed == "" {
		handed = claim.Annotations[annotationBetaStorageProvisioner]
	}
	if handed != ProvisionerName {
		return false
	}
	wffc := class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	return !wffc || claim.Annotations[AnnotationSelectedNode] != ""
}

// releasedVolume reports whether a volume is ours to delete: provisioned
// here, released by its claim, and with the Delete reclaim policy.
func releasedVolume(pv *corev1.PersistentVolume) bool {
	return pv.Annotations[AnnotationProvisionedBy] == ProvisionerName &&
		pv.DeletionTimestamp == nil &&
		pv.Status.Phase == corev1.VolumeReleased &&
		pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimDelete
}
