package kubeletenv

import (
	corev1 "k8s.io/api/core/v1"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"
)

// Volume kinds VolumeKind reports; the glue picks a backing by kind.
const (
	KindEmptyDir          = "emptyDir"           // node disk
	KindEmptyDirMemory    = "emptyDir-memory"    // tmpfs (medium Memory)
	KindEmptyDirHugePages = "emptyDir-hugepages" // hugetlbfs
	KindHostPath          = "hostPath"
	KindPVC               = "pvc"
	KindEphemeral         = "ephemeral" // generic ephemeral volume (a PVC per pod)
	KindConfigMap         = "configMap"
	KindSecret            = "secret"
	KindDownwardAPI       = "downwardAPI"
	KindProjected         = "projected"
	KindImage             = "image"
	KindCSI               = "csi" // inline CSI volume
	KindOther             = "other"
)

// VolumeKind names the kind of a pod volume.
func VolumeKind(vol corev1.Volume) string {
	switch s := vol.VolumeSource; {
	case s.EmptyDir != nil:
		switch {
		case s.EmptyDir.Medium == corev1.StorageMediumMemory:
			return KindEmptyDirMemory
		case v1helper.IsHugePageMedium(s.EmptyDir.Medium):
			return KindEmptyDirHugePages
		}
		return KindEmptyDir
	case s.HostPath != nil:
		return KindHostPath
	case s.PersistentVolumeClaim != nil:
		return KindPVC
	case s.Ephemeral != nil:
		return KindEphemeral
	case s.ConfigMap != nil:
		return KindConfigMap
	case s.Secret != nil:
		return KindSecret
	case s.DownwardAPI != nil:
		return KindDownwardAPI
	case s.Projected != nil:
		return KindProjected
	case s.Image != nil:
		return KindImage
	case s.CSI != nil:
		return KindCSI
	}
	return KindOther
}

// FromAPIObjects reports whether a volume kind is filled from API objects
// (ConfigMaps, Secrets, the pod itself, service account tokens): the
// kubelet writes it, always read-only, and can write it again.
func FromAPIObjects(kind string) bool {
	switch kind {
	case KindConfigMap, KindSecret, KindDownwardAPI, KindProjected:
		return true
	}
	return false
}
