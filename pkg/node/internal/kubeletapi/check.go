package kubeletapi

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeletCheckTimeout bounds the reachability check: an address the
// apiserver's packets vanish to would otherwise hang for its dial timeout.
const kubeletCheckTimeout = 20 * time.Second

// CheckReachable fails when the cluster's apiserver cannot reach
// the nodes' kubelets. It does nothing when the kubelet API is served
// in-process only.
//
// For a real address it asks the apiserver for the first node's /metrics
// through the node proxy and checks that this agent answered: another
// kubelet on the same address and port names another node. The node
// proxy refuses loopback addresses ("address not allowed"; logs, exec and
// port-forward do not), so for a loopback address it checks instead that
// the apiserver runs on this machine: that every address it advertises in
// the "kubernetes" Service is loopback or one of this machine's. kind's is
// its container's, which cannot reach this machine's loopback.
func (s *Server) CheckReachable(ctx context.Context) error {
	if s.serving == nil || len(s.cfg.Names) == 0 {
		return nil
	}
	name := s.cfg.Names[0]
	ep := s.endpoints[name]
	ctx, cancel := context.WithTimeout(ctx, kubeletCheckTimeout)
	defer cancel()
	if ep.Addr().IsLoopback() {
		return s.checkAPIServerLocal(ctx, ep)
	}
	body, err := s.cfg.Client.CoreV1().RESTClient().Get().
		AbsPath("/api/v1/nodes", name, "proxy", "metrics").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("the API server cannot reach node %s's kubelet at %s: %w%s", name, ep, err, snippet(body))
	}
	if !strings.Contains(string(body), fmt.Sprintf("kubelet_node_name{node=%q}", name)) {
		return fmt.Errorf("the API server reached another kubelet at %s, not node %s's", ep, name)
	}
	return nil
}

// checkAPIServerLocal fails when the apiserver advertises an address that
// is not this machine's, so it cannot reach ep on this machine's loopback.
func (s *Server) checkAPIServerLocal(ctx context.Context, ep netip.AddrPort) error {
	slices, err := s.cfg.Client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx,
		metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil {
		return err
	}
	local := localAddresses()
	for _, es := range slices.Items {
		for _, e := range es.Endpoints {
			for _, addr := range e.Addresses {
				ip, err := netip.ParseAddr(addr)
				if err == nil && !ip.IsLoopback() && !local[ip.Unmap()] {
					return fmt.Errorf("the API server is at %s, not on this machine, and cannot reach the kubelets on the loopback address %s", addr, ep.Addr())
				}
			}
		}
	}
	return nil
}

// localAddresses are this machine's interface addresses.
func localAddresses() map[netip.Addr]bool {
	out := map[netip.Addr]bool{}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out[p.Addr().Unmap()] = true
		}
	}
	return out
}

// snippet is the start of an error response's body, which client-go's
// error omits when it is not a Status ("address not allowed").
func snippet(body []byte) string {
	text := strings.TrimSpace(string(body))
	if text == "" || strings.HasPrefix(text, "{") {
		return ""
	}
	if len(text) > 200 {
		text = text[:200]
	}
	return ": " + text
}
