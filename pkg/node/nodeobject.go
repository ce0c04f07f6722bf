package node

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
)

// Labels and annotations winkube adds to the node.
const (
	LabelPool = annotations.LabelPool

	annotationControllerManagedAttach = "volumes.kubernetes.io/controller-managed-attach-detach"
)

// Capacity every emulated node reports beyond the pool's cpu and memory.
var defaultEphemeralStorage = resource.MustParse("100Gi")

// Node condition reasons and messages, worded as the kubelet's setters.
const (
	reasonReady        = "KubeletReady"
	reasonNotReady     = "KubeletNotReady"
	msgReady           = "kubelet is posting ready status"
	msgNetworkNotReady = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"
	reasonMemoryOK     = "KubeletHasSufficientMemory"
	msgMemoryOK        = "kubelet has sufficient memory available"
	reasonDiskOK       = "KubeletHasNoDiskPressure"
	msgDiskOK          = "kubelet has no disk pressure"
	reasonPIDOK        = "KubeletHasSufficientPID"
	msgPIDOK           = "kubelet has sufficient PID available"
	defaultKubeletVer  = kubeversion.Default
)

// nodeSpec is what the agent knows about one emulated node.
type nodeSpec struct {
	name    string
	pool    *v1alpha1.NodePool
	ip      string
	host    personality
	kubelet string
	// endpoint is the real address the kubelet API serves on, if any
	// (kubeletnode.go, internal/kubeletapi).
	endpoint netip.AddrPort
}

// pauseImage is the pool's sandbox image, else the default sandbox image
// of the kubelet's release.
func (s *nodeSpec) pauseImage() string {
	if s.pool.PauseImage != "" {
		return s.pool.PauseImage
	}
	if img := windows.DefaultPauseImage(s.kubeletMinor()); img != "" {
		return img
	}
	return windows.PauseImageSeed000
}

// kubeletMinor is the minor version of the emulated kubelet, the default
// release's when the version cannot be read.
func (s *nodeSpec) kubeletMinor() int {
	if m, err := kubeversion.ParseMinor(s.kubelet); err == nil {
		return m
	}
	return kubeversion.DefaultMinor
}

// labels are the labels the kubelet registers with (SCH-1, including the
// deprecated beta OS labels the kubelet still sets) plus the pool's own
// labels and winkube.io/pool.
func (s *nodeSpec) labels() map[string]string {
	l := map[string]string{}
	for k, v := range s.pool.Labels {
		l[k] = v
	}
	rt := s.host.Runtime()
	for k, v := range windows.NodeLabels(s.host.OS(), rt.Arch, rt.Build, s.kubeletMinor(), true) {
		l[k] = v
	}
	l[corev1.LabelHostname] = s.name
	l[LabelPool] = s.pool.Name
	return l
}

// capacity is cpu, memory, pods and ephemeral storage plus the OS extras.
func (s *nodeSpec) capacity() corev1.ResourceList {
	c := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(int64(s.pool.CPU), resource.DecimalSI),
		corev1.ResourcePods:             *resource.NewQuantity(int64(s.pool.MaxPods), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: defaultEphemeralStorage.DeepCopy(),
	}
	if s.pool.Memory != nil {
		c[corev1.ResourceMemory] = s.pool.Memory.DeepCopy()
	}
	for k, v := range s.host.ExtraCapacity() {
		c[k] = v
	}
	return c
}

// allocatable applies KLT-2 to the capacity.
func (s *nodeSpec) allocatable() corev1.ResourceList {
	return windows.Allocatable(s.capacity(), s.pool.KubeReserved, s.pool.SystemReserved, s.pool.EvictionHard)
}

// nodeInfo is node.status.nodeInfo (KLT-1). The IDs are derived from the
// node name so they survive an agent restart, in the format each OS's
// kubelet reports them (see machineIDs).
func (s *nodeSpec) nodeInfo() corev1.NodeSystemInfo {
	info := s.host.NodeInfo(s.kubelet)
	info.MachineID, info.SystemUUID, info.BootID = s.machineIDs()
	return info
}

// initialNode is the Node object the kubelet registers: labels, taints
// from --register-with-taints, and a first status.
func (s *nodeSpec) initialNode(now time.Time) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        s.name,
			Labels:      s.labels(),
			Annotations: map[string]string{annotationControllerManagedAttach: "true"},
		},
		Spec: corev1.NodeSpec{Taints: append([]corev1.Taint(nil), s.pool.Taints...)},
	}
	s.setStatus(n, false, now)
	return n
}

