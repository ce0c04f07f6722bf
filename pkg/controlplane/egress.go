package controlplane

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/winkube/winkube/internal/connset"
)

// NodeDialer connects to addr ("host:port") on behalf of kube-apiserver,
// which dials nodes and pods by their API addresses for logs, exec, port
// forwarding and proxying. It lets emulated nodes, pods and Services, whose
// addresses route nowhere, answer in-process. Returning handled=false
// leaves addr to the proxy, which dials it only when it is a loopback
// address (winkube's own webhook and metrics servers) and refuses every
// other one: the cluster's traffic never leaves the machine.
type NodeDialer func(ctx context.Context, addr string) (conn net.Conn, handled bool, err error)

// egressConfig is kube-apiserver's EgressSelectorConfiguration: its
// "cluster" traffic (to nodes, pods and services) goes through an HTTP
// CONNECT proxy on a Unix socket, served by this process (egressProxy).
const egressConfig = `apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: cluster
  connection:
    proxyProtocol: HTTPConnect
    transport:
      uds:
        udsName: %s
`

// maxSocketPath is the longest Unix socket path Linux accepts (sun_path
// holds 108 bytes with the terminating NUL).
const maxSocketPath = 107

// egressProxy answers kube-apiserver's CONNECT requests with connections
// from a NodeDialer.
type egressProxy struct {
	ln     net.Listener
	path   string
	dial   NodeDialer
	direct func(ctx context.Context, network, addr string) (net.Conn, error) // nil: a net.Dialer; tests count calls
	ctx    context.Context
	cancel context.CancelFunc
	conns  connset.Set
	wg     sync.WaitGroup
}

// startEgressProxy listens on the layout's socket and writes the config
// file that points kube-apiserver at it.
func startEgressProxy(l *layout) (*egressProxy, error) {
	path := l.egressSocket()
	_ = os.Remove(path) // left by a killed predecessor; the data dir lock is ours
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	if err := os.WriteFile(l.egressConfigFile(), fmt.Appendf(nil, egressConfig, path), 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("data dir %s is not writable: %w", l.opts.DataDir, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &egressProxy{ln: ln, path: path, dial: l.opts.NodeDialer, direct: l.direct, ctx: ctx, cancel: cancel}
	p.wg.Go(p.serve)
	return p, nil
}

func (p *egressProxy) serve() { p.conns.Serve(p.ln, &p.wg, p.handle) }

// handle reads one CONNECT request, dials, answers, then copies both ways.
func (p *egressProxy) handle(c net.Conn) {
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	if req.Method != http.MethodConnect {
		io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	upstream, err := p.connect(ctx, req.Host)
	cancel()
	if err != nil {
		fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n\r\n%v\n", err)
		return
	}
	if !p.conns.Track(upstream) {
		upstream.Close()
		return
	}
	defer p.conns.Untrack(upstream)
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	done := make(chan struct{}, 2)
	go func() { _, _ = br.WriteTo(upstream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, upstream); done <- struct{}{} }()
	<-done // either side ending ends the tunnel; the deferred closes end the other copy
}

// connect asks the NodeDialer first, then dials loopback addresses
// directly and refuses the rest.
func (p *egressProxy) connect(ctx context.Context, addr string) (net.Conn, error) {
	if p.dial != nil {
		if conn, handled, err := p.dial(ctx, addr); handled {
			return conn, err
		}
	}
	if err := loopbackOnly(addr); err != nil {
		return nil, err
	}
	dial := p.direct
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	return dial(ctx, "tcp", addr)
}

// loopbackOnly refuses an address that is not a literal loopback IP. Names
// are refused too: resolving them would ask the host's resolver, and
// whatever they resolve to is not the emulated cluster's.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("egress to %q refused: not a host:port address", addr)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("egress to %s refused: it is not an emulated node, pod or Service address, and winkube's cluster dials nothing outside this machine's loopback", addr)
}

// close stops accepting, ends every tunnel and removes the socket.
func (p *egressProxy) close() {
	p.cancel()
	p.ln.Close()
	p.conns.Close()
	p.wg.Wait()
	_ = os.Remove(p.path)
}
