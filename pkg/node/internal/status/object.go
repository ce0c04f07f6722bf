// Package status is the Node object an emulated kubelet registers and
// reports: its labels (SCH-1), capacity and allocatable (KLT-2), nodeInfo
// (KLT-1), addresses, conditions and daemon endpoint, the patch of
// nodes/status that posts it, and the Lease that keeps the node alive. It
// is pure: the agent's heartbeat (pkg/node) calls the API with what it
// returns.
package status

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
	"github.com/winkube/winkube/pkg/node/internal/cri"
	"github.com/winkube/winkube/pkg/windows"
	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// AnnotationControllerManagedAttach tells the attach/detach controller
// that it attaches this node's volumes, as the kubelet's
// --enable-controller-attach-detach default does.
const AnnotationControllerManagedAttach = "volumes.kubernetes.io/controller-managed-attach-detach"

// Capacity every emulated node reports beyond the pool's cpu and memory.
var defaultEphemeralStorage = resource.MustParse("100Gi")

// Node condition reasons and messages, worded as the kubelet's setters.
const (
	ReasonReady        = "KubeletReady"
	ReasonNotReady     = "KubeletNotReady"
	msgReady           = "kubelet is posting ready status"
	MsgNetworkNotReady = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"
	reasonMemoryOK     = "KubeletHasSufficientMemory"
	msgMemoryOK        = "kubelet has sufficient memory available"
	reasonDiskOK       = "KubeletHasNoDiskPressure"
	msgDiskOK          = "kubelet has no disk pressure"
	reasonPIDOK        = "KubeletHasSufficientPID"
	msgPIDOK           = "kubelet has sufficient PID available"
)

// Host is what the node's OS personality says of the host.
type Host interface {
	// OS is the kubernetes.io/os value: "windows" or "linux".
	OS() string
	// Runtime is the emulated container runtime.
	Runtime() cri.Runtime
	// NodeInfo is node.status.nodeInfo (KLT-1) without machineID,
	// systemUUID and bootID, which are derived from the node name.
	NodeInfo(kubeletVersion string) corev1.NodeSystemInfo
	// ExtraCapacity is added to cpu/memory/pods/ephemeral-storage.
	ExtraCapacity() corev1.ResourceList
}

// Spec is what the agent knows about one emulated node.
type Spec struct {
	Name    string
	Pool    *v1alpha1.NodePool
	IP      string // the node's address on the emulated pod network
	Host    Host
	Kubelet string // the kubelet's version
	// Endpoint is the real address the kubelet API serves on, if any
	// (kubeletapi.Server.Listen).
	Endpoint netip.AddrPort
}

// PauseImage is the pool's sandbox image, else the default sandbox image
// of the kubelet's release.
func (s Spec) PauseImage() string {
	if s.Pool.PauseImage != "" {
		return s.Pool.PauseImage
	}
	if img := windows.DefaultPauseImage(s.KubeletMinor()); img != "" {
		return img
	}
	return windows.PauseImageSeed000
}

// KubeletMinor is the minor version of the emulated kubelet, the default
// release's when the version cannot be read.
func (s Spec) KubeletMinor() int {
	if m, err := kubeversion.ParseMinor(s.Kubelet); err == nil {
		return m
	}
	return kubeversion.DefaultMinor
}

// Labels are the labels the kubelet registers with (SCH-1, including the
// deprecated beta OS labels the kubelet still sets) plus the pool's own
// Labels and winkube.io/pool.
func (s Spec) Labels() map[string]string {
	l := map[string]string{}
	for k, v := range s.Pool.Labels {
		l[k] = v
	}
	rt := s.Host.Runtime()
	for k, v := range kubelet.NodeLabels(s.Host.OS(), rt.Arch, rt.Build, s.KubeletMinor(), true) {
		l[k] = v
	}
	l[corev1.LabelHostname] = s.Name
	l[annotations.LabelPool] = s.Pool.Name
	return l
}