// setStatus fills node.Status the way the kubelet's status setters do.
// networkReady is false until the node has a pod CIDR.
func (s *nodeSpec) setStatus(n *corev1.Node, networkReady bool, now time.Time) {
	n.Status.Capacity, n.Status.Allocatable = withExtended(n.Status.Capacity, s.capacity(), s.allocatable())
	n.Status.NodeInfo = s.nodeInfo()
	n.Status.Addresses = s.addresses()
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = s.kubeletPort()
	s.markNodeIP(n)
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: reasonReady, Message: msgReady}
	if !networkReady {
		ready = corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: reasonNotReady, Message: msgNetworkNotReady}
	}
	conds := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: reasonMemoryOK, Message: msgMemoryOK},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: reasonDiskOK, Message: msgDiskOK},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: reasonPIDOK, Message: msgPIDOK},
		ready,
	}
	for _, c := range conds {
		setCondition(n, c, now)
	}
}

// setCondition updates or adds a condition. The transition time changes only
// when the status does; the heartbeat time changes on every post.
func setCondition(n *corev1.Node, c corev1.NodeCondition, now time.Time) {
	t := metav1.NewTime(now)
	c.LastHeartbeatTime = t
	for i := range n.Status.Conditions {
		old := &n.Status.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		c.LastTransitionTime = old.LastTransitionTime
		if old.Status != c.Status || c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = t
		}
		*old = c
		return
	}
	c.LastTransitionTime = t
	n.Status.Conditions = append(n.Status.Conditions, c)
}

// nodeReady reports whether the node's Ready condition is True.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// machineIDs are machineID, systemUUID and bootID. On Linux cAdvisor
// reads /etc/machine-id (32 hex digits), the DMI product UUID and the
// kernel's boot_id UUID. The Windows kubelet (pkg/kubelet/winstats,
// perfcounter_nodestats_windows.go getMachineInfo) reports the host name
// as machine ID, the registry's HardwareConfig LastConfig GUID without
// braces in upper case, and the BootId registry counter as a decimal
// integer.
func (s *nodeSpec) machineIDs() (machineID, systemUUID, bootID string) {
	if s.host.OS() == "windows" {
		boots := 1 + stableUint(s.name+"/boot-id")%200
		return s.name, strings.ToUpper(stableUUID(s.name + "/system-uuid")), strconv.FormatUint(boots, 10)
	}
	return stableHex(s.name+"/machine-id", 32), stableUUID(s.name + "/system-uuid"), stableUUID(s.name + "/boot-id")
}

// stableUint is a number derived from seed.
func stableUint(seed string) uint64 {
	sum := sha256.Sum256([]byte(seed))
	return binary.BigEndian.Uint64(sum[:8])
}

// nodeStatusChanged reports whether two node statuses differ in more than
// the conditions' heartbeat times, the test the kubelet applies before it
// posts a status ahead of nodeStatusReportFrequency.
func nodeStatusChanged(old, updated *corev1.NodeStatus) bool {
	strip := func(st *corev1.NodeStatus) *corev1.NodeStatus {
		c := st.DeepCopy()
		for i := range c.Conditions {
			c.Conditions[i].LastHeartbeatTime = metav1.Time{}
		}
		return c
	}
	return !equality.Semantic.DeepEqual(strip(old), strip(updated))
}

func stableHex(seed string, n int) string {
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:])[:n]
}

// stableUUID formats a hash of seed as a version-4-shaped UUID.
func stableUUID(seed string) string {
	h := stableHex(seed, 32)
	return fmt.Sprintf("%s-%s-4%s-a%s-%s", h[0:8], h[8:12], h[13:16], h[17:20], h[20:32])
}

// withExtended is the node's capacity and allocatable with the extended
// resources someone else added to its capacity kept, as the kubelet's
// MachineInfo setter keeps them: it sets its own resources in place, and
// allocatable follows capacity for every extended resource (e2e tests and
// operators patch example.com/... into nodes/status this way).
func withExtended(cur, capacity, allocatable corev1.ResourceList) (corev1.ResourceList, corev1.ResourceList) {
	for name, q := range cur {
		if _, own := capacity[name]; !own && v1helper.IsExtendedResourceName(name) {
			capacity[name] = q.DeepCopy()
			allocatable[name] = q.DeepCopy()
		}
	}
	return capacity, allocatable
}
