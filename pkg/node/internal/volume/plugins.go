package volume

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	volumehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/winkube/winkube/pkg/node/internal/csimount"
)

// What the v1.36 kubelet's volume plugins do on each OS, as far as the
// emulated nodes show it. The emulated hosts have every disk, share and
// directory a volume names, so what remains is what the plugin code itself
// decides (STO-1, STO-2):
//
//   - No plugin: cephfs, rbd, glusterfs and the other removed in-tree types,
//     and FlexVolume drivers the node does not list: the volume is never
//     processed ("no volume plugin matched"), on every OS.
//   - CSI, and the in-tree cloud types CSI migration hands to their CSI
//     drivers: a volume that needs attaching waits for an attachment only
//     an external-attacher could make, and the kubelet stays silent (the
//     controller-manager reports FailedAttachVolume). Otherwise the driver
//     must be registered on the node (annotations.VolumeDrivers, and on
//     Windows annotations.CSIProxy) and its CSIDriver object must allow the
//     volume's lifecycle mode (Ephemeral for inline volumes). A driver
//     whose node plugin registered with the node's plugin manager is
//     called: its NodeStageVolume and NodePublishVolume decide
//     (csimount), and the mount waits while they run.
//   - A PersistentVolume whose node affinity excludes the node fails the
//     kubelet's affinity check, whatever the plugin.
//   - Windows: NFS fails in mount-utils (only SMB mounts are implemented),
//     in-tree iSCSI fails for want of iscsiadm, Fibre Channel finds no disk,
//     and mapping a raw block device fails where the kubelet bind-mounts
//     the device file (LIM-5, LIM-9).
//   - emptyDir medium Memory is NOT refused on Windows: mount-utils creates
//     a plain directory on disk for "tmpfs" and the pod runs, without a RAM
//     disk (LIM-4). `winkube lint` reports it before deployment.

// Kubelet plugin families that behave differently.
const (
	pluginOther = ""      // mounts wherever the emulator runs (configMap, hostPath, ...)
	pluginNone  = "none"  // the kubelet has no plugin for it
	pluginCSI   = "csi"   // including CSI-migrated in-tree types
	pluginFlex  = "flex"  // FlexVolume
	pluginNFS   = "nfs"   // in-tree NFS
	pluginISCSI = "iscsi" // in-tree iSCSI
	pluginFC    = "fc"    // in-tree Fibre Channel
	pluginLocal = "local" // local persistent volume
)

// CSI drivers that serve the in-tree cloud volume types (CSI migration).
const (
	driverAWSEBS    = "ebs.csi.aws.com"
	driverGCEPD     = "pd.csi.storage.gke.io"
	driverAzureDisk = "disk.csi.azure.com"
	driverAzureFile = "file.csi.azure.com"
	driverVSphere   = "csi.vsphere.vmware.com"
	driverCinder    = "cinder.csi.openstack.org"
	driverPortworx  = "pxd.portworx.com"
)

// source is what the kubelet's plugin lookup sees of one volume.
type source struct {
	spec     string // name in the kubelet's messages: pod volume name or PV name
	plugin   string
	driver   string // CSI or FlexVolume driver
	inline   bool   // an inline CSI volume, never attached
	csi      *corev1.CSIVolumeSource
	nfs      *corev1.NFSVolumeSource
	readOnly bool
	options  []string // the PV's mount options
	local    string   // path of a local PV
	pv       *corev1.PersistentVolume
}

