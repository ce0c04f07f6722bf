package node

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/storage"
)

// withVolume adds a volume to a pod and mounts it in its container.
func withVolume(pod *corev1.Pod, vol corev1.Volume) *corev1.Pod {
	pod.Spec.Volumes = append(pod.Spec.Volumes, vol)
	c := &pod.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: vol.Name, MountPath: "/mnt/" + vol.Name})
	return pod
}

var nfsShare = corev1.Volume{Name: "share", VolumeSource: corev1.VolumeSource{
	NFS: &corev1.NFSVolumeSource{Server: "nfs.example.com", Path: "/exports"},
}}

// waitCreating asserts the pod stays where the kubelet leaves it when its
// volumes do not mount: Pending, the container waiting in
// ContainerCreating, no sandbox.
func waitCreating(t *testing.T, ns, name string) {
	t.Helper()
	p := waitPod(t, ns, name, 30*time.Second, "ContainerCreating", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == "ContainerCreating"
	})
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase = %s, want Pending", p.Status.Phase)
	}
	if hasCondition(p, corev1.PodReadyToStartContainers, corev1.ConditionTrue) {
		t.Error("PodReadyToStartContainers is True: the sandbox must wait for the volumes")
	}
}

// waitRepeated waits until the event has been seen at least twice: the
// kubelet keeps retrying the mount.
func waitRepeated(t *testing.T, ns, name, reason, substr string) {
	t.Helper()
	waitFor(t, 30*time.Second, reason+" repeated", func(context.Context) (bool, error) {
		return eventCount(t, ns, name, reason, substr) >= 2, nil
	})
}

// eventCount is how often matching events about the pod were recorded.
func eventCount(t *testing.T, ns, name, reason, substr string) int32 {
	t.Helper()
	var n int32
	for _, e := range podEvents(t, ns, name) {
		if e.Reason == reason && strings.Contains(e.Message, substr) {
			n += max(e.Count, 1)
		}
	}
	return n
}

// An NFS volume fails at mount time on Windows, in mount-utils' words, and
// the pod stays ContainerCreating while the kubelet retries
// (k8s.io/kubernetes pkg/volume/nfs, k8s.io/mount-utils mount_windows.go).
// rule: STO-2, LIM-9
func TestNFSVolumeFailsToMountOnWindows(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := createPod(t, ns, withVolume(simplePod("nfs", "win2019-1", iis2019), nfsShare))
	want := fmt.Sprintf(`MountVolume.SetUp failed for volume "share" : mount options("") should have at least 2 options, `+
		`current number:0, source:"nfs.example.com:/exports", target:"c:\\var\\lib\\kubelet\\pods\\%s\\volumes\\kubernetes.io~nfs\\share"`, pod.UID)
	e := waitEvent(t, ns, "nfs", "FailedMount", want, 30*time.Second)
	if e.Message != want || e.Type != corev1.EventTypeWarning || e.Source.Component != "kubelet" {
		t.Errorf("event = %s %s from %s: %q\nwant Warning FailedMount from kubelet: %q", e.Type, e.Reason, e.Source.Component, e.Message, want)
	}
	waitCreating(t, ns, "nfs")
	waitRepeated(t, ns, "nfs", "FailedMount", "MountVolume.SetUp failed")
	for _, e := range podEvents(t, ns, "nfs") {
		if e.Reason == "Pulling" || e.Reason == "Started" {
			t.Errorf("unexpected %s event before the volumes mounted: %s", e.Reason, e.Message)
		}
	}
}

