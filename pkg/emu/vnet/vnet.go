// Package vnet is the emulated pods' network, in process: a program that
// listens binds its pod's IP and port here (never a host socket), and a
// program that dials reaches another program's listener through a Router,
// which decides as the cluster's data plane would (DNS, Service load
// balancing, the Windows network rules). Connections are in-memory pipes
// whose ends carry the pod addresses, so a server sees its client's pod IP.
package vnet

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
)

// Host is one network namespace: a pod's, or a node's for hostNetwork
// pods and for the kubelet itself.
type Host struct {
	// IP is the pod's address (the node's for the host namespace).
	IP netip.Addr
	// Scope names the loopback interface: pods share 127.0.0.1 only with
	// the containers of their own pod (a pod UID, or "node/NAME").
	Scope string
	// Source is the host as the Router names it: pod/NS/NAME or node/NAME.
	Source string
	// DNSServers and DNSSearch are the pod's resolver settings, as
	// ipconfig /all and nslookup print them.
	DNSServers, DNSSearch []string
	// Outside marks a client outside the cluster (the machine running it):
	// its loopback is not a pod's, so a 127.x address it dials (a
	// LoadBalancer address served on the host's loopback) is routed.
	Outside bool
}

// HostPorter is what a Router may also do: forward a node's host ports
// to the pods that expose them (hostPort), before the node's own
// listeners see the connection, as the DNAT of the portmap CNI plugin
// (and HNS's port mappings on Windows) comes first.
type HostPorter interface {
	HostPort(src Host, proto string, dst netip.AddrPort) (netip.AddrPort, bool)
}

// Router decides where a connection goes once it leaves its own host.
type Router interface {
	// Route answers a connection from src to ip:port over proto ("tcp",
	// "udp" or "icmp"): the address whose listener takes it (a pod's, after
	// Service load balancing), or the error the dialling program sees.
	Route(src Host, proto string, dst netip.AddrPort) (netip.AddrPort, error)
	// Lookup resolves name with src's DNS settings.
	Lookup(ctx context.Context, src Host, name string) ([]netip.Addr, error)
}

// Fabric holds every listener of the emulated pods.
type Fabric struct {
	router Router

	mu        sync.RWMutex
	listeners map[key]*Listener
	ephemeral uint16 // next client port
}

// key is one bound port: an address (scope "") or a host's loopback.
type key struct {
	scope string
	addr  netip.Addr
	proto string
	port  int
}

// New is a fabric whose connections between hosts go through r.
func New(r Router) *Fabric {
	return &Fabric{router: r, listeners: map[key]*Listener{}, ephemeral: 32768}
}

var loopback = netip.MustParseAddr("127.0.0.1")

// Listen binds port on h's address and loopback, as a server that listens
// on all addresses of its pod. A port bound twice in one pod fails as the
// OS says it.
func (f *Fabric) Listen(h Host, proto string, port int) (*Listener, error) {
	return f.bind(h, proto, port, nil, false)
}

// Serve binds port like Listen, but runs handle on a new goroutine for
// each connection instead of queueing it for Accept.
func (f *Fabric) Serve(h Host, proto string, port int, handle func(net.Conn)) (*Listener, error) {
	return f.bind(h, proto, port, handle, false)
}

// ServeLoopback is Serve on h's loopback alone, as a server bound to
// 127.0.0.1: only the programs of its own pod reach it.
func (f *Fabric) ServeLoopback(h Host, proto string, port int, handle func(net.Conn)) (*Listener, error) {
	return f.bind(h, proto, port, handle, true)
}

