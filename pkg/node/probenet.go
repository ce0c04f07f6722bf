package node

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/probe"
	httpprobe "k8s.io/kubernetes/pkg/probe/http"

	"github.com/winkube/winkube/pkg/emu/vnet"
)

// The kubelet's HTTP, TCP and gRPC probes and HTTP hooks reach the pod's
// emulated servers through the pod network, from the node, with the
// kubelet's own request builder and result rules (pkg/probe/http): a
// readiness probe on a port nothing listens on fails in the kubelet's
// words ("Get \"http://10.244.1.5:8080/\": dial tcp 10.244.1.5:8080:
// connect: connection refused").

// nodeHost is the node's own place on the pod network (the kubelet's).
func (w *podWorker) nodeHost() vnet.Host {
	ip, _ := netip.ParseAddr(w.node.spec.ip)
	return vnet.Host{IP: ip, Scope: "node/" + w.node.spec.name, Source: "node/" + w.node.spec.name}
}

// dialFromNode connects the kubelet to addr: a pod's or a node's address,
// or a name, which the node resolves with its own (not the cluster's)
// resolver and so only when it is an IP.
func (w *podWorker) dialFromNode(ctx context.Context, addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	return w.node.agent.fabric.DialFrom(ctx, w.nodeHost(), ap)
}

// kubeletHTTP is the client of HTTP probes and hooks: no keep-alive, no
// proxy, TLS unverified (as the kubelet's prober), over the pod network.
func (w *podWorker) kubeletHTTP(timeout time.Duration) *http.Client {
	tr := &http.Transport{
		DisableKeepAlives:  true,
		DisableCompression: true,
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			return w.dialFromNode(ctx, addr)
		},
	}
	tr.TLSClientConfig = insecureTLS()
	return &http.Client{Timeout: timeout, Transport: tr, CheckRedirect: httpprobe.RedirectChecker(false)}
}

// netProbe runs an httpGet, tcpSocket or grpc probe; handled is false for
// an exec probe.
func (w *podWorker) netProbe(c *ctr, p *corev1.Probe) (ok bool, out string, handled bool) {
	if p.Exec != nil {
		return false, "", false
	}
	if live := c.live.Load(); live != nil && live.steered {
		return true, "", true
	}
	timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
	podIP := w.podIPs()[0]
	var res probe.Result
	var err error
	switch {
	case p.HTTPGet != nil:
		var req *http.Request
		if req, err = httpprobe.NewRequestForHTTPGetAction(p.HTTPGet, &c.spec, podIP, "probe"); err == nil {
			client := w.kubeletHTTP(timeout)
			res, out, err = httpprobe.DoHTTPProbe(req, client)
			client.CloseIdleConnections()
		}
	case p.TCPSocket != nil:
		res, out, err = w.tcpProbe(c, p.TCPSocket, podIP, timeout)
	case p.GRPC != nil:
		res, out, err = w.grpcProbe(podIP, p.GRPC, timeout)
	default:
		return false, "", false
	}
	if err != nil {
		return false, err.Error(), true
	}
	return res == probe.Success || res == probe.Warning, out, true
}

func (w *podWorker) tcpProbe(c *ctr, a *corev1.TCPSocketAction, podIP string, timeout time.Duration) (probe.Result, string, error) {
	port, err := probe.ResolveContainerPort(a.Port, &c.spec)
	if err != nil {
		return probe.Unknown, "", err
	}
	host := a.Host
	if host == "" {
		host = podIP
	}
	ctx, cancel := context.WithTimeout(w.node.agent.runCtx, timeout)
	defer cancel()
	conn, err := w.dialFromNode(ctx, net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return probe.Failure, err.Error(), nil
	}
	conn.Close()
	return probe.Success, "", nil
}

// httpHook runs an httpGet lifecycle handler; the error is the kubelet's
// message for the hook's event. As the kubelet, only a failed request
// fails the hook: any HTTP status answers it.
func (w *podWorker) httpHook(pod *corev1.Pod, c *ctr, a *corev1.HTTPGetAction) error {
	host := a.Host
	if host == "" {
		host = w.podIPs()[0]
	}
	req, err := httpprobe.NewRequestForHTTPGetAction(a, &c.spec, host, "lifecycle")
	if err == nil {
		client := w.kubeletHTTP(hookTimeout)
		var resp *http.Response
		if resp, err = client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 10<<10))
			resp.Body.Close()
		}
		client.CloseIdleConnections()
	}
	if err != nil {
		return fmt.Errorf("HTTP lifecycle hook (%s) for Container %q in Pod %q failed - error: %v", a.Path, c.spec.Name, pod.Name+"_"+pod.Namespace+"("+string(pod.UID)+")", err)
	}
	return nil
}

// insecureTLS: the kubelet's probes do not verify a pod's certificate.
func insecureTLS() *tls.Config { return &tls.Config{InsecureSkipVerify: true} } //nolint:gosec // as the kubelet
