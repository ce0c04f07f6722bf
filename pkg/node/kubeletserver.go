package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// kubeletServer answers what kube-apiserver asks a kubelet on port 10250:
// container logs (what the container's process printed), exec and attach
// (exec.go), the read-only API (/pods, /configz, /stats/summary,
// /metrics, see kubeletapi.go), and a clear refusal for port-forward,
// since the programs serve on no network yet. The embedded control plane
// hands it connections through Agent.DialKubelet, so the nodes' addresses
// need not be routable; with KubeletServing it also listens on a real
// address, one port per node (kubeletlisten.go).
type kubeletServer struct {
	agent    *Agent
	ln       *pipeListener
	started  time.Time // the nodes' boot: CPU counters count from here
	server   *http.Server
	tls      *tls.Config
	certs    *servingCerts
	startErr error
	once     sync.Once
	// serving and listeners are set by listen, before the nodes register.
	serving   *KubeletServing
	listeners []net.Listener
}

// logFollowPoll is how often a followed log looks for the container's end.
const logFollowPoll = 500 * time.Millisecond

func newKubeletServer(a *Agent) *kubeletServer {
	s := &kubeletServer{agent: a, ln: newPipeListener(), started: time.Now().Truncate(time.Second)}
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

// DialKubelet connects to the kubelet endpoint of one of this agent's
// nodes. addr is what kube-apiserver dials: the node's name or InternalIP
// and the kubelet port. ok is false when addr is not such a node.
func (a *Agent) DialKubelet(addr string) (conn net.Conn, ok bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port != strconv.Itoa(kubeletPort) {
		return nil, false, nil
	}
	n := a.nodeByAddress(host)
	if n == nil {
		return nil, false, nil
	}
	s := a.kubelet
	s.once.Do(s.start)
	if s.startErr != nil {
		return nil, true, s.startErr
	}
	client, server := net.Pipe()
	if !s.ln.push(tls.Server(nodeConn{server, n.spec.name}, s.tls)) {
		client.Close()
		return nil, true, errors.New("the node agent is stopping")
	}
	return client, true, nil
}

// nodeByAddress finds a node by name or InternalIP.
func (a *Agent) nodeByAddress(host string) *emuNode {
	if n, ok := a.nodes[host]; ok {
		return n
	}
	for _, n := range a.nodes {
		if n.spec.ip == host {
			return n
		}
	}
	return nil
}

// start makes the serving certificates and serves.
func (s *kubeletServer) start() {
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

// close stops serving and drops open connections (followed logs).
func (s *kubeletServer) close() {
	s.closeListeners()
	_ = s.ln.Close()
	_ = s.server.Close()
}

// noRun refuses /run, which kubectl no longer calls (exec replaced it).
func (s *kubeletServer) noRun(w http.ResponseWriter, r *http.Request) {
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

// logs serves GET /containerLogs/{namespace}/{pod}/{container} with the
// kubelet's query parameters and status codes: what the container's
// process printed, from the run the kubelet would pick.
func (s *kubeletServer) logs(w http.ResponseWriter, r *http.Request) {
	node, _ := r.Context().Value(nodeKey{}).(string)
	ns, name, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	pod, err := s.agent.podLister.Pods(ns).Get(name)
	if err != nil || pod.Spec.NodeName != node {
		http.Error(w, fmt.Sprintf("pod %q does not exist", name), http.StatusNotFound)
		return
	}
	if !hasContainer(pod, container) {
		http.Error(w, fmt.Sprintf("container %q not found in pod %q", container, name), http.StatusNotFound)
		return
	}
	opts, follow, previous, err := parseLogQuery(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	pod = s.withOwnStatus(node, pod)
	if _, err := containerLog(pod, container, previous); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	log := s.runLogOf(node, pod, container, previous)
	w.Header().Set("Content-Type", "text/plain")
	if log == nil {
		return
	}
	lines, closed, changed := log.snapshot()
	text := opts.render(lines)
	io.WriteString(w, text)
	// Stream as the kubelet does (chunked, flushed): a reader that gets
	// the last bytes together with EOF may drop them, and kube-apiserver's
	// WebSocket log stream is such a reader.
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if follow && !previous && !closed {
		s.follow(w, r, log, opts, len(lines), len(text), changed)
	}
}

// withOwnStatus is the pod with the status its node last wrote, which the
// agent's watch may not have seen yet.
func (s *kubeletServer) withOwnStatus(node string, pod *corev1.Pod) *corev1.Pod {
	n := s.agent.nodes[node]
	if n == nil {
		return pod
	}
	pw := n.workerByName(pod.Namespace, pod.Name)
	if pw == nil {
		return pod
	}
	st := pw.shown.Load()
	if st == nil {
		return pod
	}
	own := *pod
	own.Status = *st
	return &own
}

// runLogOf is the log of the container's current or previous run; nil
// when the agent has none (a run from before an agent restart).
func (s *kubeletServer) runLogOf(node string, pod *corev1.Pod, container string, previous bool) *runLog {
	n := s.agent.nodes[node]
	if n == nil {
		return nil
	}
	pw := n.workerByName(pod.Namespace, pod.Name)
	if pw == nil {
		return nil
	}
	for _, c := range pw.containers() {
		if c.spec.Name != container {
			continue
		}
		live := c.live.Load()
		switch {
		case live == nil:
			return nil
		case previous:
			return live.prevLog
		}
		return live.proc.log
	}
	return nil
}

// follow streams the lines the log gains until the run ends, the client
// hangs up or limitBytes is reached. seen lines and sent bytes were
// already written; tailLines applied to those only, limitBytes to all.
func (s *kubeletServer) follow(w http.ResponseWriter, r *http.Request, log *runLog, opts logOptions, seen, sent int, changed <-chan struct{}) {
	flusher, _ := w.(http.Flusher)
	more := logOptions{timestamps: opts.timestamps, tailLines: -1}
	for opts.limitBytes == 0 || sent < opts.limitBytes {
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		}
		var lines []logLine
		var closed bool
		lines, closed, changed = log.snapshot()
		if len(lines) > seen {
			more.limitBytes = max(opts.limitBytes-sent, 0)
			text := more.render(lines[seen:])
			io.WriteString(w, text)
			seen, sent = len(lines), sent+len(text)
		}
		if closed {
			return
		}
	}
}

func hasContainer(pod *corev1.Pod, name string) bool {
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range list {
			if c.Name == name {
				return true
			}
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// parseLogQuery reads the kubelet's log query parameters.
func parseLogQuery(r *http.Request) (opts logOptions, follow, previous bool, err error) {
	q := r.URL.Query()
	opts.tailLines = -1
	bools := map[string]*bool{"follow": &follow, "previous": &previous, "timestamps": &opts.timestamps}
	for key, dst := range bools {
		if v := q.Get(key); v != "" {
			if *dst, err = strconv.ParseBool(v); err != nil {
				return opts, false, false, fmt.Errorf("query parameter %s=%q: not a boolean", key, v)
			}
		}
	}
	ints := map[string]*int{"tailLines": &opts.tailLines, "limitBytes": &opts.limitBytes}
	for key, dst := range ints {
		if v := q.Get(key); v != "" {
			if *dst, err = strconv.Atoi(v); err != nil || *dst < 0 {
				return opts, false, false, fmt.Errorf("query parameter %s=%q: not a number of zero or more", key, v)
			}
		}
	}
	if v := q.Get("sinceSeconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return opts, false, false, fmt.Errorf("query parameter sinceSeconds=%q: not a positive number", v)
		}
		opts.since = time.Now().Add(-time.Duration(n) * time.Second)
	}
	if v := q.Get("sinceTime"); v != "" {
		if opts.since, err = time.Parse(time.RFC3339, v); err != nil {
			return opts, false, false, fmt.Errorf("query parameter sinceTime=%q: not an RFC 3339 time", v)
		}
	}
	return opts, follow, previous, nil
}
