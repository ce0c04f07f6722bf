package node

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sort"
	"strconv"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/node/internal/kubeletapi"
)

// DialCluster answers kube-apiserver's connections to pod and Service
// addresses (pods/proxy, services/proxy, admission webhooks and aggregated
// APIs served by emulated pods) through the pod network, as if the
// apiserver ran on the first Linux node. handled is false for addresses the
// cluster does not know; the caller refuses those.
func (a *Agent) DialCluster(ctx context.Context, addr string) (conn net.Conn, handled bool, err error) {
	dst, err := netip.ParseAddrPort(addr)
	if err != nil || !a.router.Model().Known(dst.Addr().Unmap()) {
		return nil, false, nil
	}
	conn, err = a.fabric.Dial(ctx, a.controlPlaneHost(), "tcp", addr)
	return conn, true, err
}

// controlPlaneHost is where the apiserver's cluster traffic starts: a
// Linux node's address (a kubeadm control plane is one), with a loopback
// of its own.
func (a *Agent) controlPlaneHost() vnet.Host {
	names := append([]string(nil), a.names...)
	sort.Strings(names)
	pick := names[0]
	for _, name := range names {
		if a.nodes[name].spec.host.Runtime().OS != "windows" {
			pick = name
			break
		}
	}
	ip, _ := netip.ParseAddr(a.nodes[pick].spec.ip)
	return vnet.Host{IP: ip, Scope: "kube-apiserver", Source: "node/" + pick}
}

// DialFromOutside connects a client outside the cluster (the machine that
// runs `winkube up`, through a LoadBalancer address served on its
// loopback) to addr, a Service's load balancer or external IP or a node's
// NodePort, through the same model: externalTrafficPolicy, the Windows
// load balancers and the nodes' NodePorts decide, as for `winkube net
// check external ...`.
func (a *Agent) DialFromOutside(ctx context.Context, addr string) (net.Conn, error) {
	return a.fabric.Dial(ctx, vnet.Host{Scope: "external", Source: "external", Outside: true}, "tcp", addr)
}

// serveKubeletPorts puts each node's kubelet API on its address's port
// 10250 of the pod network, so that a pod reaches it as on a real node
// (metrics-server, `net check pod/... node/NAME --port 10250`). Nothing
// waits while no one connects.
func (a *Agent) serveKubeletPorts(ctx context.Context) {
	for _, n := range a.nodes {
		ip, err := netip.ParseAddr(n.spec.ip)
		if err != nil {
			continue
		}
		addr := net.JoinHostPort(n.spec.ip, strconv.Itoa(kubeletapi.Port))
		l, err := a.fabric.Serve(vnet.Host{IP: ip, Scope: "node/" + n.spec.name}, "tcp", kubeletapi.Port, func(c net.Conn) {
			defer c.Close()
			k, _, err := a.DialKubelet(addr)
			if err != nil || k == nil {
				return
			}
			defer k.Close()
			pipe(ctx, c, k)
		})
		if err == nil {
			context.AfterFunc(ctx, func() { l.Close() })
		}
	}
}

// pipe copies both ways until either side ends or ctx is done; the
// caller's closes end the other copy.
func pipe(ctx context.Context, a, b io.ReadWriter) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(a, b); done <- struct{}{} }()
	go func() { _, _ = io.Copy(b, a); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// serveAPIServer answers the endpoints of the "kubernetes" Service on the
// pod network with kube-apiserver itself, so that a pod's in-cluster
// client (10.96.0.1:443 → the endpoint → here) reaches the API as on a
// real cluster. The connection goes to the address the agent itself uses,
// which is the API server's and nothing else.
func (a *Agent) serveAPIServer(ctx, runCtx context.Context) {
	if a.apiserver == "" {
		return
	}
	slices, err := a.client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx,
		metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil {
		a.report(fmt.Errorf("pods will not reach the API server: %w", err))
		return
	}
	for _, es := range slices.Items {
		for _, p := range es.Ports {
			if p.Port == nil {
				continue
			}
			for _, ep := range es.Endpoints {
				for _, addr := range ep.Addresses {
					a.serveAPIServerAt(runCtx, addr, int(*p.Port))
				}
			}
		}
	}
}

func (a *Agent) serveAPIServerAt(ctx context.Context, addr string, port int) {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return
	}
	l, err := a.fabric.Serve(vnet.Host{IP: ip, Scope: "kube-apiserver"}, "tcp", port, func(c net.Conn) {
		defer c.Close()
		var d net.Dialer
		up, err := d.DialContext(ctx, "tcp", a.apiserver)
		if err != nil {
			return
		}
		defer up.Close()
		pipe(ctx, c, up)
	})
	if err == nil {
		a.router.ControlPlane(netip.AddrPortFrom(ip, uint16(port)))
		context.AfterFunc(ctx, func() { l.Close() })
	}
}
