package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

// KubeletServing puts the nodes' kubelet API on real TCP listeners, for a
// cluster whose kube-apiserver runs in another process or machine
// (`winkube nodes`). Without it the API is served in-process only
// (Agent.DialKubelet, for `winkube up`'s egress proxy).
//
// kube-apiserver reaches a node's kubelet at its preferred address
// (kubeadm, kind, k3s and winkube all prefer InternalIP) and
// status.daemonEndpoints.kubeletEndpoint.Port. Every emulated node runs in
// this one process on one real address, and the apiserver sends no TLS
// server name for an IP address, so one shared port could not tell the
// nodes apart for node-level paths (/stats/summary, /metrics, /pods).
// Hence one port per node on the real address: Port, Port+1, ... in node
// name order (each picked by the system when Port is 0). That works with
// an unmodified apiserver; the price is that each node's InternalIP in
// the API is the real address. The node's address on the emulated pod
// network rides along in AnnotationNodeIP, and every agent reads nodes
// through nodeView, so the emulated network model still sees each node at
// its own emulated address.
type KubeletServing struct {
	// Listen is the address to bind; an unspecified address (0.0.0.0, ::)
	// binds every interface and advertises Advertise.
	Listen netip.Addr
	// Advertise is the nodes' InternalIP in the API: Listen, unless Listen
	// is unspecified.
	Advertise netip.Addr
	// Port is the first node's port; 0 lets the system pick each.
	Port int
	// Cert, when set, serves every node; otherwise each node serves a
	// self-signed certificate until the certificates API issues one
	// (RequestServingCerts).
	Cert *tls.Certificate
	// ClientCA is the PEM bundle of the CAs whose client certificates the
	// listeners accept, as a kubelet's authentication.x509.clientCAFile:
	// kube-apiserver's --kubelet-client-certificate is signed by one.
	// Nil accepts none, only bearer tokens. Either way each request's
	// identity must be allowed the node's subresource by a
	// SubjectAccessReview (kubeletauth.go).
	ClientCA []byte
}

// AnnotationNodeIP is the node's address on the emulated pod network when
// its InternalIP in the API is the real address its kubelet serves on.
const AnnotationNodeIP = annotations.EmulatedNodeIP

// ListenError is a kubelet listener that could not be bound.
type ListenError struct {
	Addr string
	Node string
	Err  error
}

func (e *ListenError) Error() string {
	return fmt.Sprintf("cannot serve the kubelet API of node %s on %s: %v", e.Node, e.Addr, e.Err)
}

func (e *ListenError) Unwrap() error { return e.Err }

// listen binds one listener per node, in node name order, and records
// each node's endpoint before it registers. It binds all or none.
func (s *kubeletServer) listen(o *KubeletServing) error {
	if o == nil {
		return nil
	}
	if !o.Advertise.IsValid() || o.Advertise.IsUnspecified() {
		return errors.New("node agent: KubeletServing.Advertise must be a specific address")
	}
	auth, err := newKubeletAuth(s.agent.client, o.ClientCA)
	if err != nil {
		return err
	}
	s.guard(auth)
	s.serving = o
	for i, name := range s.agent.names {
		port := 0
		if o.Port > 0 {
			port = o.Port + i
		}
		addr := net.JoinHostPort(o.Listen.String(), strconv.Itoa(port))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			s.closeListeners()
			return &ListenError{Addr: addr, Node: name, Err: err}
		}
		s.listeners = append(s.listeners, l)
		bound := l.Addr().(*net.TCPAddr).Port
		s.agent.nodes[name].spec.endpoint = netip.AddrPortFrom(o.Advertise, uint16(bound))
	}
	for i, l := range s.listeners {
		go s.accept(l, s.agent.names[i])
	}
	return nil
}

// accept hands the connections of one node's listener to the server,
// marked with the node as DialKubelet's are.
func (s *kubeletServer) accept(l net.Listener, node string) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		s.once.Do(s.start)
		if s.startErr != nil || !s.ln.push(tls.Server(nodeConn{externalConn{c}, node}, s.clientCertTLS())) {
			c.Close()
		}
	}
}

// externalConn is a connection accepted on a real listener, which anyone
// who reaches the port may have opened.
type externalConn struct{ net.Conn }

// guard puts auth in front of the kubelet API for connections from the
// real listeners, and marks those connections so that it can tell them
// from DialKubelet's. It runs before the server does.
func (s *kubeletServer) guard(auth *kubeletAuth) {
	s.server.Handler = auth.guard(s.server.Handler)
	connContext := s.server.ConnContext
	s.server.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		ctx = connContext(ctx, c)
		if tc, ok := c.(*tls.Conn); ok {
			if nc, ok := tc.NetConn().(nodeConn); ok {
				if _, ok := nc.Conn.(externalConn); ok {
					ctx = context.WithValue(ctx, externalKey{}, true)
				}
			}
		}
		return ctx
	}
}

// clientCertTLS is the serving configuration that asks for a client
// certificate, as a kubelet does; the authenticator verifies it against
// ClientCA, so a connection without one or with another is still served
// (and answered 401 unless it carries a token).
func (s *kubeletServer) clientCertTLS() *tls.Config {
	c := s.tls.Clone()
	c.ClientAuth = tls.RequestClientCert
	return c
}

func (s *kubeletServer) closeListeners() {
	for _, l := range s.listeners {
		_ = l.Close()
	}
}

// KubeletEndpoints lists each node's kubelet address, by node name; empty
// when the kubelet API is served in-process only.
func (a *Agent) KubeletEndpoints() map[string]netip.AddrPort {
	out := map[string]netip.AddrPort{}
	for name, n := range a.nodes {
		if n.spec.endpoint.IsValid() {
			out[name] = n.spec.endpoint
		}
	}
	return out
}

// addresses are node.status.addresses: the InternalIP apiservers dial
// (the real kubelet address when there is one) and the hostname.
func (s *nodeSpec) addresses() []corev1.NodeAddress {
	ip := s.ip
	if s.endpoint.IsValid() {
		ip = s.endpoint.Addr().String()
	}
	return []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: ip},
		{Type: corev1.NodeHostName, Address: s.name},
	}
}

// kubeletPort is status.daemonEndpoints.kubeletEndpoint.port.
func (s *nodeSpec) kubeletPort() int32 {
	if s.endpoint.IsValid() {
		return int32(s.endpoint.Port())
	}
	return kubeletPort
}

// markNodeIP records the emulated address beside a real InternalIP.
func (s *nodeSpec) markNodeIP(n *corev1.Node) {
	if !s.endpoint.IsValid() {
		return
	}
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Annotations[AnnotationNodeIP] = s.ip
}

// nodeView is the informers' transform: it drops managed fields and shows
// a node whose kubelet serves on a real address (AnnotationNodeIP) at its
// emulated address, which is what the pod network model and the agent's
// status comparisons work with.
func nodeView(obj any) (any, error) {
	obj, err := dropManagedFields(obj)
	if n, ok := obj.(*corev1.Node); ok {
		emulatedAddress(n)
	}
	return obj, err
}

// emulatedAddress replaces the InternalIP of a node with a real kubelet
// address by its emulated one.
func emulatedAddress(n *corev1.Node) {
	ip := n.Annotations[AnnotationNodeIP]
	if ip == "" {
		return
	}
	for i := range n.Status.Addresses {
		if n.Status.Addresses[i].Type == corev1.NodeInternalIP {
			n.Status.Addresses[i].Address = ip
			return
		}
	}
}
