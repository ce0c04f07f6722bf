package kubeletapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Server answers what kube-apiserver asks a kubelet on port 10250:
// container logs (what the container's process printed), exec, attach
// and port-forward (streaming.go), the read-only API (/pods, /configz,
// /stats/summary, /metrics, see readonly.go). The embedded control plane
// hands it connections through Dial, so the nodes' addresses need not be
// routable; with Serving it also listens on a real address, one port per
// node (listen.go).
type Server struct {
	cfg      Config
	ln       *pipeListener
	started  time.Time // the nodes' boot: CPU counters count from here
	server   *http.Server
	tls      *tls.Config
	certs    *servingCerts
	startErr error
	once     sync.Once
	// serving, listeners and endpoints are set by Listen, before the
	// nodes register.
	serving   *Serving
	listeners []net.Listener
	endpoints map[string]netip.AddrPort
	// ctx ends the server's own goroutines (certificate waits), wg
	// counts them.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New makes the server of cfg's nodes; it serves from the first Dial or
// accepted connection on.
func New(cfg Config) *Server {
	if cfg.Progress == nil {
		cfg.Progress = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, ln: newPipeListener(), started: time.Now().Truncate(time.Second),
		endpoints: map[string]netip.AddrPort{}, ctx: ctx, cancel: cancel}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", s.logs)
	s.routeReadOnly(mux)
	s.routeStreaming(mux)
	mux.HandleFunc("/run/", s.noRun)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	s.server = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*tls.Conn); ok {
				if nc, ok := tc.NetConn().(nodeConn); ok {
					return context.WithValue(ctx, nodeKey{}, nc.node)
				}
			}
			return ctx
		},
	}
	return s
}

// nodeKey carries the node a connection was dialled for.
type nodeKey struct{}

// nodeConn is the server end of one connection to a node's kubelet.
type nodeConn struct {
	net.Conn
	node string
}

// Dial connects to the kubelet API of the named node, in memory.
func (s *Server) Dial(node string) (net.Conn, error) {
	s.once.Do(s.start)
	if s.startErr != nil {
		return nil, s.startErr
	}
	client, server := net.Pipe()
	if !s.ln.push(tls.Server(nodeConn{server, node}, s.tls)) {
		client.Close()
		return nil, errors.New("the node agent is stopping")
	}
	return client, nil
}

// start makes the serving certificates and serves.
func (s *Server) start() {
	certs, err := s.newServingCerts()
	if err != nil {
		s.startErr = fmt.Errorf("kubelet serving certificate: %w", err)
		return
	}
	s.certs = certs
	// HTTP/1.1 only: exec and port-forward are upgrades, which HTTP/2 lacks.
	s.tls = &tls.Config{GetCertificate: certs.get, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}
	go func() { _ = s.server.Serve(s.ln) }()
}

// Close stops serving, drops open connections (followed logs) and waits
// for the server's goroutines.
func (s *Server) Close() {
	s.cancel()
	s.closeListeners()
	_ = s.ln.Close()
	_ = s.server.Close()
	s.wg.Wait()
}

// noRun refuses /run, which kubectl no longer calls (exec replaced it).
func (s *Server) noRun(w http.ResponseWriter, r *http.Request) {
	node, _ := r.Context().Value(nodeKey{}).(string)
	http.Error(w, fmt.Sprintf("winkube: %s is an emulated node that does not serve the kubelet's legacy /run endpoint; use exec", node),
		http.StatusNotImplemented)
}

// pipeListener hands in-memory connections to an http.Server.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// push gives the server a connection; false once the listener is closed.
func (l *pipeListener) push(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.closed:
		return false
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "kubelet" }