// rule: LIM-9
func TestNFSVolumeMountsOnLinux(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	createPod(t, ns, withVolume(simplePod("nfs", "linux-1", "nginx:1.27"), nfsShare))
	waitPod(t, ns, "nfs", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	for _, e := range podEvents(t, ns, "nfs") {
		if e.Reason == "FailedMount" {
			t.Errorf("Linux node failed to mount NFS: %s", e.Message)
		}
	}
}

// emptyDir medium Memory is no RAM disk on Windows, but nothing refuses it:
// mount-utils makes a plain directory for "tmpfs" and the pod runs.
// rule: LIM-4
func TestMemoryEmptyDirRunsOnWindows(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	mem := corev1.Volume{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}
	createPod(t, ns, withVolume(simplePod("mem", "win2019-1", iis2019), mem))
	waitPod(t, ns, "mem", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}

// A claim that is not bound keeps the pod's volumes from being processed:
// the pod sync reports it in kubelet.go's and volume_manager.go's words.
// rule: STO-2
func TestUnboundClaimBlocksPod(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr.To(""), // static binding only: nothing will bind it
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := client.CoreV1().PersistentVolumeClaims(ns).Create(context.Background(), claim, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create claim: %v", err)
	}
	vol := corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
	}}
	createPod(t, ns, withVolume(simplePod("db", "win2019-1", iis2019), vol))
	want := fmt.Sprintf("Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], "+
		"failed to process volumes=[data]: error processing PVC %s/data: PVC is not bound", ns)
	waitEvent(t, ns, "db", "FailedMount", want, 30*time.Second)
	waitCreating(t, ns, "db")
}

// An inline CSI volume needs the driver's node plugin, which on Windows runs
// only with csi-proxy: without it the mount fails; once the node has both
// (and the CSIDriver allows inline volumes) the retried mount succeeds.
// rule: STO-1, STO-2
func TestInlineCSIVolumeNeedsCSIProxyOnWindows(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const driver = "smb.csi.k8s.io"
	smb := corev1.Volume{Name: "smb", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: driver}}}
	createPod(t, ns, withVolume(simplePod("smb", "win2022-1", servercore2022), smb))
	want := `MountVolume.SetUp failed for volume "smb" : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: ` +
		"driver name smb.csi.k8s.io not found in the list of registered CSI drivers"
	waitEvent(t, ns, "smb", "FailedMount", want, 30*time.Second)
	waitCreating(t, ns, "smb")

	// The driver alone does not register on Windows: the retries go on
	// failing in the same words.
	annotateNode(t, "win2022-1", map[string]string{AnnotationVolumeDrivers: driver})
	createCSIDriver(t, driver)
	before := eventCount(t, ns, "smb", "FailedMount", want)
	waitFor(t, time.Minute, "two more failed mounts", func(context.Context) (bool, error) {
		return eventCount(t, ns, "smb", "FailedMount", want) >= before+2, nil
	})
	waitCreating(t, ns, "smb")
	// ...csi-proxy lets it run.
	annotateNode(t, "win2022-1", map[string]string{AnnotationCSIProxy: "true"})
	waitPod(t, ns, "smb", 4*time.Minute, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}

// annotateNode sets annotations on a node and removes them after the test.
func annotateNode(t *testing.T, node string, ann map[string]string) {
	t.Helper()
	patch := func(value map[string]any) {
		b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": value}})
		if _, err := client.CoreV1().Nodes().Patch(context.Background(), node, types.MergePatchType, b, metav1.PatchOptions{}); err != nil {
			t.Fatalf("annotate node %s: %v", node, err)
		}
	}
	set, unset := map[string]any{}, map[string]any{}
	for k, v := range ann {
		set[k], unset[k] = v, nil
	}
	patch(set)
	t.Cleanup(func() { patch(unset) })
}

