package netcmds

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	grpchealth "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/winkube/winkube/pkg/emu/program"
)

// serve-hostname answers its hostname over HTTP on --port (9376 by
// default), or raw over TCP with --tcp --http=false; --close asks the
// client to close each connection; HTTP with --tcp/--udp is refused.
func TestServeHostname(t *testing.T) {
	p := newPod()
	r := p.start(t, ServeHostnameSetup, nil)
	resp, body := p.get(t, "http://127.0.0.1:9376/anything")
	if body != "pod-1" || resp.Header.Get("Connection") == "close" {
		t.Errorf("HTTP = %q, Connection %q", body, resp.Header.Get("Connection"))
	}
	r.logged(t, "Serving on port 9376.")
	r.logged(t, "HTTP request from 127.0.0.1:")
	if code := r.stop(t); code != 0 {
		t.Errorf("status %d", code)
	}
	r.logged(t, "Shutting down after receiving signal: terminated.")

	p = newPod()
	p.start(t, ServeHostnameSetup, nil, "--port=80", "--close")
	if resp, body := p.get(t, "http://127.0.0.1:80/"); body != "pod-1" || !resp.Close {
		t.Errorf("--close: %q, close %v", body, resp.Close)
	}

	p = newPod()
	r = p.start(t, ServeHostnameSetup, nil, "--tcp", "--http=false", "--port=9000")
	r.logged(t, "Serving on port 9000.")
	var got string
	deadline := time.Now().Add(30 * time.Second)
	for got == "" && time.Now().Before(deadline) {
		if c, err := p.sys.Net.Dial(context.Background(), "tcp", "127.0.0.1:9000"); err == nil {
			b, _ := io.ReadAll(c)
			c.Close()
			got = string(b)
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if got != "pod-1" {
		t.Errorf("--tcp answered %q", got)
	}

	p = newPod()
	r = p.start(t, ServeHostnameSetup, nil, "--udp")
	if code := r.wait(t); code != 1 {
		t.Errorf("--udp with --http: %d, want 1", code)
	}
	r.logged(t, "Can't server TCP/UDP mode and HTTP mode at the same time")
}

// porter serves each SERVE_PORT_n variable's value on port n; with
// --json-response the value and the method as JSON; a TLS port without
// its key pair is logged and skipped.
func TestPorter(t *testing.T) {
	p := newPod()
	env := []string{"SERVE_PORT_8090=foo", "SERVE_TCP_PORT_8091=bar", "SERVE_PORT_x=ignored", "SERVE_TLS_PORT_8443=tls", "OTHER=1"}
	r := p.start(t, PorterSetup, env)
	if _, body := p.get(t, "http://127.0.0.1:8090/"); body != "foo" {
		t.Errorf("8090 = %q", body)
	}
	if _, body := p.get(t, "http://127.0.0.1:8091/x"); body != "bar" {
		t.Errorf("8091 = %q", body)
	}
	r.logged(t, `tls server on port "8443" with certFile="localhost.crt", keyFile="localhost.key" failed: open localhost.crt: no such file or directory`)

	p = newPod()
	p.start(t, PorterSetup, []string{"SERVE_PORT_80=v"}, "--json-response")
	req, _ := http.NewRequest("PUT", "http://127.0.0.1:80/", nil)
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if resp, err = p.http().Do(req); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ Method, Body string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.Method != "PUT" || got.Body != "v" ||
		resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("--json-response = %+v %v %q", got, err, resp.Header.Get("Content-Type"))
	}
	if n, ok := cutPort("SERVE_PORT_70000", "SERVE_PORT_"); ok {
		t.Errorf("port 70000 accepted as %d", n)
	}
}

// test-webserver serves the container's files with upstream's CORS and
// caching headers.
func TestTestWebserver(t *testing.T) {
	p := newPod()
	p.fs.Put("/srv/index.txt", "hello files", 0o644)
	p.start(t, TestWebserverSetup, nil, "--port=8000")
	resp, body := p.get(t, "http://127.0.0.1:8000/srv/index.txt")
	if resp.StatusCode != 200 || body != "hello files" {
		t.Errorf("file = %d %q", resp.StatusCode, body)
	}
	for k, v := range map[string]string{"Cache-Control": "private", "Access-Control-Allow-Origin": "*",
		"Access-Control-Allow-Methods": "GET, POST, OPTIONS"} {
		if resp.Header.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, resp.Header.Get(k), v)
		}
	}
	if resp, _ := p.get(t, "http://127.0.0.1:8000/srv/none"); resp.StatusCode != 404 {
		t.Errorf("missing file = %d", resp.StatusCode)
	}
	if _, body := p.get(t, "http://127.0.0.1:8000/srv/"); !strings.Contains(body, `<a href="index.txt">index.txt</a>`) {
		t.Errorf("directory listing = %q", body)
	}
}

