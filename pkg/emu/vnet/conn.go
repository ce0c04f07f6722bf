package vnet

import (
	"context"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Listener takes the connections made to one bound port.
type Listener struct {
	fabric  *Fabric
	keys    []key // in keyBuf: loopback, and the pod address if it has one
	keyBuf  [2]key
	addr    netip.AddrPort
	backlog chan net.Conn  // Accept's queue; nil for a Serve listener
	handle  func(net.Conn) // a Serve listener's handler
	closed  chan struct{}  // closed by Close; only an Accept listener has one
	done    atomic.Bool    // Close was called
	once    sync.Once
	scope   atomic.Pointer[scope] // the process scope that closes it, if any
}

// Accept waits for the next connection; it fails once the listener is
// closed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.backlog:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close unbinds the port and refuses the connections not yet accepted.
func (l *Listener) Close() error {
	l.once.Do(func() {
		l.fabric.mu.Lock()
		for _, k := range l.keys {
			if l.fabric.listeners[k] == l {
				delete(l.fabric.listeners, k)
			}
		}
		l.done.Store(true)
		if l.closed != nil {
			close(l.closed)
		}
		l.fabric.mu.Unlock()
		if s := l.scope.Load(); s != nil {
			s.forget(l)
		}
		for l.backlog != nil {
			select {
			case c := <-l.backlog:
				c.Close()
			default:
				return
			}
		}
	})
	return nil
}

// Addr is the pod address and port the listener is bound to.
func (l *Listener) Addr() net.Addr { return tcpAddr(l.addr) }

// conn is one end of a pipe with the pod addresses of both ends.
type conn struct {
	net.Conn
	local, remote netip.AddrPort
}

func (c *conn) LocalAddr() net.Addr  { return tcpAddr(c.local) }
func (c *conn) RemoteAddr() net.Addr { return tcpAddr(c.remote) }

// closedConn answers an icmp "dial": the echo was answered, nothing more.
func closedConn(h Host, dst netip.AddrPort) net.Conn {
	a, b := net.Pipe()
	b.Close()
	return &conn{Conn: a, local: netip.AddrPortFrom(h.IP, 0), remote: dst}
}

// splitHostPort parses "host:port" (a bare host for icmp).
func splitHostPort(proto, address string) (string, uint16, error) {
	if proto == "icmp" {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			host = address
		}
		return host, 0, nil
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", 0, &net.AddrError{Err: "invalid port", Addr: address}
	}
	return host, uint16(n), nil
}

// Net is h's view of the fabric, as its programs see it. It keeps h
// (a pod's containers share their pod's), which must not change.
func (f *Fabric) Net(h *Host) program.Net { return hostNet{f: f, h: h} }

type hostNet struct {
	f *Fabric
	h *Host
}

// PodIP is the pod's address (ipconfig, Test-NetConnection print it).
func (n hostNet) PodIP() string {
	if !n.h.IP.IsValid() {
		return ""
	}
	return n.h.IP.String()
}

// DNSServers and DNSSearch are the pod's resolver settings.
func (n hostNet) DNSServers() []string { return n.h.DNSServers }
func (n hostNet) DNSSearch() []string  { return n.h.DNSSearch }

func (n hostNet) LookupHost(ctx context.Context, name string) ([]string, error) {
	if ip, err := netip.ParseAddr(name); err == nil {
		return []string{ip.String()}, nil
	}
	ips, err := n.f.router.Lookup(ctx, *n.h, name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out, nil
}

func (n hostNet) Dial(ctx context.Context, network, address string) (io.ReadWriteCloser, error) {
	return n.f.Dial(ctx, *n.h, network, address)
}

// Listen binds port until ctx is done or the program closes it.
func (n hostNet) Listen(ctx context.Context, network string, port int) (program.Listener, error) {
	l, err := n.f.Listen(*n.h, network, port)
	if err != nil {
		return nil, err
	}
	closeWith(ctx, l)
	return programListener{l}, nil
}

// Serve implements program.Server.
func (n hostNet) Serve(ctx context.Context, network string, port int, handle func(io.ReadWriteCloser)) error {
	l, err := n.f.Serve(*n.h, network, port, func(c net.Conn) { handle(c) })
	if err != nil {
		return err
	}
	closeWith(ctx, l)
	return nil
}

// ServeLoopback is Serve on the pod's loopback alone.
func (n hostNet) ServeLoopback(ctx context.Context, network string, port int, handle func(io.ReadWriteCloser)) error {
	l, err := n.f.ServeLoopback(*n.h, network, port, func(c net.Conn) { handle(c) })
	if err != nil {
		return err
	}
	closeWith(ctx, l)
	return nil
}

var _ program.Server = hostNet{}

// programListener narrows Accept to program.Listener's signature.
type programListener struct{ *Listener }

func (l programListener) Accept() (io.ReadWriteCloser, error) { return l.Listener.Accept() }

// Unwrap gives programs that want a net.Listener (net/http) the listener.
func (l programListener) Unwrap() net.Listener { return l.Listener }
