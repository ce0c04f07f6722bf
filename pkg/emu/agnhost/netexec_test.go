package agnhost

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// httpGet fetches url through the pipe network.
func httpGet(t *testing.T, pn *pipeNet, url string) (int, string) {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := pn.Dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return c.(net.Conn), nil
	}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestNetexecHTTP(t *testing.T) {
	for _, plain := range []bool{false, true} {
		name := "net.Conn"
		if plain {
			name = "plain"
		}
		t.Run(name, func(t *testing.T) {
			base := runtimeGoroutines()
			pn := &pipeNet{plain: plain}
			e := newEnv(nil, "/agnhost", "netexec", "--http-port=8080")
			e.p.Sys.Net = pn
			stop := e.start()
			pn.waitListen(t, 8080)
			checks := []struct {
				path string
				code int
				body string
			}{
				{"/hostname", 200, "pod-1"},
				{"/hostName", 200, "pod-1"},
				{"/echo?msg=hello", 200, "hello"},
				{"/echo?msg=teapot&code=418", 418, "teapot"},
				{"/serverport", 200, "8080"},
				{"/healthz", 200, ""},
				{"/readyz", 200, "ok"},
				{"/header?key=User-Agent", 200, "Go-http-client/1.1"},
				{"/", 200, "NOW: 2025-03-04 05:06:07 +0000 UTC"},
				{"/dial?host=10.0.0.9&port=80&request=hostname&protocol=sctp", 200, `{"errors":["sctp dial failed. err:protocol not supported"]}`},
				{"/dial?host=10.0.0.9&port=80", 400, "request parameter not specified. <nil>\n"},
			}
			for _, c := range checks {
				code, body := httpGet(t, pn, "http://10.0.0.1:8080"+c.path)
				if code != c.code || body != c.body {
					t.Errorf("%s: %d %q, want %d %q", c.path, code, body, c.code, c.body)
				}
			}
			if code := stop(); code != 0 {
				t.Errorf("status %d", code)
			}
			if !strings.Contains(e.stderr.String(), "log.go:245] GET /hostname\n") {
				t.Errorf("stderr %q", e.stderr)
			}
			settleGoroutines(t, base)
		})
	}
}

func TestNetexecDialsItself(t *testing.T) {
	pn := &pipeNet{}
	e := newEnv(nil, "/agnhost", "netexec")
	e.p.Sys.Net = pn
	stop := e.start()
	defer stop()
	pn.waitListen(t, 8080)
	_, body := httpGet(t, pn, "http://10.0.0.1:8080/dial?host=10.0.0.1&port=8080&request=hostname&tries=2")
	var got map[string][]string
	if err := json.Unmarshal([]byte(body), &got); err != nil || strings.Join(got["responses"], ",") != "pod-1,pod-1" {
		t.Errorf("dial: %q", body)
	}
	_, body = httpGet(t, pn, "http://10.0.0.1:8080/dial?host=10.0.0.1&port=9999&request=hostname")
	if !strings.Contains(body, `connect: connection refused`) || strings.Contains(body, "responses") {
		t.Errorf("dial refused: %q", body)
	}
}

func TestNetexecExitCode(t *testing.T) {
	base := runtimeGoroutines()
	pn := &pipeNet{}
	e := newEnv(nil, "/agnhost", "netexec", "--udp-port=-1")
	e.p.Sys.Net = pn
	done := make(chan int, 1)
	go func() { done <- Main(context.Background(), e.p) }()
	pn.waitListen(t, 8080)
	if code, _ := httpGet(t, pn, "http://10.0.0.1:8080/healthz"); code != http.StatusPreconditionFailed {
		t.Errorf("healthz without UDP: %d", code)
	}
	go httpGetQuiet(pn, "http://10.0.0.1:8080/exit?code=3&timeout=1s")
	select {
	case code := <-done:
		if code != 3 {
			t.Errorf("status %d, want 3", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("netexec did not exit")
	}
	settleGoroutines(t, base+1) // the client goroutine may still be closing
}

func httpGetQuiet(pn *pipeNet, url string) {
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := pn.Dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return c.(net.Conn), nil
	}}
	defer tr.CloseIdleConnections()
	if resp, err := (&http.Client{Transport: tr}).Get(url); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func TestServersOverNetwork(t *testing.T) {
	tests := []struct {
		args []string
		env  []string
		port int
		path string
		body string
	}{
		{args: []string{"serve-hostname"}, port: 9376, path: "/", body: "pod-1"},
		{args: []string{"porter"}, env: []string{"SERVE_PORT_9001=foo"}, port: 9001, path: "/x", body: "foo"},
		{args: []string{"porter", "--json-response"}, env: []string{"SERVE_TCP_PORT_9002=bar"}, port: 9002, path: "/", body: `{"Method":"GET","Body":"bar"}`},
		{args: []string{"fake-gitserver"}, port: 8000, path: "/", body: "I am a fake git server"},
		{args: []string{"liveness"}, port: 8080, path: "/healthz", body: "ok"},
		{args: []string{"test-webserver"}, port: 80, path: "/www/index.html", body: "hi there"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			pn := &pipeNet{}
			e := newEnv(newMemFS().add("/www/index.html", "hi there", 0o644), append([]string{"/agnhost"}, tt.args...)...)
			e.p.Env = tt.env
			e.p.Sys.Net = pn
			stop := e.start()
			pn.waitListen(t, tt.port)
			if code, body := httpGet(t, pn, "http://10.0.0.1"+portSuffix(tt.port)+tt.path); code != 200 || body != tt.body {
				t.Errorf("got %d %q, want %q", code, body, tt.body)
			}
			if code := stop(); code != 0 {
				t.Errorf("status %d", code)
			}
		})
	}
}

func portSuffix(port int) string {
	if port == 80 {
		return ""
	}
	return ":" + itoa(port)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestLivenessTurnsUnhealthy(t *testing.T) {
	pn := &pipeNet{}
	e := newEnv(nil, "/agnhost", "liveness")
	e.p.Sys.Net = pn
	stop := e.start()
	defer stop()
	pn.waitListen(t, 8080)
	e.clock.Step(11 * time.Second)
	if code, body := httpGet(t, pn, "http://10.0.0.1:8080/healthz"); code != 500 || body != "error: 11" {
		t.Errorf("got %d %q", code, body)
	}
}