// inlineSource classifies a volume written in the pod.
func inlineSource(vol corev1.Volume) source {
	s := source{spec: vol.Name}
	v := vol.VolumeSource
	switch {
	case v.NFS != nil:
		s.plugin, s.nfs, s.readOnly = pluginNFS, v.NFS, v.NFS.ReadOnly
	case v.CSI != nil:
		s.plugin, s.driver, s.inline, s.csi = pluginCSI, v.CSI.Driver, true, v.CSI
		s.readOnly = v.CSI.ReadOnly != nil && *v.CSI.ReadOnly
	case v.FlexVolume != nil:
		s.plugin, s.driver = pluginFlex, v.FlexVolume.Driver
	case v.ISCSI != nil:
		s.plugin = pluginISCSI
	case v.FC != nil:
		s.plugin = pluginFC
	default:
		s.plugin, s.driver = cloudOrRemoved([]migrated{
			{v.AWSElasticBlockStore != nil, driverAWSEBS}, {v.GCEPersistentDisk != nil, driverGCEPD},
			{v.AzureDisk != nil, driverAzureDisk}, {v.AzureFile != nil, driverAzureFile},
			{v.VsphereVolume != nil, driverVSphere}, {v.Cinder != nil, driverCinder}, {v.PortworxVolume != nil, driverPortworx},
		}, v.Glusterfs != nil || v.RBD != nil || v.CephFS != nil || v.Flocker != nil || v.Quobyte != nil ||
			v.PhotonPersistentDisk != nil || v.ScaleIO != nil || v.StorageOS != nil)
	}
	return s
}

// persistentSource classifies a bound PersistentVolume; readOnly is the
// claim reference's, which is what the kubelet's spec carries.
func persistentSource(pv *corev1.PersistentVolume, readOnly bool) source {
	s := source{spec: pv.Name, readOnly: readOnly, options: pv.Spec.MountOptions, pv: pv}
	if mo, ok := pv.Annotations[corev1.MountOptionAnnotation]; ok {
		s.options = strings.Split(mo, ",") // the beta annotation wins
	}
	v := pv.Spec.PersistentVolumeSource
	switch {
	case v.NFS != nil:
		s.plugin, s.nfs = pluginNFS, v.NFS
	case v.CSI != nil:
		s.plugin, s.driver = pluginCSI, v.CSI.Driver
	case v.FlexVolume != nil:
		s.plugin, s.driver = pluginFlex, v.FlexVolume.Driver
	case v.ISCSI != nil:
		s.plugin = pluginISCSI
	case v.FC != nil:
		s.plugin = pluginFC
	case v.Local != nil:
		s.plugin, s.local = pluginLocal, v.Local.Path
	default:
		s.plugin, s.driver = cloudOrRemoved([]migrated{
			{v.AWSElasticBlockStore != nil, driverAWSEBS}, {v.GCEPersistentDisk != nil, driverGCEPD},
			{v.AzureDisk != nil, driverAzureDisk}, {v.AzureFile != nil, driverAzureFile},
			{v.VsphereVolume != nil, driverVSphere}, {v.Cinder != nil, driverCinder}, {v.PortworxVolume != nil, driverPortworx},
		}, v.Glusterfs != nil || v.RBD != nil || v.CephFS != nil || v.Flocker != nil || v.Quobyte != nil ||
			v.PhotonPersistentDisk != nil || v.ScaleIO != nil || v.StorageOS != nil)
	}
	return s
}

// migrated pairs an in-tree cloud volume type, set or not, with the CSI
// driver that serves it.
type migrated struct {
	set    bool
	driver string
}

// cloudOrRemoved classifies the remaining types: a migrated cloud type
// goes to its CSI driver, a removed type to no plugin at all.
func cloudOrRemoved(cloud []migrated, removed bool) (plugin, driver string) {
	for _, c := range cloud {
		if c.set {
			return pluginCSI, c.driver
		}
	}
	if removed {
		return pluginNone, ""
	}
	return pluginOther, ""
}

