package podworker

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/probe"

	"github.com/winkube/winkube/pkg/node/internal/prober"
)

// The kubelet's HTTP, TCP and gRPC probes and HTTP hooks reach the pod's
// emulated servers through the pod network, from the node
// (internal/prober).

// netProbe runs an httpGet, tcpSocket or grpc probe; handled is false for
// an exec probe. The result is the kubelet's: Warning is a success that
// says something (a redirect the prober did not follow).
func (w *Worker) netProbe(c *ctr, p *corev1.Probe) (res probe.Result, out string, handled bool) {
	if p.Exec != nil {
		return probe.Unknown, "", false
	}
	if live := c.live.Load(); live != nil && live.Steered && !live.StandIn {
		return probe.Success, "", true
	}
	timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
	podIP := w.podIPs()[0]
	var err error
	pr := w.prober()
	switch {
	case p.HTTPGet != nil:
		res, out, err = pr.HTTPGet(p.HTTPGet, &c.spec, podIP, timeout)
	case p.TCPSocket != nil:
		res, out, err = pr.TCP(p.TCPSocket, &c.spec, podIP, timeout)
	case p.GRPC != nil:
		res, out, err = pr.GRPC(p.GRPC, podIP, timeout)
	default:
		return probe.Unknown, "", false
	}
	if err != nil {
		return probe.Failure, err.Error(), true
	}
	return res, out, true
}

// prober sends the node's probes and HTTP hooks.
func (w *Worker) prober() *prober.Prober {
	return &prober.Prober{Ctx: w.node.RunCtx, Dial: prober.FromNode(w.node.Fabric, w.node.Name, w.node.IP), KubeletVersion: w.node.Kubelet}
}

// httpHook runs an httpGet lifecycle handler of c (prober.HTTPHook).
func (w *Worker) httpHook(pod *corev1.Pod, c *ctr, a *corev1.HTTPGetAction) error {
	return w.prober().HTTPHook(pod, &c.spec, a, w.podIPs()[0], hookTimeout)
}
