package node

import (
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/node/internal/status"
)

// LabelPool is the label winkube adds to a node: the name of its pool.
const LabelPool = annotations.LabelPool

// defaultKubeletVer is the version the emulated kubelets report unless
// Options.KubeletVersion says otherwise.
const defaultKubeletVer = kubeversion.Default

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

// object is the spec as the node object's builder takes it.
func (s *nodeSpec) object() status.Spec {
	return status.Spec{Name: s.name, Pool: s.pool, IP: s.ip, Host: s.host, Kubelet: s.kubelet, Endpoint: s.endpoint}
}

func (s *nodeSpec) labels() map[string]string              { return s.object().Labels() }
func (s *nodeSpec) capacity() corev1.ResourceList          { return s.object().Capacity() }
func (s *nodeSpec) allocatable() corev1.ResourceList       { return s.object().Allocatable() }
func (s *nodeSpec) pauseImage() string                     { return s.object().PauseImage() }
func (s *nodeSpec) initialNode(now time.Time) *corev1.Node { return s.object().InitialNode(now) }
func (s *nodeSpec) setStatus(n *corev1.Node, networkReady bool, now time.Time) {
	s.object().SetStatus(n, networkReady, now)
}
