package volume

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The NFS plugin hands the mount to mount-utils, which on Windows mounts SMB
// shares only (k8s.io/mount-utils mount_windows.go).
// rule: LIM-9
func TestNFSWindowsError(t *testing.T) {
	inline := inlineSource(corev1.Volume{Name: "share", VolumeSource: corev1.VolumeSource{
		NFS: &corev1.NFSVolumeSource{Server: "nfs.example.com", Path: "/exports"},
	}})
	want := `mount options("") should have at least 2 options, current number:0, source:"nfs.example.com:/exports", ` +
		`target:"c:\\var\\lib\\kubelet\\pods\\0f1e\\volumes\\kubernetes.io~nfs\\share"`
	if got := nfsWindowsError("0f1e", inline); got != want {
		t.Errorf("inline NFS:\n got %s\nwant %s", got, want)
	}

	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "nfs-pv"},
		Spec: corev1.PersistentVolumeSpec{
			MountOptions:           []string{"nfsvers=4.1", "hard"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.5", Path: "/data"}},
		},
	}
	want = `only cifs mount is supported now, fstype: "nfs", mounting source ("10.0.0.5:/data"), ` +
		`target ("c:\\var\\lib\\kubelet\\pods\\0f1e\\volumes\\kubernetes.io~nfs\\nfs-pv"), with options ("hard,nfsvers=4.1,ro")`
	if got := nfsWindowsError("0f1e", persistentSource(pv, true)); got != want {
		t.Errorf("NFS PV with mount options:\n got %s\nwant %s", got, want)
	}
}

// rule: LIM-5
func TestMapBlockErrorOnWindows(t *testing.T) {
	got := mapBlockError(`D:\disks\d1`, `\var\lib\kubelet\plugins\kubernetes.io~local-volume\volumeDevices\blk`, "0f1e")
	want := `blkUtil.MapDevice failed. devicePath: D:\disks\d1, ` +
		`globalMapPath:\var\lib\kubelet\plugins\kubernetes.io~local-volume\volumeDevices\blk, podUID: 0f1e, bindMount: true: ` +
		`failed to bind mount devicePath: D:\disks\d1 to linkPath \var\lib\kubelet\plugins\kubernetes.io~local-volume\volumeDevices\blk\0f1e: ` +
		`symlink D:\disks\d1\ c:\var\lib\kubelet\plugins\kubernetes.io~local-volume\volumeDevices\blk\0f1e: ` +
		`Cannot create a file when that file already exists.`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// rule: STO-1
func TestVolumeSourceClassification(t *testing.T) {
	cases := []struct {
		src           corev1.VolumeSource
		plugin, drv   string
		shownAsInline bool
	}{
		{corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}, pluginOther, "", false},
		{corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{Monitors: []string{"m"}}}, pluginNone, "", false},
		{corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "s", ShareName: "x"}}, pluginCSI, "file.csi.azure.com", false},
		{corev1.VolumeSource{AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: "v"}}, pluginCSI, "ebs.csi.aws.com", false},
		{corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "smb.csi.k8s.io"}}, pluginCSI, "smb.csi.k8s.io", true},
		{corev1.VolumeSource{FlexVolume: &corev1.FlexVolumeSource{Driver: "microsoft.com/smb.cmd"}}, pluginFlex, "microsoft.com/smb.cmd", false},
	}
	for _, tc := range cases {
		s := inlineSource(corev1.Volume{Name: "v", VolumeSource: tc.src})
		if s.plugin != tc.plugin || s.driver != tc.drv || s.inline != tc.shownAsInline {
			t.Errorf("%+v: got plugin %q driver %q inline %v, want %q %q %v", tc.src, s.plugin, s.driver, s.inline, tc.plugin, tc.drv, tc.shownAsInline)
		}
	}
}

func TestCheckVolumeMode(t *testing.T) {
	block := &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{VolumeMode: ptr.To(corev1.PersistentVolumeBlock)}}
	fs := &corev1.PersistentVolume{}
	if err := checkVolumeMode("data", block, false); err == nil || err.Error() != "volume data has volumeMode Block, but is specified in volumeMounts" {
		t.Errorf("block volume mounted: %v", err)
	}
	if err := checkVolumeMode("data", fs, true); err == nil || err.Error() != "volume data has volumeMode Filesystem, but is specified in volumeDevices" {
		t.Errorf("filesystem volume mapped: %v", err)
	}
	if err := checkVolumeMode("data", block, true); err != nil {
		t.Errorf("block volume mapped: %v", err)
	}
}

// A CSI PersistentVolume is staged before it is set up (MountDevice),
// whether or not its driver stages: with the driver unregistered, that
// step fails first, in csi_attacher.go's words; an inline volume fails
// in SetUp.
// rule: STO-2
func TestUnregisteredCSIDriverFailsFirstStep(t *testing.T) {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: corev1.PersistentVolumeSpec{
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "smb.csi.k8s.io", VolumeHandle: "h"}},
	}}
	inline := corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "smb.csi.k8s.io"}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u1"}}
	h := Host{Windows: true, Drivers: map[string]bool{}}
	for _, tc := range []struct {
		src  source
		want string
	}{
		{persistentSource(pv, false), `MountVolume.MountDevice failed for volume "pv-1" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name smb.csi.k8s.io not found in the list of registered CSI drivers`},
		{inlineSource(inline), `MountVolume.SetUp failed for volume "v" : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name smb.csi.k8s.io not found in the list of registered CSI drivers`},
	} {
		fail := func(step, msg string) *Issue {
			return &Issue{Message: fmt.Sprintf("MountVolume.%s failed for volume %q : %s", step, tc.src.spec, msg)}
		}
		if is := h.csiIssue(context.Background(), pod, "data", tc.src, false, nil, fail); is == nil || is.Message != tc.want {
			t.Errorf("issue %+v\nwant %s", is, tc.want)
		}
	}
}
