package csimount

import (
	"context"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// MountDevice is csi_attacher.go's MountDevice for a persistent volume:
// NodeStageVolume at the volume's staging path when the driver stages,
// once per volume on the node. An inline volume is never staged
// (CanDeviceMount is false for it).
func (m *Mounter) MountDevice(ctx context.Context, pod *corev1.Pod, v Volume) error {
	if v.PV == nil {
		return nil
	}
	src := v.PV.Spec.CSI
	path := m.StagingPath(src.Driver, src.VolumeHandle)
	m.mu.Lock()
	if st := m.staged[path]; st != nil && st.done {
		st.pods[pod.UID] = true
		m.mu.Unlock()
		return nil
	}
	m.mu.Unlock()
	conn, err := m.conn(src.Driver)
	if err != nil {
		return fmt.Errorf("%s", csiLog("attacher.MountDevice failed to create newCsiDriverClient: %v", err))
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	node := csi.NewNodeClient(conn)
	caps, err := capabilities(ctx, node)
	if err != nil {
		return err
	}
	// A driver that does not attach has no publish context.
	secrets := map[string]string{}
	if ref := src.NodeStageSecretRef; ref != nil && caps.stage {
		if secrets, err = m.secrets(ctx, ref.Namespace, ref.Name); err != nil {
			return fmt.Errorf("fetching NodeStageSecretRef %s/%s failed: %v", ref.Namespace, ref.Name, err)
		}
	}
	if err := m.mkdirAll(path); err != nil {
		return fmt.Errorf("%s", csiLog("attacher.MountDevice failed to create dir %#v:  %v", path, err))
	}
	st := &staging{driver: src.Driver, handle: src.VolumeHandle, pods: map[types.UID]bool{pod.UID: true}}
	if !caps.stage {
		// The kubelet records the device as mounted and skips the call.
		st.done = true
		m.setStaged(path, st)
		return nil
	}
	var group *int64
	if caps.mountGroup {
		group = fsGroup(pod)
	}
	req := &csi.NodeStageVolumeRequest{
		VolumeId:          src.VolumeHandle,
		StagingTargetPath: path,
		VolumeCapability:  caps.capability(accessMode(v.PV), src.FSType, v.PV.Spec.MountOptions, group),
		Secrets:           secrets,
		VolumeContext:     src.VolumeAttributes,
	}
	_, err = node.NodeStageVolume(ctx, req)
	if err != nil && isFinal(err) {
		m.log.Error(nil, csiLog("attacher.MountDevice failed: %v", err))
		m.removeDir(path, true)
		return err
	}
	st.done = err == nil
	m.setStaged(path, st)
	return err
}

func (m *Mounter) setStaged(path string, st *staging) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.staged[path]; old != nil {
		for uid := range old.pods {
			st.pods[uid] = true
		}
	}
	m.staged[path] = st
}

// SetUp is csi_mounter.go's SetUpAt: NodePublishVolume at the pod's
// target path, with the volume's attributes, the pod's information when
// the CSIDriver asks for it, and the publish secrets; the staging path
// for a persistent volume of a driver that stages. A volume published
// already is left as it is.
func (m *Mounter) SetUp(ctx context.Context, pod *corev1.Pod, v Volume) error {
	driver := v.driverName()
	m.mu.Lock()
	if p, ok := m.pods[pod.UID][v.Name]; ok && p.done {
		m.mu.Unlock()
		return nil
	}
	m.mu.Unlock()
	conn, err := m.conn(driver)
	if err != nil {
		return fmt.Errorf("%s", csiLog("mounter.SetUpAt failed to get CSI client: %v", err))
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	node := csi.NewNodeClient(conn)
	src := publishSource(pod, v)
	req := &csi.NodePublishVolumeRequest{
		VolumeId: src.handle, TargetPath: m.TargetPath(pod.UID, v.Spec), Readonly: v.ReadOnly, VolumeContext: src.attributes,
	}
	caps, err := capabilities(ctx, node)
	switch {
	case err != nil && v.PV != nil:
		return fmt.Errorf("%s", csiLog("mounter.SetUpAt failed to check for STAGE_UNSTAGE_VOLUME capability: %v", err))
	case err != nil:
		return fmt.Errorf("%s", csiLog("mounter.SetUpAt failed to determine if the node service has VOLUME_MOUNT_GROUP capability: %v", err))
	case v.PV != nil && caps.stage:
		req.StagingTargetPath = m.StagingPath(driver, src.handle)
	}
	parent := parentDir(req.TargetPath, m.cfg.Windows)
	if err := m.mkdirAll(parent); err != nil {
		return fmt.Errorf("%s", csiLog("mounter.SetUpAt failed to create dir %#v:  %v", parent, err))
	}
	req.Secrets = map[string]string{}
	if src.secret != nil {
		if req.Secrets, err = m.secrets(ctx, src.secret.Namespace, src.secret.Name); err != nil {
			return fmt.Errorf("fetching NodePublishSecretRef %s/%s failed: %v", src.secret.Namespace, src.secret.Name, err)
		}
	}
	if d := v.Driver; d != nil && d.Spec.PodInfoOnMount != nil && *d.Spec.PodInfoOnMount {
		req.VolumeContext = merge(req.VolumeContext, podInfo(pod, v.Inline != nil))
	}
	var group *int64
	if caps.mountGroup {
		group = fsGroup(pod)
	}
	req.VolumeCapability = caps.capability(src.mode, src.fsType, src.options, group)
	_, err = node.NodePublishVolume(ctx, req)
	if err != nil && isFinal(err) {
		m.removeDir(req.TargetPath, true)
		return err
	}
	m.mu.Lock()
	if m.pods[pod.UID] == nil {
		m.pods[pod.UID] = map[string]publication{}
	}
	m.pods[pod.UID][v.Name] = publication{driver: driver, handle: src.handle, target: req.TargetPath, done: err == nil}
	m.mu.Unlock()
	return err
}

// source is what a publish takes from the volume's source.
type source struct {
	handle, fsType string
	attributes     map[string]string
	secret         *corev1.SecretReference
	mode           corev1.PersistentVolumeAccessMode
	options        []string
}

// publishSource reads an inline volume (its handle made from the pod and
// volume, its secret in the pod's namespace, ReadWriteOnce) or a
// persistent one (its handle, secret, first access mode and mount
// options).
func publishSource(pod *corev1.Pod, v Volume) source {
	if in := v.Inline; in != nil {
		s := source{handle: inlineHandle(pod.UID, v.Spec), attributes: in.VolumeAttributes, mode: corev1.ReadWriteOnce}
		if in.FSType != nil {
			s.fsType = *in.FSType
		}
		if ref := in.NodePublishSecretRef; ref != nil {
			s.secret = &corev1.SecretReference{Namespace: pod.Namespace, Name: ref.Name}
		}
		return s
	}
	pv := v.PV.Spec.CSI
	return source{
		handle: pv.VolumeHandle, fsType: pv.FSType, attributes: pv.VolumeAttributes, secret: pv.NodePublishSecretRef,
		mode: accessMode(v.PV), options: v.PV.Spec.MountOptions,
	}
}

// TearDown is the unmount of a deleted pod's volumes: NodeUnpublishVolume
// for each (TearDownAt), then NodeUnstageVolume for the staged volumes no
// other pod uses (UnmountDevice). Failures are logged; the volumes are
// forgotten either way. A mount still running is torn down when it ends.
func (m *Mounter) TearDown(ctx context.Context, pod types.UID) {
	m.mu.Lock()
	m.abandon(pod)
	pubs := m.pods[pod]
	delete(m.pods, pod)
	staged := map[string]*staging{}
	for path, st := range m.staged {
		if st.pods[pod] {
			delete(st.pods, pod)
			if len(st.pods) == 0 {
				staged[path] = st
				delete(m.staged, path)
			}
		}
	}
	m.mu.Unlock()
	for _, p := range pubs {
		if err := m.unpublish(ctx, p); err != nil {
			m.log.Error(nil, csiLog("mounter.TearDownAt failed: %v", err))
			continue
		}
		m.removeDir(p.target, true)
	}
	for path, st := range staged {
		if err := m.unstage(ctx, path, st); err != nil {
			m.log.Error(nil, csiLog("attacher.UnmountDevice failed: %v", err))
			continue
		}
		m.removeDir(path, true)
	}
}
