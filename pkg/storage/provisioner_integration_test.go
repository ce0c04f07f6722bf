package storage

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// newClaim is a claim of the default class (no storageClassName: the API
// server's DefaultStorageClass admission fills it in) whose pod the
// scheduler has placed on node.
func newClaim(name, node string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{AnnotationSelectedNode: node}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("1Gi"),
			}},
		},
	}
}

func createClaim(t *testing.T, ns string, claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
	t.Helper()
	created, err := client.CoreV1().PersistentVolumeClaims(ns).Create(context.Background(), claim, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create claim %s: %v", claim.Name, err)
	}
	return created
}

// waitBound waits until the claim is Bound and returns it with its volume.
func waitBound(t *testing.T, ns, name string) (*corev1.PersistentVolumeClaim, *corev1.PersistentVolume) {
	t.Helper()
	var claim *corev1.PersistentVolumeClaim
	waitFor(t, 90*time.Second, "claim "+name+" Bound", func(ctx context.Context) (bool, error) {
		c, err := client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		claim = c
		return err == nil && c.Status.Phase == corev1.ClaimBound, nil
	})
	pv, err := client.CoreV1().PersistentVolumes().Get(context.Background(), claim.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get volume %s: %v", claim.Spec.VolumeName, err)
	}
	return claim, pv
}

func TestEnsureStorageClassIsIdempotent(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	for range 2 {
		if err := EnsureStorageClass(ctx, client); err != nil {
			t.Fatalf("EnsureStorageClass: %v", err)
		}
	}
	sc, err := client.StorageV1().StorageClasses().Get(ctx, "standard", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get class standard: %v", err)
	}
	if sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" {
		t.Errorf("class standard is not the default: annotations %v", sc.Annotations)
	}
	if sc.Provisioner != "winkube.io/local-path" {
		t.Errorf("provisioner = %q, want winkube.io/local-path", sc.Provisioner)
	}
	if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		t.Errorf("volumeBindingMode = %v, want WaitForFirstConsumer", sc.VolumeBindingMode)
	}
	if sc.ReclaimPolicy == nil || *sc.ReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		t.Errorf("reclaimPolicy = %v, want Delete", sc.ReclaimPolicy)
	}
}

// A claim placed on a node gets a bound volume pinned to that node, whatever
// the node's OS; deleting the claim deletes the volume.
// rule: STO-3
func TestProvisionBindAndDelete(t *testing.T) {
	needCluster(t)
	if err := EnsureStorageClass(context.Background(), client); err != nil {
		t.Fatal(err)
	}
	startProvisioner(t)
	for _, tc := range []struct{ node, os, dirPrefix string }{
		{"sto-win-1", "windows", `C:\local-path-provisioner\pvc-`},
		{"sto-linux-1", "linux", "/var/local-path-provisioner/pvc-"},
	} {
		t.Run(tc.os, func(t *testing.T) {
			newNode(t, tc.node, tc.os)
			ns := newNamespace(t)
			created := createClaim(t, ns, newClaim("data", tc.node))
			claim, pv := waitBound(t, ns, "data")

			wantName := "pvc-" + string(created.UID)
			if pv.Name != wantName {
				t.Errorf("volume name = %s, want %s", pv.Name, wantName)
			}
			wantPath := fmt.Sprintf("%s%s_%s_data", tc.dirPrefix, created.UID, ns)
			if pv.Spec.HostPath == nil || pv.Spec.HostPath.Path != wantPath {
				t.Errorf("hostPath = %+v, want path %s", pv.Spec.HostPath, wantPath)
			}
			checkPinnedTo(t, pv, tc.node)
			if got := pv.Spec.Capacity[corev1.ResourceStorage]; got.String() != "1Gi" {
				t.Errorf("capacity = %s, want the claim's request 1Gi", got.String())
			}
			if pv.Annotations["pv.kubernetes.io/provisioned-by"] != "winkube.io/local-path" {
				t.Errorf("provisioned-by = %q", pv.Annotations["pv.kubernetes.io/provisioned-by"])
			}
			if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != claim.UID {
				t.Errorf("claimRef = %+v, want the claim %s", pv.Spec.ClaimRef, claim.UID)
			}
			// The controller-manager announces the hand-over; the
			// provisioner reports its work in the library's words.
			waitEvent(t, ns, "data", "ExternalProvisioning", "external provisioner 'winkube.io/local-path'")
			waitEvent(t, ns, "data", "Provisioning", fmt.Sprintf("External provisioner is provisioning volume for claim %q", ns+"/data"))
			waitEvent(t, ns, "data", "ProvisioningSucceeded", "Successfully provisioned volume "+wantName)

			if err := client.CoreV1().PersistentVolumeClaims(ns).Delete(context.Background(), "data", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete claim: %v", err)
			}
			waitFor(t, 90*time.Second, "volume "+pv.Name+" deleted", func(ctx context.Context) (bool, error) {
				_, err := client.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
				return apierrors.IsNotFound(err), nil
			})
		})
	}
}

func checkPinnedTo(t *testing.T, pv *corev1.PersistentVolume, node string) {
	t.Helper()
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil || len(na.Required.NodeSelectorTerms) != 1 {
		t.Fatalf("nodeAffinity = %+v, want one required term", na)
	}
	exprs := na.Required.NodeSelectorTerms[0].MatchExpressions
	if len(exprs) != 1 || exprs[0].Key != "kubernetes.io/hostname" || exprs[0].Operator != corev1.NodeSelectorOpIn ||
		len(exprs[0].Values) != 1 || exprs[0].Values[0] != node {
		t.Errorf("node affinity = %+v, want kubernetes.io/hostname In [%s]", exprs, node)
	}
}

// A claim handed over while no provisioner runs is provisioned once one
// starts: the provisioner keeps no state of its own.
func TestProvisionAfterRestart(t *testing.T) {
	needCluster(t)
	if err := EnsureStorageClass(context.Background(), client); err != nil {
		t.Fatal(err)
	}
	newNode(t, "sto-restart-1", "windows")
	ns := newNamespace(t)
	createClaim(t, ns, newClaim("late", "sto-restart-1"))
	waitEvent(t, ns, "late", "ExternalProvisioning", "winkube.io/local-path")
	startProvisioner(t)
	_, pv := waitBound(t, ns, "late")
	checkPinnedTo(t, pv, "sto-restart-1")
}

// Raw block claims are refused, as a provisioner without block support
// refuses them, and stay Pending.
func TestBlockClaimRefused(t *testing.T) {
	needCluster(t)
	if err := EnsureStorageClass(context.Background(), client); err != nil {
		t.Fatal(err)
	}
	startProvisioner(t)
	newNode(t, "sto-block-1", "linux")
	ns := newNamespace(t)
	claim := newClaim("raw", "sto-block-1")
	claim.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
	createClaim(t, ns, claim)
	waitEvent(t, ns, "raw", "ProvisioningFailed", "winkube.io/local-path does not support block volume provisioning")
	got, err := client.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "raw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != corev1.ClaimPending {
		t.Errorf("phase = %s, want Pending", got.Status.Phase)
	}
}
