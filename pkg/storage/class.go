package storage

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Names the cluster sees.
const (
	// ClassName is the default StorageClass, named as kind names its own.
	ClassName = "standard"
	// ProvisionerName is the provisioner field of the class and the value
	// of pv.kubernetes.io/provisioned-by on the volumes it creates.
	ProvisionerName = "winkube.io/local-path"
)

// Well-known annotations (k8s.io/api and the PV controller's names).
const (
	// AnnotationSelectedNode is written on a claim by the scheduler when it
	// has picked the node of a WaitForFirstConsumer claim's pod.
	AnnotationSelectedNode = "volume.kubernetes.io/selected-node"
	// AnnotationProvisionedBy names the provisioner on a dynamic volume.
	AnnotationProvisionedBy = "pv.kubernetes.io/provisioned-by"

	annotationIsDefaultClass = "storageclass.kubernetes.io/is-default-class"
	// The PV controller writes these on a claim it hands to an external
	// provisioner; the beta key is still written next to the GA one.
	annotationStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	annotationBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
)

// DefaultStorageClass is the class EnsureStorageClass creates: the cluster
// default, WaitForFirstConsumer, volumes deleted with their claims.
func DefaultStorageClass() *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        ClassName,
			Annotations: map[string]string{annotationIsDefaultClass: "true"},
		},
		Provisioner:       ProvisionerName,
		ReclaimPolicy:     ptr.To(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
	}
}

// EnsureStorageClass creates the default class unless a class of that name
// exists. An existing class is left as it is: its provisioner and binding
// mode are immutable, and a user who made their own "standard" meant it.
func EnsureStorageClass(ctx context.Context, client kubernetes.Interface) error {
	if client == nil {
		return errors.New("ensure storage class: client is nil")
	}
	classes := client.StorageV1().StorageClasses()
	_, err := classes.Create(ctx, DefaultStorageClass(), metav1.CreateOptions{})
	if err == nil || apierrors.IsAlreadyExists(err) {
		return nil
	}
	return fmt.Errorf("create storage class %q: %w", ClassName, err)
}
