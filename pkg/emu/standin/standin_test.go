package standin

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	grpchealth "google.golang.org/grpc/health/grpc_health_v1"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

type direct struct{}

func (direct) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	return dst, nil
}

func (direct) Lookup(context.Context, vnet.Host, string) ([]netip.Addr, error) { return nil, nil }

var podIP = netip.MustParseAddr("10.244.1.9")

// standIn starts the stand-in of cfg in a pod on a fresh emulated network
// and returns a dialer from another pod.
func standIn(t *testing.T, cfg Config) (dial func(port string) net.Conn, tryDial func(port string) (net.Conn, error), out *syncbuf.Buffer) {
	t.Helper()
	f := vnet.New(direct{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out = &syncbuf.Buffer{}
	host := &vnet.Host{IP: podIP, Scope: "pod", Source: "pod/ns/app"}
	sys := &program.Sys{FS: vfs.New(vfs.Options{}), Clock: clock.RealClock{}, Net: f.Net(host)}
	p := &program.Proc{Args: []string{"exporter"}, Dir: "/", Stdout: out, Stderr: out, Sys: sys}
	if code, err := sys.Run(ctx, p, Main(cfg)); code != program.Forever || err != nil {
		t.Fatalf("stand-in returned %d, %v", code, err)
	}
	client := vnet.Host{IP: netip.MustParseAddr("10.244.2.3"), Scope: "pod", Source: "pod/ns/client"}
	tryDial = func(port string) (net.Conn, error) {
		c, err := f.Dial(ctx, client, "tcp", podIP.String()+":"+port)
		if err == nil {
			t.Cleanup(func() { c.Close() })
		}
		return c, err
	}
	return func(port string) net.Conn {
		t.Helper()
		c, err := tryDial(port)
		if err != nil {
			t.Fatalf("dial %s: %v", port, err)
		}
		return c
	}, tryDial, out
}

// A container winkube cannot follow is served by a stand-in on its ports:
// HTTP and HTTPS get 200 and a line naming the image, a gRPC health check
// is SERVING, a raw TCP client is held open, and a port the pod does not
// declare is refused.
func TestStandInAnswersEachProtocol(t *testing.T) {
	cfg := Config{Image: "ghcr.io/example/exporter:1.0", Why: `"exporter" of the image`,
		Ports: []Port{{Number: 9182, Protocol: "TCP"}, {Number: 8443}, {Number: 9000}, {Number: 7000}}}
	dial, tryDial, out := standIn(t, cfg)
	if !strings.Contains(out.String(), "listening on 9182/TCP, 8443/TCP, 9000/TCP, 7000/TCP") {
		t.Errorf("start line: %q", out.String())
	}

	c := dial("9182")
	req, _ := http.NewRequest("GET", "http://"+podIP.String()+":9182/health", nil)
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "winkube stand-in for ghcr.io/example/exporter:1.0") {
		t.Errorf("HTTP: %d %q", resp.StatusCode, body)
	}

	tc := tls.Client(dial("8443"), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a test of a self-signed stand-in
	hreq, _ := http.NewRequest("GET", "https://"+podIP.String()+":8443/healthz", nil)
	if err := hreq.Write(tc); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.ReadResponse(bufio.NewReader(tc), hreq); err != nil || resp.StatusCode != 200 {
		t.Errorf("HTTPS: %v %v", resp, err)
	}

	g := dial("9000")
	conn, err := grpc.NewClient("passthrough:///stand-in", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) { return g, nil }))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hc, err := grpchealth.NewHealthClient(conn).Check(ctx, &grpchealth.HealthCheckRequest{Service: "any"})
	if err != nil || hc.GetStatus() != grpchealth.HealthCheckResponse_SERVING {
		t.Errorf("gRPC health: %v %v", hc, err)
	}

	raw := dial("7000")
	_ = raw.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, err := raw.Write([]byte{0, 1, 2}); err != nil {
		t.Errorf("raw TCP write: %v", err)
	}

	if _, err := tryDial("8080"); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("undeclared port 8080: %v, want connection refused", err)
	}
}

// An admission webhook the emulation cannot run allows what it is asked,
// with a warning saying so, and an aggregated API server stood in for
// answers 503 (unavailable) rather than an invented API.
func TestStandInSpeaksAdmissionAndAPI(t *testing.T) {
	dial, _, _ := standIn(t, Config{Image: "ghcr.io/example/policy:2", Why: "the policy engine", Ports: []Port{{Number: 8443}}})
	post := func(path, body string) (*http.Response, string) {
		t.Helper()
		tc := tls.Client(dial("8443"), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a test of a self-signed stand-in
		req, _ := http.NewRequest("POST", "https://"+podIP.String()+":8443"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if err := req.Write(tc); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(tc), req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := post("/validate", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","operation":"CREATE"}}`)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal([]byte(body), &review); err != nil || resp.StatusCode != 200 || review.Response == nil ||
		!review.Response.Allowed || review.Response.UID != "705ab4f5-6393-11e8-b7cc-42010a800002" || len(review.Response.Warnings) != 1 {
		t.Errorf("AdmissionReview: %d %s (%v)", resp.StatusCode, body, err)
	}
	if resp, _ := post("/apis/wardle.example.com/v1alpha1", ""); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("aggregated API: %d, want 503", resp.StatusCode)
	}
}
