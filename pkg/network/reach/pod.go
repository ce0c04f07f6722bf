package reach

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network"
)

// toPod delivers to a pod's address from src (a pod, a node, or a node's
// load balancer forwarding for someone else).
func (c *Checker) toPod(w *walk, src *source, p *corev1.Pod, port int) {
	name := p.Namespace + "/" + p.Name
	if !hasNetwork(p) {
		w.fail(fmt.Sprintf("pod %s is not running (phase %s)", name, p.Status.Phase))
		return
	}
	if src.external() {
		w.fail(fmt.Sprintf("pod IPs are not routed outside the cluster: reach pod %s through a NodePort or LoadBalancer Service", name))
		return
	}
	dst := c.m.Node(p.Spec.NodeName)
	if dst == nil {
		w.fail(fmt.Sprintf("pod %s runs on node %s, which the cluster does not list", name, p.Spec.NodeName))
		return
	}
	if c.endpointsDeleted(w, dst) {
		return
	}
	if w.res.Backend == "" {
		w.res.Backend = "pod/" + name
	}
	where := fmt.Sprintf("pod %s (%s", name, p.Status.PodIP)
	if port > 0 {
		where += fmt.Sprintf(":%d", port)
	}
	where += ")"
	if dst.Name == src.node.Name {
		if !w.quiet {
			w.hop(dst.Name, "delivered locally to %s%s", where, networkNote(dst))
		}
		w.pass("delivered to "+where, "NET-9")
		return
	}
	if !c.crossNode(w, src, dst) {
		return
	}
	if !w.quiet {
		w.hop(dst.Name, "delivered to %s%s", where, networkNote(dst))
	}
	w.pass("delivered to "+where, "NET-9")
}

// crossNode carries a packet from src's node to dst over the pod network:
// VXLAN (overlay) or a host-gw route (l2bridge).
func (c *Checker) crossNode(w *walk, src *source, dst *network.Node) bool {
	from := src.node
	if src.pod == nil && !src.forwarded && from.OS == "windows" && from.Mode == "overlay" {
		w.fail(fmt.Sprintf("a Windows node on a flannel VXLAN network reaches only its own pods; the pod runs on %s", dst.Name), "NET-11")
		return false
	}
	for _, n := range []*network.Node{from, dst} {
		if reason, refused := c.overlayRefused(n); refused {
			w.fail(reason, "NET-2")
			return false
		}
	}
	f := c.m.Cluster.Flannel
	if f.Backend == "host-gw" {
		if !w.quiet {
			w.hop(from.Name, "host-gw route to %s via %s", dst.PodCIDR, dst.InternalIP)
		}
		return true
	}
	if !w.quiet {
		w.hop(from.Name, "VXLAN (VNI %d, UDP %d) %s → %s", f.VNI, f.Port, from.InternalIP, dst.InternalIP)
	}
	if src.forwarded && from.OS == "windows" {
		w.rule("KP-4")
	}
	return true
}

// overlayRefused reports whether flanneld on a Windows node refuses the
// cluster's VXLAN settings: it needs VNI 4096 or above and UDP port 4789
// (the seeds require exactly 4096 and 4789), so the node has no overlay.
func (c *Checker) overlayRefused(n *network.Node) (string, bool) {
	f := c.m.Cluster.Flannel
	if n.OS != "windows" || f.Backend != "vxlan" {
		return "", false
	}
	if f.VNI < 4096 || f.Port != 4789 {
		return fmt.Sprintf("flannel on Windows node %s refuses VXLAN VNI %d / port %d (Windows needs VNI 4096 and port 4789), so the node has no overlay network", n.Name, f.VNI, f.Port), true
	}
	return "", false
}

// endpointsDeleted fails the walk when kube-proxy on a Windows node runs
// with a --hostname-override other than the node name: it takes the node's
// own endpoints for stale ones and deletes them (KP-8).
func (c *Checker) endpointsDeleted(w *walk, n *network.Node) bool {
	if n == nil || n.OS != "windows" {
		return false
	}
	if f := findingOf(n.Findings, "KP-8"); f != nil {
		w.fail(fmt.Sprintf("pods on %s have no network: %s", n.Name, f.Message), "KP-8", "TS-5")
		return true
	}
	return false
}

func networkNote(n *network.Node) string {
	if n.OS != "windows" || len(n.HNS.Networks) == 0 {
		return ""
	}
	net := n.HNS.Networks[0]
	return fmt.Sprintf(" on HNS network %s (%s)", net.Name, net.Type)
}
