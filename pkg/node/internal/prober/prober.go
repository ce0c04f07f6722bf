// Package prober is the kubelet's network prober for emulated pods:
// httpGet, tcpSocket and gRPC probes and httpGet lifecycle hooks, sent from
// the node over the pod network with the kubelet's own request builder,
// result rules and messages (k8s.io/kubernetes/pkg/probe): a readiness
// probe on a port nothing listens on fails in the kubelet's words ("Get
// \"http://10.244.1.5:8080/\": dial tcp 10.244.1.5:8080: connect:
// connection refused").
package prober

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/util/format"
	"k8s.io/kubernetes/pkg/probe"
	httpprobe "k8s.io/kubernetes/pkg/probe/http"
)

// Prober sends a node's probes.
type Prober struct {
	// Ctx ends every probe in flight (the agent stopping).
	Ctx context.Context
	// Dial connects the kubelet to a pod's or node's address on the pod
	// network.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// KubeletVersion is the kubelet's version, which gRPC probes send in
	// their User-Agent.
	KubeletVersion string
}

// client is the client of HTTP probes and hooks: no keep-alive, no
// proxy, TLS unverified (as the kubelet's prober), over the pod network.
func (p *Prober) client(timeout time.Duration) *http.Client {
	tr := &http.Transport{
		DisableKeepAlives:  true,
		DisableCompression: true,
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			return p.Dial(ctx, addr)
		},
	}
	tr.TLSClientConfig = insecureTLS()
	return &http.Client{Timeout: timeout, Transport: tr, CheckRedirect: httpprobe.RedirectChecker(false)}
}

// HTTPGet runs an httpGet probe of container c with the kubelet's request
// builder and result rules (pkg/probe/http).
func (p *Prober) HTTPGet(a *corev1.HTTPGetAction, c *corev1.Container, podIP string, timeout time.Duration) (probe.Result, string, error) {
	req, err := httpprobe.NewRequestForHTTPGetAction(a, c, podIP, "probe")
	if err != nil {
		return probe.Unknown, "", err
	}
	client := p.client(timeout)
	defer client.CloseIdleConnections()
	return httpprobe.DoHTTPProbe(req, client)
}

// TCP runs a tcpSocket probe of container c: the port accepts or not.
func (p *Prober) TCP(a *corev1.TCPSocketAction, c *corev1.Container, podIP string, timeout time.Duration) (probe.Result, string, error) {
	port, err := probe.ResolveContainerPort(a.Port, c)
	if err != nil {
		return probe.Unknown, "", err
	}
	host := a.Host
	if host == "" {
		host = podIP
	}
	ctx, cancel := context.WithTimeout(p.Ctx, timeout)
	defer cancel()
	conn, err := p.Dial(ctx, net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return probe.Failure, err.Error(), nil
	}
	conn.Close()
	return probe.Success, "", nil
}

// HTTPHook runs an httpGet lifecycle handler of container c; the error is
// the kubelet's message for the hook's event. As the kubelet, only a
// failed request fails the hook: any HTTP status answers it.
func (p *Prober) HTTPHook(pod *corev1.Pod, c *corev1.Container, a *corev1.HTTPGetAction, podIP string, timeout time.Duration) error {
	host := a.Host
	if host == "" {
		host = podIP
	}
	req, err := httpprobe.NewRequestForHTTPGetAction(a, c, host, "lifecycle")
	if err == nil {
		client := p.client(timeout)
		var resp *http.Response
		if resp, err = client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 10<<10))
			resp.Body.Close()
		}
		client.CloseIdleConnections()
	}
	if err != nil {
		return fmt.Errorf("HTTP lifecycle hook (%s) for Container %q in Pod %q failed - error: %v", a.Path, c.Name, format.Pod(pod), err)
	}
	return nil
}

// insecureTLS: the kubelet's probes do not verify a pod's certificate.
func insecureTLS() *tls.Config { return &tls.Config{InsecureSkipVerify: true} } //nolint:gosec // as the kubelet
