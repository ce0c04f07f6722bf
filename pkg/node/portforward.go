package node

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"k8s.io/cri-streaming/pkg/streaming/portforward"
)

// Port forwarding as the kubelet serves it (the CRI streaming server's
// SPDY and WebSocket protocols): each forwarded connection is dialled to
// the port on the pod's own loopback, as containerd does inside the pod's
// network namespace, so a server bound to the pod answers.

func (s *kubeletServer) routePortForward(mux *http.ServeMux) {
	for _, p := range []string{"/portForward/{namespace}/{pod}", "/portForward/{namespace}/{pod}/{uid}"} {
		mux.HandleFunc(p, s.portForward)
	}
}

func (s *kubeletServer) portForward(w http.ResponseWriter, r *http.Request) {
	opts, err := portforward.NewV4Options(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target, ok := s.streamTarget(w, r)
	if !ok {
		return
	}
	portforward.ServePortForward(w, r, target, r.PathValue("pod"), r.PathValue("uid"), opts,
		streamIdleTimeout, streamCreationTimeout, portforward.SupportedProtocols)
}

// PortForward copies stream to and from the pod's port.
func (t *podTarget) PortForward(ctx context.Context, _ string, _ string, port int32, stream io.ReadWriteCloser) error {
	w := t.w
	w.mu.Lock()
	pod := w.pod
	w.mu.Unlock()
	if pod == nil {
		return fmt.Errorf("pod sandbox not found")
	}
	conn, err := w.node.agent.fabric.Dial(ctx, w.netHost(pod), "tcp", "127.0.0.1:"+strconv.Itoa(int(port)))
	if err != nil {
		sandbox := sandboxID(pod)
		return fmt.Errorf("failed to execute portforward in network namespace %q: failed to connect to localhost:%d inside namespace %q, IPv4: %v IPv6 %v",
			"/var/run/netns/cni-"+sandbox[:8], port, sandbox, err, fmt.Errorf("dial tcp6 [::1]:%d: connect: connection refused", port))
	}
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return nil
}