// liveness is healthy for 10 seconds of the container's clock, then
// answers /healthz with 500 "error: <seconds>"; fake-gitserver answers
// every path on 8000.
func TestLivenessAndFakeGitServer(t *testing.T) {
	p := newPod()
	p.start(t, noFlags(Liveness), nil)
	if resp, body := p.get(t, "http://127.0.0.1:8080/healthz"); resp.StatusCode != 200 || body != "ok" {
		t.Errorf("healthz = %d %q", resp.StatusCode, body)
	}
	p.clock.Step(11 * time.Second)
	if resp, body := p.get(t, "http://127.0.0.1:8080/healthz"); resp.StatusCode != 500 || body != "error: 11" {
		t.Errorf("healthz after 11s = %d %q", resp.StatusCode, body)
	}
	if _, body := p.get(t, "http://127.0.0.1:8080/started"); body != "11s" {
		t.Errorf("started = %q", body)
	}
	if resp, _ := p.get(t, "http://127.0.0.1:8080/redirect?loc=%2Fhealthz"); resp.StatusCode != 302 || resp.Header.Get("Location") != "/healthz" {
		t.Errorf("redirect = %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	p = newPod()
	p.start(t, noFlags(FakeGitServer), nil)
	if _, body := p.get(t, "http://127.0.0.1:8000/repo.git/info/refs"); body != "I am a fake git server" {
		t.Errorf("fake-gitserver = %q", body)
	}
}

// grpc-health-checking answers grpc.health.v1 Check: SERVING, NOT_SERVING
// after /make-not-serving or --delay-unhealthy-sec, NOT_FOUND for another
// service.
func TestGRPCHealthChecking(t *testing.T) {
	p := newPod()
	p.start(t, GRPCHealthSetup, nil, "--service=svc", "--delay-unhealthy-sec=30")
	p.get(t, "http://127.0.0.1:8080/make-serving") // the HTTP side is up
	conn, err := grpc.NewClient("passthrough:///127.0.0.1:5000", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return program.NetDialer(p.client)(ctx, "tcp", addr)
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := grpchealth.NewHealthClient(conn)
	check := func(service string) (grpchealth.HealthCheckResponse_ServingStatus, codes.Code) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // hang guard
		defer cancel()
		resp, err := client.Check(ctx, &grpchealth.HealthCheckRequest{Service: service}, grpc.WaitForReady(true))
		if err != nil {
			return 0, status.Code(err)
		}
		return resp.Status, codes.OK
	}
	if s, c := check("svc"); s != grpchealth.HealthCheckResponse_SERVING || c != codes.OK {
		t.Errorf("Check(svc) = %v %v", s, c)
	}
	if _, c := check("other"); c != codes.NotFound {
		t.Errorf("Check(other) = %v, want NotFound", c)
	}
	p.get(t, "http://127.0.0.1:8080/make-not-serving")
	if s, _ := check("svc"); s != grpchealth.HealthCheckResponse_NOT_SERVING {
		t.Errorf("after /make-not-serving: %v", s)
	}
	p.get(t, "http://127.0.0.1:8080/make-serving")
	p.clock.Step(30 * time.Second)
	if s, _ := check("svc"); s != grpchealth.HealthCheckResponse_NOT_SERVING {
		t.Errorf("after --delay-unhealthy-sec: %v", s)
	}

	p = newPod()
	r := p.start(t, GRPCHealthSetup, nil, "--tls-cert-file=/c")
	if code := r.wait(t); code != 1 {
		t.Errorf("a cert without a key: %d", code)
	}
	r.logged(t, "Both --tls-cert-file and --tls-private-key-file must be set")
}

// nettest counts the peers that POST to /write and says on /status
// whether enough were seen; its /read is the state as indented JSON.
func TestNettestState(t *testing.T) {
	p := newPod()
	p.start(t, NettestSetup, nil, "--peers=1")
	if _, body := p.get(t, "http://127.0.0.1:8080/status"); body != "fail" {
		t.Errorf("status = %q", body)
	}
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		resp, err = p.http().Post("http://127.0.0.1:8080/write", "application/json", strings.NewReader(`{"Source":"peer-a"}`))
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "{\"Hostname\":\"pod-1\"}\n" {
		t.Errorf("/write = %q", b)
	}
	p.http().Post("http://127.0.0.1:8080/write", "application/json", strings.NewReader(`{}`))
	_, body := p.get(t, "http://127.0.0.1:8080/read")
	var state struct {
		Hostname string
		Received map[string]int
		Errors   []string
	}
	if err := json.Unmarshal([]byte(body), &state); err != nil || state.Received["peer-a"] != 1 ||
		len(state.Errors) != 1 || state.Errors[0] != "pod-1: Got request with no source" || !strings.Contains(body, "\n\t\"Hostname\"") {
		t.Errorf("/read = %s (%v)", body, err)
	}
	p = newPod()
	r := p.start(t, NettestSetup, nil, "--service=")
	if code := r.wait(t); code != 1 {
		t.Errorf("--service= : %d", code)
	}
	r.logged(t, "Must provide -service flag.")
}