func createCSIDriver(t *testing.T, name string) {
	t.Helper()
	d := &storagev1.CSIDriver{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: storagev1.CSIDriverSpec{
			AttachRequired:       ptr.To(false),
			VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral},
		},
	}
	if _, err := client.StorageV1().CSIDrivers().Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CSIDriver %s: %v", name, err)
	}
	t.Cleanup(func() { _ = client.StorageV1().CSIDrivers().Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// useDefaultStorage gives the test cluster what `winkube up` gives a
// cluster: the default class and its provisioner.
func useDefaultStorage(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := storage.EnsureStorageClass(ctx, client); err != nil {
		t.Fatal(err)
	}
	p, err := storage.Start(ctx, client, storage.Options{})
	if err != nil {
		t.Fatalf("start provisioner: %v", err)
	}
	t.Cleanup(p.Close)
}

// A StatefulSet's volumeClaimTemplate on a Windows node: the scheduler
// places the pod, the provisioner creates a volume on that node, the PV
// controller binds it, and the pod runs. Deleting the claim deletes the
// volume.
// rule: STO-3
func TestStatefulSetClaimOnWindows(t *testing.T) {
	needCluster(t)
	useDefaultStorage(t)
	ns := newNamespace(t)
	labels := map[string]string{"app": "web"}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.StatefulSetSpec{
			ServiceName: "web",
			Replicas:    ptr.To[int32](1),
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.17763"},
					Tolerations:  []corev1.Toleration{windowsToleration},
					Containers: []corev1.Container{{
						Name: "iis", Image: iis2019,
						VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: `C:\data`}},
					}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
		},
	}
	ctx := context.Background()
	if _, err := client.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create statefulset: %v", err)
	}
	pod := waitPod(t, ns, "web-0", 3*time.Minute, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })

	claim, err := client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data-web-0", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get claim: %v", err)
	}
	if claim.Status.Phase != corev1.ClaimBound || claim.Annotations[storage.AnnotationSelectedNode] != pod.Spec.NodeName {
		t.Errorf("claim is %s, selected node %q; want Bound on the pod's node %s", claim.Status.Phase, claim.Annotations[storage.AnnotationSelectedNode], pod.Spec.NodeName)
	}
	pv, err := client.CoreV1().PersistentVolumes().Get(ctx, claim.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get volume: %v", err)
	}
	wantPath := fmt.Sprintf(`C:\local-path-provisioner\pvc-%s_%s_data-web-0`, claim.UID, ns)
	if pv.Spec.HostPath == nil || pv.Spec.HostPath.Path != wantPath {
		t.Errorf("hostPath = %+v, want %s", pv.Spec.HostPath, wantPath)
	}
	terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
	if got := terms[0].MatchExpressions[0].Values; len(got) != 1 || got[0] != pod.Spec.NodeName {
		t.Errorf("volume pinned to %v, want [%s]", got, pod.Spec.NodeName)
	}

	// Scale to zero and delete the claim: the volume goes with it.
	if err := client.AppsV1().StatefulSets(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete statefulset: %v", err)
	}
	if err := client.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, "data-web-0", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete claim: %v", err)
	}
	waitFor(t, 2*time.Minute, "volume "+pv.Name+" deleted", func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// bindStatic creates a claim and a volume pre-bound to each other, with no
// class, and waits until the PV controller has bound them.
func bindStatic(t *testing.T, ns, claimName string, pv *corev1.PersistentVolume) {
	t.Helper()
	ctx := context.Background()
	pv.Spec.StorageClassName = ""
	pv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	pv.Spec.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: ns, Name: claimName}
	if _, err := client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create volume %s: %v", pv.Name, err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().PersistentVolumes().Delete(context.Background(), pv.Name, metav1.DeleteOptions{})
	})
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claimName},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr.To(""),
			VolumeName:       pv.Name,
			VolumeMode:       pv.Spec.VolumeMode,
			AccessModes:      pv.Spec.AccessModes,
			Resources:        corev1.VolumeResourceRequirements{Requests: pv.Spec.Capacity},
		},
	}
	if _, err := client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create claim %s: %v", claimName, err)
	}
	waitFor(t, time.Minute, "claim "+claimName+" Bound", func(ctx context.Context) (bool, error) {
		c, err := client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, claimName, metav1.GetOptions{})
		return err == nil && c.Status.Phase == corev1.ClaimBound, nil
	})
}

func claimVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name},
	}}
}

