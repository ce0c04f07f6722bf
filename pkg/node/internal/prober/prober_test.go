package prober

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/probe"
)

// loopbackProber dials every address on 127.0.0.1 at its port, standing
// in for the pod network.
func loopbackProber() *Prober {
	var d net.Dialer
	return &Prober{Ctx: context.Background(), KubeletVersion: "v1.36.3", Dial: func(ctx context.Context, addr string) (net.Conn, error) {
		_, port, _ := net.SplitHostPort(addr)
		return d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", port))
	}}
}

// An httpGet probe passes on 2xx/3xx and fails on 4xx/5xx with the
// kubelet's wording, and sends the kubelet's User-Agent; a port nothing
// listens on fails the tcpSocket probe.
func TestHTTPAndTCPProbes(t *testing.T) {
	var agent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agent = r.UserAgent()
		if r.URL.Path == "/bad" {
			http.Error(w, "nope", http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	p := loopbackProber()
	c := &corev1.Container{Name: "c"}
	get := func(path string) *corev1.HTTPGetAction {
		return &corev1.HTTPGetAction{Path: path, Port: intstr.Parse(port), Scheme: corev1.URISchemeHTTP}
	}
	if res, _, err := p.HTTPGet(get("/ok"), c, "10.244.1.5", time.Second); res != probe.Success || err != nil {
		t.Errorf("/ok: %v %v", res, err)
	}
	if !strings.HasPrefix(agent, "kube-probe/") {
		t.Errorf("User-Agent %q, want kube-probe/...", agent)
	}
	if res, out, _ := p.HTTPGet(get("/bad"), c, "10.244.1.5", time.Second); res != probe.Failure || !strings.Contains(out, "HTTP probe failed with statuscode: 500") {
		t.Errorf("/bad: %v %q", res, out)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	free := l.Addr().(*net.TCPAddr).Port
	l.Close()
	tcp := &corev1.TCPSocketAction{Port: intstr.FromInt(free)}
	if res, out, _ := p.TCP(tcp, c, "10.244.1.5", time.Second); res != probe.Failure || !strings.Contains(out, "connection refused") {
		t.Errorf("closed port: %v %q", res, out)
	}
	tcp.Port = intstr.Parse(port)
	if res, _, _ := p.TCP(tcp, c, "10.244.1.5", time.Second); res != probe.Success {
		t.Errorf("open port %s: %v", port, res)
	}
}
