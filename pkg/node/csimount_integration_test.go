package node

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/rootfs"
	"google.golang.org/grpc"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// secretsStoreDriverPod is the Windows node plugin of the Secrets Store
// CSI Driver chart (registrar and driver, with their hostPath volumes),
// bound to node.
func secretsStoreDriverPod(node string) *corev1.Pod {
	hostPath := func(name, path string, typ corev1.HostPathType) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &typ}}}
	}
	plugin := corev1.VolumeMount{Name: "plugin-dir", MountPath: `C:\csi`}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "secrets-store-driver"},
		Spec: corev1.PodSpec{
			NodeName:     node,
			Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			NodeSelector: map[string]string{corev1.LabelOSStable: "windows"},
			Containers: []corev1.Container{{
				Name:  "node-driver-registrar",
				Image: "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.16.0",
				Args: []string{"--v=5", `--csi-address=unix://C:\\csi\\csi.sock`,
					`--kubelet-registration-path=C:\var\lib\kubelet\plugins\csi-secrets-store\csi.sock`},
				VolumeMounts: []corev1.VolumeMount{plugin, {Name: "registration-dir", MountPath: `C:\registration`}},
			}, {
				Name:         "secrets-store",
				Image:        "registry.k8s.io/csi-secrets-store/driver:v1.6.0",
				Args:         []string{`--endpoint=unix://C:\\csi\\csi.sock`, "--nodeid=" + node, `--provider-volume=C:\k\secrets-store-csi-providers`},
				VolumeMounts: []corev1.VolumeMount{plugin, {Name: "mountpoint-dir", MountPath: `C:\var\lib\kubelet\pods`}},
			}},
			Volumes: []corev1.Volume{
				hostPath("mountpoint-dir", `C:\var\lib\kubelet\pods\`, corev1.HostPathDirectoryOrCreate),
				hostPath("registration-dir", `C:\var\lib\kubelet\plugins_registry\`, corev1.HostPathDirectory),
				hostPath("plugin-dir", `C:\var\lib\kubelet\plugins\csi-secrets-store\`, corev1.HostPathDirectoryOrCreate),
			},
		},
	}
}

// The Secrets Store CSI Driver's node plugin registered on a Windows
// node answers for the mount of its inline volumes: the kubelet calls
// its NodePublishVolume, and without the SecretProviderClass (or a
// provider) the driver's error is the FailedMount event, repeated, with
// the pod left ContainerCreating. A driver not registered there still
// fails before any call.
// rule: STO-1, STO-2
func TestRegisteredCSIDriverAnswersTheMount(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const node, driver = "win2022-1", "secrets-store.csi.k8s.io"
	d := &storagev1.CSIDriver{
		ObjectMeta: metav1.ObjectMeta{Name: driver},
		Spec: storagev1.CSIDriverSpec{
			AttachRequired: ptr.To(false), PodInfoOnMount: ptr.To(true),
			VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecycleEphemeral},
		},
	}
	if _, err := client.StorageV1().CSIDrivers().Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.StorageV1().CSIDrivers().Delete(context.Background(), driver, metav1.DeleteOptions{})
	})
	createPod(t, ns, secretsStoreDriverPod(node))
	t.Cleanup(func() {
		_ = client.CoreV1().Pods(ns).Delete(context.Background(), "secrets-store-driver", metav1.DeleteOptions{})
	})
	waitFor(t, 2*time.Minute, "the driver in the node's CSINode", func(ctx context.Context) (bool, error) {
		cn, err := client.StorageV1().CSINodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, d := range cn.Spec.Drivers {
			if d.Name == driver {
				return true, nil
			}
		}
		return false, nil
	})

	secrets := corev1.Volume{Name: "secrets", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{
		Driver: driver, ReadOnly: ptr.To(true), VolumeAttributes: map[string]string{"secretProviderClass": "azure-kv"},
	}}}
	createPod(t, ns, withVolume(simplePod("app", node, servercore2022), secrets))
	want := `MountVolume.SetUp failed for volume "secrets" : rpc error: code = Unknown desc = failed to get secretproviderclass ` +
		ns + `/azure-kv, error: secretproviderclasses.secrets-store.csi.x-k8s.io "azure-kv" not found`
	waitEvent(t, ns, "app", "FailedMount", want, time.Minute)
	waitRepeated(t, ns, "app", "FailedMount", want)
	waitCreating(t, ns, "app")

	other := corev1.Volume{Name: "nfs", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "nfs.csi.k8s.io"}}}
	createPod(t, ns, withVolume(simplePod("other", node, servercore2022), other))
	waitEvent(t, ns, "other", "FailedMount", `MountVolume.SetUp failed for volume "nfs" : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: `+
		"driver name nfs.csi.k8s.io not found in the list of registered CSI drivers", time.Minute)
	waitCreating(t, ns, "other")
}

// testCSIDriver is a CSI node plugin served by the test on a node's
// sockets: its NodePublishVolume writes a file at the target path on the
// node's disk, as a driver with the node's pods directory mounted does.
type testCSIDriver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedNodeServer
	name string
	disk *vfs.Volume

	mu          sync.Mutex
	unpublished []string
}

func (d *testCSIDriver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: d.name, VendorVersion: "v0.0.1"}, nil
}

func (d *testCSIDriver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: "linux-1"}, nil
}

func (d *testCSIDriver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{}, nil
}

func (d *testCSIDriver) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	target := rootfs.HostRel(req.TargetPath)
	if err := d.disk.MkdirAll(target, 0o755); err != nil {
		return nil, err
	}
	text := "greetings from " + req.VolumeContext["csi.storage.k8s.io/pod.name"] + "\n"
	return &csi.NodePublishVolumeResponse{}, d.disk.WriteFile(target+"/greeting", []byte(text), 0o644)
}

func (d *testCSIDriver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	d.mu.Lock()
	d.unpublished = append(d.unpublished, req.TargetPath)
	d.mu.Unlock()
	return &csi.NodeUnpublishVolumeResponse{}, d.disk.Remove(rootfs.HostRel(req.TargetPath))
}

// A CSI driver registered by node-driver-registrar publishes an inline
// volume: what it writes at the target path is what the container reads
// at its mountPath; once the pod has terminated the volume is
// unpublished.
// rule: STO-1
func TestPublishedCSIVolumeReachesTheContainer(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const node, driver = "linux-1", "greeting.csi.winkube.test"
	n := agent.nodes[node]
	d := &testCSIDriver{name: driver, disk: n.disk()}
	pluginDir := "/var/lib/kubelet/plugins/" + driver
	l, err := n.plugins.sockets.Listen(pluginDir + "/csi.sock")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	csi.RegisterIdentityServer(srv, d)
	csi.RegisterNodeServer(srv, d)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	cd := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: driver}, Spec: storagev1.CSIDriverSpec{
		AttachRequired: ptr.To(false), PodInfoOnMount: ptr.To(true),
		VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecycleEphemeral},
	}}
	if _, err := client.StorageV1().CSIDrivers().Create(context.Background(), cd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.StorageV1().CSIDrivers().Delete(context.Background(), driver, metav1.DeleteOptions{})
	})
	dirOrCreate := corev1.HostPathDirectoryOrCreate
	reg := simplePod("registrar", node, "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.16.0")
	reg.Spec.Containers[0].Args = []string{"--csi-address=/csi/csi.sock", "--kubelet-registration-path=" + pluginDir + "/csi.sock"}
	reg.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "plugin-dir", MountPath: "/csi"}, {Name: "registration-dir", MountPath: "/registration"}}
	reg.Spec.Volumes = []corev1.Volume{
		{Name: "plugin-dir", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: pluginDir, Type: &dirOrCreate}}},
		{Name: "registration-dir", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/kubelet/plugins_registry", Type: &dirOrCreate}}},
	}
	createPod(t, ns, reg)
	t.Cleanup(func() { _ = client.CoreV1().Pods(ns).Delete(context.Background(), "registrar", metav1.DeleteOptions{}) })
	waitFor(t, 2*time.Minute, "the driver registered", func(context.Context) (bool, error) {
		_, ok := n.plugins.endpoint(driver)
		return ok, nil
	})

	pod := simplePod("reader", node, busybox)
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.Containers[0].Command = []string{"cat", "/mnt/greeting/greeting"}
	createPod(t, ns, withVolume(pod, corev1.Volume{Name: "greeting", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: driver}}}))
	p := waitPod(t, ns, "reader", time.Minute, "Succeeded", func(p *corev1.Pod) bool {
		return p.Status.Phase != corev1.PodPending && p.Status.Phase != corev1.PodRunning
	})
	if p.Status.Phase != corev1.PodSucceeded {
		t.Errorf("phase %s, want Succeeded", p.Status.Phase)
	}
	if got := logsOf(t, ns, "reader", node, "main"); got != "greetings from reader\n" {
		t.Errorf("log %q, want what the driver published", got)
	}
	// The pod has terminated: its volume is unpublished, once.
	target := "/var/lib/kubelet/pods/" + string(p.UID) + "/volumes/kubernetes.io~csi/greeting/mount"
	waitFor(t, time.Minute, "NodeUnpublishVolume", func(context.Context) (bool, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.unpublished) == 1 && d.unpublished[0] == target, nil
	})
	if err := client.CoreV1().Pods(ns).Delete(context.Background(), "reader", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "the pod gone", func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods(ns).Get(ctx, "reader", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.unpublished) != 1 {
		t.Errorf("unpublished %v, want the one target once", d.unpublished)
	}
}

// smbDriverPod runs csi-driver-smb's node plugin and its registrar on a
// Windows node, their sockets in the node's plugin directory.
func smbDriverPod(node string) *corev1.Pod {
	dirOrCreate := corev1.HostPathDirectoryOrCreate
	plugin := corev1.VolumeMount{Name: "plugin-dir", MountPath: `C:\csi`}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "smb-driver"},
		Spec: corev1.PodSpec{
			NodeName:    node,
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{
				Name:  "node-driver-registrar",
				Image: "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.17.0",
				Args: []string{`--csi-address=unix://C:\csi\csi.sock`,
					`--kubelet-registration-path=C:\var\lib\kubelet\plugins\smb.csi.k8s.io\csi.sock`},
				VolumeMounts: []corev1.VolumeMount{plugin, {Name: "registration-dir", MountPath: `C:\registration`}},
			}, {
				Name:         "smb",
				Image:        "registry.k8s.io/sig-storage/smbplugin:v1.17.0",
				Args:         []string{"--v=5", `--endpoint=unix://C:\csi\csi.sock`, "--nodeid=" + node},
				VolumeMounts: []corev1.VolumeMount{plugin},
			}},
			Volumes: []corev1.Volume{
				{Name: "registration-dir", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: `C:\var\lib\kubelet\plugins_registry\`, Type: &dirOrCreate}}},
				{Name: "plugin-dir", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: `C:\var\lib\kubelet\plugins\smb.csi.k8s.io\`, Type: &dirOrCreate}}},
			},
		},
	}
}

// A statically provisioned SMB PersistentVolume (csi-driver-smb's
// example: volumeHandle, source, nodeStageSecretRef) on a Windows node
// where the driver is registered: the kubelet stages it first, at the
// plugin's global mount path named by the handle's SHA-256, and the
// driver's staging error is the MountDevice event.
// rule: STO-1, STO-2
func TestSMBPersistentVolumeStagedByTheDriver(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	ctx := context.Background()
	const node, driver = "win2019-2", "smb.csi.k8s.io"
	cd := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: driver}, Spec: storagev1.CSIDriverSpec{
		AttachRequired: ptr.To(false), PodInfoOnMount: ptr.To(true),
		VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent},
	}}
	if _, err := client.StorageV1().CSIDrivers().Create(ctx, cd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.StorageV1().CSIDrivers().Delete(context.Background(), driver, metav1.DeleteOptions{})
	})
	createPod(t, ns, smbDriverPod(node))
	t.Cleanup(func() {
		_ = client.CoreV1().Pods(ns).Delete(context.Background(), "smb-driver", metav1.DeleteOptions{})
	})
	waitFor(t, 2*time.Minute, "the driver registered", func(context.Context) (bool, error) {
		_, ok := agent.nodes[node].plugins.endpoint(driver)
		return ok, nil
	})

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "smbcreds"}, StringData: map[string]string{"username": "u", "password": "p"}}
	if _, err := client.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	handle := "smb-server.example.com/share##"
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-smb"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			MountOptions:                  []string{"dir_mode=0777", "file_mode=0777"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: driver, VolumeHandle: handle,
				VolumeAttributes:   map[string]string{"source": "//smb-server.example.com/share"},
				NodeStageSecretRef: &corev1.SecretReference{Name: "smbcreds", Namespace: ns},
			}},
		},
	}
	if _, err := client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().PersistentVolumes().Delete(context.Background(), pv.Name, metav1.DeleteOptions{})
	})
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "smb"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, VolumeName: pv.Name, StorageClassName: ptr.To(""),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
	}
	if _, err := client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	claim := corev1.Volume{Name: "share", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "smb"}}}
	createPod(t, ns, withVolume(simplePod("app", node, "mcr.microsoft.com/windows/servercore:ltsc2019"), claim))
	staging := fmt.Sprintf(`c:\var\lib\kubelet\plugins\kubernetes.io\csi\smb.csi.k8s.io\%x\globalmount`, sha256.Sum256([]byte(handle)))
	want := fmt.Sprintf(`MountVolume.MountDevice failed for volume %q : rpc error: code = Internal desc = volume(%s) mount "//smb-server.example.com/share" on %q failed with `,
		pv.Name, handle, staging)
	waitEvent(t, ns, "app", "FailedMount", want, 2*time.Minute)
	waitCreating(t, ns, "app")
}
