package csimount

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// nodeCaps are the node service capabilities the kubelet asks about.
type nodeCaps struct {
	stage, multiWriter, mountGroup bool
}

// capabilities is NodeGetCapabilities, read as csi_client.go's
// NodeSupports* functions read it.
func capabilities(ctx context.Context, node csi.NodeClient) (nodeCaps, error) {
	rsp, err := node.NodeGetCapabilities(ctx, &csi.NodeGetCapabilitiesRequest{})
	if err != nil {
		return nodeCaps{}, err
	}
	var c nodeCaps
	for _, cap := range rsp.GetCapabilities() {
		switch cap.GetRpc().GetType() {
		case csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME:
			c.stage = true
		case csi.NodeServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER:
			c.multiWriter = true
		case csi.NodeServiceCapability_RPC_VOLUME_MOUNT_GROUP:
			c.mountGroup = true
		}
	}
	return c, nil
}

// capability is the volume capability the kubelet sends: a mount of
// fsType with the volume's mount options (the CSI plugin mounts; block
// volumes are mapped, not mounted), and the access mode mapped as
// csi_client.go maps it for the driver.
func (c nodeCaps) capability(mode corev1.PersistentVolumeAccessMode, fsType string, options []string, group *int64) *csi.VolumeCapability {
	mount := &csi.VolumeCapability_MountVolume{FsType: fsType, MountFlags: options}
	if group != nil {
		mount.VolumeMountGroup = strconv.FormatInt(*group, 10)
	}
	return &csi.VolumeCapability{
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: c.accessMode(mode)},
		AccessType: &csi.VolumeCapability_Mount{Mount: mount},
	}
}

// accessMode is asCSIAccessModeV1, or with SINGLE_NODE_MULTI_WRITER
// asSingleNodeMultiWriterCapableCSIAccessModeV1.
func (c nodeCaps) accessMode(mode corev1.PersistentVolumeAccessMode) csi.VolumeCapability_AccessMode_Mode {
	switch mode {
	case corev1.ReadWriteOnce:
		if c.multiWriter {
			return csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER
		}
		return csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER
	case corev1.ReadOnlyMany:
		return csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY
	case corev1.ReadWriteMany:
		return csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER
	case corev1.ReadWriteOncePod:
		if c.multiWriter {
			return csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER
		}
		return csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER
	}
	return csi.VolumeCapability_AccessMode_UNKNOWN
}

// accessMode is the PersistentVolume's first access mode, ReadWriteOnce
// when it lists none.
func accessMode(pv *corev1.PersistentVolume) corev1.PersistentVolumeAccessMode {
	if len(pv.Spec.AccessModes) > 0 {
		return pv.Spec.AccessModes[0]
	}
	return corev1.ReadWriteOnce
}

// fsGroup is the pod's fsGroup, which the kubelet hands a driver with
// VOLUME_MOUNT_GROUP.
func fsGroup(pod *corev1.Pod) *int64 {
	if sc := pod.Spec.SecurityContext; sc != nil {
		return sc.FSGroup
	}
	return nil
}

// isFinal is csi_client.go's isFinalError: codes that say the call may
// still be in progress leave the volume's state uncertain.
func isFinal(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Unavailable, codes.ResourceExhausted, codes.Aborted:
		return false
	}
	return true
}

// secrets is getCredentialsFromSecret: the secret's data as strings.
func (m *Mounter) secrets(ctx context.Context, namespace, name string) (map[string]string, error) {
	s, err := m.cfg.Client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s", csiLog("failed to find the secret %s in the namespace %s with error: %v", name, namespace, err))
	}
	out := map[string]string{}
	for k, v := range s.Data {
		out[k] = string(v)
	}
	return out, nil
}

// podInfo is getPodInfoAttrs: what a CSIDriver with podInfoOnMount
// receives of the pod.
func podInfo(pod *corev1.Pod, ephemeral bool) map[string]string {
	return map[string]string{
		"csi.storage.k8s.io/pod.name":            pod.Name,
		"csi.storage.k8s.io/pod.namespace":       pod.Namespace,
		"csi.storage.k8s.io/pod.uid":             string(pod.UID),
		"csi.storage.k8s.io/serviceAccount.name": pod.Spec.ServiceAccountName,
		"csi.storage.k8s.io/ephemeral":           strconv.FormatBool(ephemeral),
	}
}

// merge is mergeMap: b's entries over a copy of a.
func merge(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}

// unpublish is NodeUnpublishVolume of one publication.
func (m *Mounter) unpublish(ctx context.Context, p publication) error {
	conn, err := m.conn(p.driver)
	if err != nil {
		return fmt.Errorf("%s", csiLog("mounter.SetUpAt failed to get CSI client: %v", err))
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	_, err = csi.NewNodeClient(conn).NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: p.handle, TargetPath: p.target})
	return err
}

// unstage is NodeUnstageVolume of a staged volume, skipped (and the
// directory merely removed) when the driver does not stage.
func (m *Mounter) unstage(ctx context.Context, path string, st *staging) error {
	conn, err := m.conn(st.driver)
	if err != nil {
		return fmt.Errorf("%s", csiLog("attacher.UnmountDevice failed to create newCsiDriverClient: %v", err))
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	node := csi.NewNodeClient(conn)
	caps, err := capabilities(ctx, node)
	if err != nil {
		return fmt.Errorf("%s", csiLog("attacher.UnmountDevice failed to check whether STAGE_UNSTAGE_VOLUME set: %v", err))
	}
	if !caps.stage {
		return nil
	}
	_, err = node.NodeUnstageVolume(ctx, &csi.NodeUnstageVolumeRequest{VolumeId: st.handle, StagingTargetPath: path})
	return err
}