// hostIssue is how a volume fails to mount on this node; nil when it
// mounts. The checks come in the kubelet's order: plugin lookup, the wait
// for attachment, node affinity, then the plugin's own mount.
func (c *Checker) hostIssue(ctx context.Context, pod *corev1.Pod, name string, src source, block bool, h Host) *Issue {
	if src.plugin == pluginNone || (src.plugin == pluginFlex && !h.Drivers[src.driver]) {
		return &Issue{Name: name, Process: fmt.Sprintf("failed to get Plugin from volumeSpec for volume %q err=no volume plugin matched", src.spec)}
	}
	var driver *storagev1.CSIDriver
	if src.plugin == pluginCSI {
		driver = c.csiDriver(ctx, src.driver)
		// Without a CSIDriver object the kubelet assumes attachment is needed.
		attach := driver == nil || driver.Spec.AttachRequired == nil || *driver.Spec.AttachRequired
		if !src.inline && attach {
			return &Issue{Name: name, Attach: true}
		}
	}
	op, reason := "MountVolume", ReasonFailedMount
	if block {
		op, reason = "MapVolume", ReasonFailedMapVolume
	}
	fail := func(step, msg string) *Issue {
		return &Issue{Name: name, Reason: reason, Message: fmt.Sprintf("%s.%s failed for volume %q : %s", op, step, src.spec, msg)}
	}
	if src.pv != nil && h.Labels != nil {
		if err := volumehelpers.CheckNodeAffinity(src.pv, h.Labels); err != nil {
			is := fail("NodeAffinity check", err.Error())
			is.Reason = ReasonFailedMount // for block volumes too
			return is
		}
	}
	return h.pluginIssue(ctx, pod, name, src, block, driver, fail)
}