// Capacity is cpu, memory, pods and ephemeral storage plus the OS extras.
func (s Spec) Capacity() corev1.ResourceList {
	c := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(int64(s.Pool.CPU), resource.DecimalSI),
		corev1.ResourcePods:             *resource.NewQuantity(int64(s.Pool.MaxPods), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: defaultEphemeralStorage.DeepCopy(),
	}
	if s.Pool.Memory != nil {
		c[corev1.ResourceMemory] = s.Pool.Memory.DeepCopy()
	}
	for k, v := range s.Host.ExtraCapacity() {
		c[k] = v
	}
	return c
}

// Allocatable applies KLT-2 to the capacity.
func (s Spec) Allocatable() corev1.ResourceList {
	return kubelet.Allocatable(s.Capacity(), s.Pool.KubeReserved, s.Pool.SystemReserved, s.Pool.EvictionHard)
}

// NodeInfo is node.status.nodeInfo (KLT-1). The IDs are derived from the
// node name so they survive an agent restart, in the format each OS's
// kubelet reports them (see machineIDs).
func (s Spec) NodeInfo() corev1.NodeSystemInfo {
	info := s.Host.NodeInfo(s.Kubelet)
	info.MachineID, info.SystemUUID, info.BootID = s.MachineIDs()
	return info
}

// InitialNode is the Node object the kubelet registers: labels, taints
// from --register-with-taints, and a first status.
func (s Spec) InitialNode(now time.Time) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        s.Name,
			Labels:      s.Labels(),
			Annotations: map[string]string{AnnotationControllerManagedAttach: "true"},
		},
		Spec: corev1.NodeSpec{Taints: append([]corev1.Taint(nil), s.Pool.Taints...)},
	}
	s.SetStatus(n, false, now)
	return n
}

// SetStatus fills node.Status the way the kubelet's status setters do.
// networkReady is false until the node has a pod CIDR.
func (s Spec) SetStatus(n *corev1.Node, networkReady bool, now time.Time) {
	n.Status.Capacity, n.Status.Allocatable = withExtended(n.Status.Capacity, s.Capacity(), s.Allocatable())
	n.Status.NodeInfo = s.NodeInfo()
	n.Status.Addresses = s.Addresses()
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = s.KubeletPort()
	s.MarkNodeIP(n)
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: ReasonReady, Message: msgReady}
	if !networkReady {
		ready = corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: ReasonNotReady, Message: MsgNetworkNotReady}
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

// Ready reports whether the node's Ready condition is True.
func Ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// MachineIDs are machineID, systemUUID and bootID. On Linux cAdvisor
// reads /etc/machine-id (32 hex digits), the DMI product UUID and the
// kernel's boot_id UUID. The Windows kubelet (pkg/kubelet/winstats,
// perfcounter_nodestats_windows.go getMachineInfo) reports the host name
// as machine ID, the registry's HardwareConfig LastConfig GUID without
// braces in upper case, and the BootId registry counter as a decimal
// integer.
func (s Spec) MachineIDs() (machineID, systemUUID, bootID string) {
	if s.Host.OS() == "windows" {
		boots := 1 + stableUint(s.Name+"/boot-id")%200
		return s.Name, strings.ToUpper(stableUUID(s.Name + "/system-uuid")), strconv.FormatUint(boots, 10)
	}
	return stableHex(s.Name+"/machine-id", 32), stableUUID(s.Name + "/system-uuid"), stableUUID(s.Name + "/boot-id")
}

// stableUint is a number derived from seed.
func stableUint(seed string) uint64 {
	sum := sha256.Sum256([]byte(seed))
	return binary.BigEndian.Uint64(sum[:8])
}

// StatusChanged reports whether two node statuses differ in more than
// the conditions' heartbeat times, the test the kubelet applies before it
// posts a status ahead of nodeStatusReportFrequency.
func StatusChanged(old, updated *corev1.NodeStatus) bool {
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
// Allocatable follows capacity for every extended resource (e2e tests and
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