func (f *Fabric) bind(h Host, proto string, port int, handle func(net.Conn), loopbackOnly bool) (*Listener, error) {
	proto = baseProto(proto)
	l := &Listener{fabric: f, addr: netip.AddrPortFrom(h.IP, uint16(port))}
	if loopbackOnly {
		l.addr = netip.AddrPortFrom(loopback, uint16(port))
	}
	l.keyBuf[0] = key{scope: h.Scope, addr: loopback, proto: proto, port: port}
	keys := l.keyBuf[:1]
	if h.IP.IsValid() && !loopbackOnly {
		keys = append(keys, key{addr: h.IP, proto: proto, port: port})
	}
	l.keys = keys
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range keys {
		if _, taken := f.listeners[k]; taken {
			return nil, &net.OpError{Op: "listen", Net: proto, Addr: tcpAddr(netip.AddrPortFrom(k.addr, uint16(port))), Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
		}
	}
	if handle == nil {
		l.backlog, l.closed = make(chan net.Conn, 128), make(chan struct{})
	}
	l.handle = handle
	for _, k := range keys {
		f.listeners[k] = l
	}
	return l, nil
}

// Dial connects h to address ("host:port", host an IP or a name h
// resolves). icmp dials test reachability and return a closed-ended conn.
func (f *Fabric) Dial(ctx context.Context, h Host, proto, address string) (net.Conn, error) {
	proto = baseProto(proto)
	dst, err := f.resolve(ctx, h, proto, address)
	if err != nil {
		return nil, err
	}
	if hp, ok := f.router.(HostPorter); ok && !h.Outside {
		if to, ok := hp.HostPort(h, proto, dst); ok {
			return f.connect(ctx, h, proto, dst, key{addr: to.Addr(), proto: proto, port: int(to.Port())})
		}
	}
	if dst.Addr().IsLoopback() && !h.Outside {
		return f.connect(ctx, h, proto, dst, key{scope: h.Scope, addr: loopback, proto: proto, port: int(dst.Port())})
	}
	to := dst
	if dst.Addr() != h.IP {
		if to, err = f.router.Route(h, proto, dst); err != nil {
			return nil, dialError(proto, dst, err)
		}
	}
	return f.connect(ctx, h, proto, dst, key{addr: to.Addr(), proto: proto, port: int(to.Port())})
}

// DialFrom connects the node-side host h (the kubelet, kube-apiserver's
// egress) straight to a pod or node address, as a node reaches its own
// pods: no Service routing, no policy in between.
func (f *Fabric) DialFrom(ctx context.Context, h Host, dst netip.AddrPort) (net.Conn, error) {
	return f.connect(ctx, h, "tcp", dst, key{addr: dst.Addr(), proto: "tcp", port: int(dst.Port())})
}

// Listening reports whether something listens on addr's TCP port.
func (f *Fabric) Listening(addr netip.AddrPort) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	_, ok := f.listeners[key{addr: addr.Addr(), proto: "tcp", port: int(addr.Port())}]
	return ok
}

func (f *Fabric) resolve(ctx context.Context, h Host, proto, address string) (netip.AddrPort, error) {
	host, port, err := splitHostPort(proto, address)
	if err != nil {
		return netip.AddrPort{}, &net.OpError{Op: "dial", Net: proto, Err: err}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		ips, lerr := f.router.Lookup(ctx, h, host)
		if lerr != nil {
			return netip.AddrPort{}, &net.OpError{Op: "dial", Net: proto, Err: lerr}
		}
		ip = ips[0]
	}
	return netip.AddrPortFrom(ip.Unmap(), port), nil
}

// connect hands one end of a pipe to the listener at k.
func (f *Fabric) connect(ctx context.Context, h Host, proto string, dst netip.AddrPort, k key) (net.Conn, error) {
	if proto == "icmp" {
		return closedConn(h, dst), nil
	}
	f.mu.Lock()
	l := f.listeners[k]
	f.ephemeral++
	if f.ephemeral < 32768 {
		f.ephemeral = 32768
	}
	local := netip.AddrPortFrom(h.IP, f.ephemeral)
	f.mu.Unlock()
	if dst.Addr().IsLoopback() || !h.IP.IsValid() {
		local = netip.AddrPortFrom(loopbackOr(dst.Addr()), local.Port())
	}
	if l == nil {
		return nil, dialError(proto, dst, syscall.ECONNREFUSED)
	}
	client, server := net.Pipe()
	c := &conn{Conn: client, local: local, remote: dst}
	s := &conn{Conn: server, local: netip.AddrPortFrom(k.addr, uint16(k.port)), remote: local}
	if l.handle != nil {
		if l.done.Load() {
			client.Close()
			server.Close()
			return nil, dialError(proto, dst, syscall.ECONNREFUSED)
		}
		go l.handle(s)
		return c, nil
	}
	select {
	case l.backlog <- s:
		return c, nil
	case <-l.closed:
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, dialError(proto, dst, ctx.Err())
	}
	client.Close()
	server.Close()
	return nil, dialError(proto, dst, syscall.ECONNREFUSED)
}

func loopbackOr(a netip.Addr) netip.Addr {
	if a.IsLoopback() {
		return a
	}
	return loopback
}

// dialError words a failed dial as Go's net package does, which is how the
// kubelet's probes and most programs print it: "dial tcp 10.1.0.5:80:
// connect: connection refused".
func dialError(proto string, dst netip.AddrPort, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		err = &os.SyscallError{Syscall: "connect", Err: err}
	}
	return &net.OpError{Op: "dial", Net: proto, Addr: tcpAddr(dst), Err: err}
}

func baseProto(p string) string {
	switch p {
	case "tcp4", "tcp6":
		return "tcp"
	case "udp4", "udp6":
		return "udp"
	case "ip4:icmp", "ip:icmp", "ip6:ipv6-icmp":
		return "icmp"
	}
	return p
}

func tcpAddr(a netip.AddrPort) *net.TCPAddr { return net.TCPAddrFromAddrPort(a) }