// pluginIssue is the failure of the plugin's own mount or map on this OS.
func (h Host) pluginIssue(ctx context.Context, pod *corev1.Pod, name string, src source, block bool, driver *storagev1.CSIDriver, fail func(step, msg string) *Issue) *Issue {
	switch src.plugin {
	case pluginCSI:
		return h.csiIssue(ctx, pod, name, src, block, driver, fail)
	case pluginNFS:
		if h.Windows {
			return fail("SetUp", nfsWindowsError(pod.UID, src))
		}
	case pluginISCSI:
		if h.Windows {
			// The plugin runs iscsiadm; Go's exec names %PATH% on Windows.
			return fail("WaitForAttach", "executable file not found in %PATH%")
		}
	case pluginFC:
		if h.Windows {
			return fail("WaitForAttach", "no fc disk found") // it scans /dev/disk/by-path
		}
	case pluginLocal:
		if h.Windows && block {
			global := windowsKubeletDir + `\plugins\kubernetes.io~local-volume\volumeDevices\` + src.spec
			return fail("MapBlockVolume", mapBlockError(src.local, global, pod.UID))
		}
	}
	return nil
}

// csiDriver is the driver's CSIDriver object, nil when there is none (it
// is optional).
func (c *Checker) csiDriver(ctx context.Context, name string) *storagev1.CSIDriver {
	d, err := c.Client.StorageV1().CSIDrivers().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return d
}

// csiIssue: the driver must be registered and support the volume's
// lifecycle mode, and on Windows a raw block volume still fails to map.
// A driver registered through the node's plugin manager is then called:
// its NodeStageVolume (persistent volumes) and NodePublishVolume answer
// for the mount (csimount).
func (h Host) csiIssue(ctx context.Context, pod *corev1.Pod, name string, src source, block bool, driver *storagev1.CSIDriver, fail func(step, msg string) *Issue) *Issue {
	plugin := h.CSI != nil && h.CSI.Registered(src.driver)
	if !plugin && !h.csiRegistered(src.driver) {
		notFound := fmt.Sprintf("driver name %s not found in the list of registered CSI drivers", src.driver)
		switch {
		case block:
			return fail("SetUpDevice", "kubernetes.io/csi: blockMapper.SetUpDevice failed to get CSI client: "+notFound)
		case !src.inline:
			// A persistent volume is staged first (MountDevice), even
			// by a driver that does not stage.
			return fail("MountDevice", "kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: "+notFound)
		}
		return fail("SetUp", "kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: "+notFound)
	}
	if block {
		if !h.Windows {
			return nil
		}
		dir := windowsKubeletDir + `\plugins\kubernetes.io\csi\volumeDevices\`
		device := dir + `publish\` + src.spec + `\` + string(pod.UID)
		global := dir + strings.ReplaceAll(src.spec, "/", "~") + `\dev`
		return fail("MapBlockVolume", mapBlockError(device, global, pod.UID))
	}
	modeErr := lifecycleModeError(driver, src)
	// Migrated in-tree types reach a plugin only through CSI translation,
	// which is not emulated: they mount as before.
	if plugin && (src.csi != nil || src.pv != nil && src.pv.Spec.CSI != nil) {
		vol := csimount.Volume{Name: name, Spec: src.spec, Inline: src.csi, PV: src.pv, ReadOnly: src.readOnly, Driver: driver, ModeError: modeErr}
		r := h.CSI.Mount(ctx, pod, vol, h.Due == nil || h.Due(name))
		switch {
		case r.Pending:
			return &Issue{Name: name, Pending: true}
		case r.Err != nil:
			return fail(r.Step, r.Err.Error())
		}
		return nil
	}
	if modeErr != "" {
		return fail("SetUp", "kubernetes.io/csi: mounter.SetupAt failed to check volume lifecycle mode: "+modeErr)
	}
	return nil
}

// lifecycleModeError: an inline volume needs a CSIDriver object that lists
// the Ephemeral mode; a persistent one needs Persistent listed, or no object.
func lifecycleModeError(driver *storagev1.CSIDriver, src source) string {
	mode := storagev1.VolumeLifecyclePersistent
	if src.inline {
		mode = storagev1.VolumeLifecycleEphemeral
	}
	switch {
	case driver == nil && mode == storagev1.VolumeLifecyclePersistent:
		return ""
	case driver == nil:
		return fmt.Sprintf("volume mode %q not supported by driver %s (no CSIDriver object)", mode, src.driver)
	case slices.Contains(driver.Spec.VolumeLifecycleModes, mode):
		return ""
	}
	return fmt.Sprintf("volume mode %q not supported by driver %s (only supports %q)", mode, src.driver, driver.Spec.VolumeLifecycleModes)
}

// nfsWindowsError is mount-utils' answer on Windows, which mounts SMB
// shares only: with fewer than two options it complains about those,
// otherwise about the file system type (mount_windows.go).
func nfsWindowsError(podUID types.UID, src source) string {
	server := src.nfs.Server
	if a, err := netip.ParseAddr(server); err == nil && a.Is6() {
		server = "[" + server + "]"
	}
	mountSource := server + ":" + src.nfs.Path
	target := windowsPath(windowsKubeletDir + `\pods\` + string(podUID) + `\volumes\kubernetes.io~nfs\` + src.spec)
	var options []string
	for _, o := range src.options {
		if o != "" {
			options = append(options, o)
		}
	}
	if src.readOnly {
		options = append(options, "ro")
	}
	slices.Sort(options) // the kubelet joins them through a set
	options = slices.Compact(options)
	joined := strings.Join(options, ",")
	if len(options) < 2 {
		return fmt.Sprintf("mount options(%q) should have at least 2 options, current number:%d, source:%q, target:%q",
			joined, len(options), mountSource, target)
	}
	return fmt.Sprintf("only cifs mount is supported now, fstype: %q, mounting source (%q), target (%q), with options (%q)",
		"nfs", mountSource, target, joined)
}

// mapBlockError is the kubelet's failure to bind-mount a block device file
// on Windows: mount-utils makes a "bind mount" a directory symlink, and the
// kubelet has already created a file at the link's path.
func mapBlockError(devicePath, globalMapPath string, podUID types.UID) string {
	linkPath := globalMapPath + `\` + string(podUID)
	from := windowsPath(devicePath)
	if !strings.HasSuffix(from, `\`) {
		from += `\`
	}
	symlink := fmt.Sprintf("symlink %s %s: Cannot create a file when that file already exists.", from, windowsPath(linkPath))
	return fmt.Sprintf("blkUtil.MapDevice failed. devicePath: %s, globalMapPath:%s, podUID: %s, bindMount: true: failed to bind mount devicePath: %s to linkPath %s: %s",
		devicePath, globalMapPath, podUID, devicePath, linkPath, symlink)
}

// windowsPath is mount-utils' NormalizeWindowsPath: backslashes, and the
// C: drive for a rooted path.
func windowsPath(p string) string {
	p = strings.ReplaceAll(p, "/", `\`)
	if strings.HasPrefix(p, `\`) {
		p = "c:" + p
	}
	return p
}