// A claim bound to an NFS volume fails the same way as an inline NFS
// volume; the kubelet names the PersistentVolume, and its mount options
// reach mount-utils.
// rule: STO-1, STO-2, LIM-9
func TestNFSPersistentVolumeFailsToMountOnWindows(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pvName := ns + "-nfs"
	bindStatic(t, ns, "data", &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{
			MountOptions:           []string{"nfsvers=4.1", "hard"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.5", Path: "/data"}},
		},
	})
	pod := createPod(t, ns, withVolume(simplePod("db", "win2019-1", iis2019), claimVolume("data")))
	want := fmt.Sprintf(`MountVolume.SetUp failed for volume %q : only cifs mount is supported now, fstype: "nfs", `+
		`mounting source ("10.0.0.5:/data"), target ("c:\\var\\lib\\kubelet\\pods\\%s\\volumes\\kubernetes.io~nfs\\%s"), `+
		`with options ("hard,nfsvers=4.1")`, pvName, pod.UID, pvName)
	waitEvent(t, ns, "db", "FailedMount", want, 30*time.Second)
	waitCreating(t, ns, "db")
}

// A raw block volume cannot be mapped on Windows: the kubelet's bind mount
// of the device file becomes a symlink in mount-utils, over the file the
// kubelet has just created (pkg/volume/util MapBlockVolume).
// rule: LIM-5, STO-2
func TestRawBlockVolumeFailsToMapOnWindows(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pvName := ns + "-blk"
	bindStatic(t, ns, "raw", &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{
			VolumeMode:             ptr.To(corev1.PersistentVolumeBlock),
			PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: `D:\disks\d1`}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"win2019-1"}}},
			}}}},
		},
	})
	pod := simplePod("raw", "win2019-1", iis2019)
	pod.Spec.Volumes = []corev1.Volume{claimVolume("raw")}
	pod.Spec.Containers[0].VolumeDevices = []corev1.VolumeDevice{{Name: "raw", DevicePath: `\\.\PhysicalDrive9`}}
	created := createPod(t, ns, pod)
	global := `\var\lib\kubelet\plugins\kubernetes.io~local-volume\volumeDevices\` + pvName
	link := global + `\` + string(created.UID)
	want := fmt.Sprintf(`MapVolume.MapBlockVolume failed for volume %q : blkUtil.MapDevice failed. devicePath: D:\disks\d1, `+
		`globalMapPath:%s, podUID: %s, bindMount: true: failed to bind mount devicePath: D:\disks\d1 to linkPath %s: `+
		`symlink D:\disks\d1\ c:%s: Cannot create a file when that file already exists.`, pvName, global, created.UID, link, link)
	waitEvent(t, ns, "raw", "FailedMapVolume", want, 30*time.Second)
	waitCreating(t, ns, "raw")
}

// Volume types the v1.36 kubelet no longer has a plugin for are never
// processed, on Linux as on Windows.
// rule: STO-1
func TestRemovedVolumeTypeIsNotProcessed(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pvName := ns + "-ceph"
	bindStatic(t, ns, "data", &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{
			CephFS: &corev1.CephFSPersistentVolumeSource{Monitors: []string{"10.0.0.9:6789"}},
		}},
	})
	createPod(t, ns, withVolume(simplePod("db", "linux-1", "nginx:1.27"), claimVolume("data")))
	want := fmt.Sprintf(`Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], `+
		`failed to process volumes=[data]: failed to get Plugin from volumeSpec for volume %q err=no volume plugin matched`, pvName)
	waitEvent(t, ns, "db", "FailedMount", want, 30*time.Second)
	waitCreating(t, ns, "db")
}

// A pod placed by hand on another node than its volume's: the kubelet
// checks the volume's node affinity before mounting.
// rule: STO-2
func TestVolumeOfAnotherNodeFailsAffinity(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pvName := ns + "-local"
	bindStatic(t, ns, "data", &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: `C:\data`}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"win2019-1"}}},
			}}}},
		},
	})
	createPod(t, ns, withVolume(simplePod("db", "win2019-2", iis2019), claimVolume("data")))
	want := fmt.Sprintf("MountVolume.NodeAffinity check failed for volume %q : no matching NodeSelectorTerms", pvName)
	waitEvent(t, ns, "db", "FailedMount", want, 30*time.Second)
	waitCreating(t, ns, "db")
}

// hasCondition reports whether the pod has condition t with status s (as
// the pod worker's own hasCondition reads it).
func hasCondition(pod *corev1.Pod, t corev1.PodConditionType, s corev1.ConditionStatus) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == s
		}
	}
	return false
}
