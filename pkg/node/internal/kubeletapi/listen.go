package kubeletapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// Serving puts the nodes' kubelet API on real TCP listeners, for a
// cluster whose kube-apiserver runs in another process or machine
// (`winkube nodes`). Without it the API is served in-process only
// (Server.Dial, for `winkube up`'s egress proxy).
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
type Serving struct {
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
	// SubjectAccessReview (auth.go).
	ClientCA []byte
}

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

// Listen binds one listener per node, in node name order, and returns
// each node's endpoint, which the node must advertise before it
// registers. It binds all or none; nil serves in-process only.
func (s *Server) Listen(o *Serving) (map[string]netip.AddrPort, error) {
	if o == nil {
		return nil, nil
	}
	if !o.Advertise.IsValid() || o.Advertise.IsUnspecified() {
		return nil, errors.New("node agent: KubeletServing.Advertise must be a specific address")
	}
	auth, err := newKubeletAuth(s.cfg.Client, o.ClientCA)
	if err != nil {
		return nil, err
	}
	s.guard(auth)
	s.serving = o
	for i, name := range s.cfg.Names {
		port := 0
		if o.Port > 0 {
			port = o.Port + i
		}
		addr := net.JoinHostPort(o.Listen.String(), strconv.Itoa(port))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			s.closeListeners()
			return nil, &ListenError{Addr: addr, Node: name, Err: err}
		}
		s.listeners = append(s.listeners, l)
		bound := l.Addr().(*net.TCPAddr).Port
		s.endpoints[name] = netip.AddrPortFrom(o.Advertise, uint16(bound))
	}
	for i, l := range s.listeners {
		go s.accept(l, s.cfg.Names[i])
	}
	return s.endpoints, nil
}

// accept hands the connections of one node's listener to the server,
// marked with the node as Dial's are.
func (s *Server) accept(l net.Listener, node string) {
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
// from Dial's. It runs before the server does.
func (s *Server) guard(auth *kubeletAuth) {
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
func (s *Server) clientCertTLS() *tls.Config {
	c := s.tls.Clone()
	c.ClientAuth = tls.RequestClientCert
	return c
}

func (s *Server) closeListeners() {
	for _, l := range s.listeners {
		_ = l.Close()
	}
}

// port is the port the node's kubelet serves on: its real listener's, or
// the kubelet's own in-process.
func (s *Server) port(node string) int32 {
	if ep, ok := s.endpoints[node]; ok {
		return int32(ep.Port())
	}
	return Port
}
