package podworker

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/winkube/winkube/pkg/node/internal/kubeletapi"
)

// Port forwarding: each forwarded connection is dialled to the port on the
// pod's own loopback, as containerd does inside the pod's network
// namespace, so a server bound to the pod answers.
// PortForward copies stream to and from the pod's port.
func (t *podTarget) PortForward(ctx context.Context, _ string, _ string, port int32, stream io.ReadWriteCloser) error {
	w := t.w
	host := w.netHost.Load()
	if host == nil {
		return fmt.Errorf("pod sandbox not found")
	}
	conn, err := w.node.Fabric.Dial(ctx, *host, "tcp", "127.0.0.1:"+strconv.Itoa(int(port)))
	if err != nil {
		sandbox := kubeletapi.SandboxID(w.latest())
		return fmt.Errorf("failed to execute portforward in network namespace %q: failed to connect to localhost:%d inside namespace %q, IPv4: %v IPv6 %v",
			"/var/run/netns/cni-"+sandbox[:8], port, sandbox, err, fmt.Errorf("dial tcp6 [::1]:%d: connect: connection refused", port))
	}
	defer conn.Close()
	pipe(ctx, conn, stream)
	return nil
}

// pipe copies between a and b until one side ends or ctx is done (as the
// agent's egress.go does).
func pipe(ctx context.Context, a, b io.ReadWriter) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(a, b); done <- struct{}{} }()
	go func() { _, _ = io.Copy(b, a); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
