package netcmds

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// netexec's HTTP endpoints as test/images/agnhost/netexec serves them
// and the e2e networking tests call them.
func TestNetexecEndpoints(t *testing.T) {
	p := newPod()
	r := p.start(t, NetexecSetup, nil, "--http-port=8080", "--udp-port=8081")
	base := "http://127.0.0.1:8080"
	cases := []struct {
		path, body string
		status     int
	}{
		{"/hostname", "pod-1", 200},
		{"/hostName", "pod-1", 200},
		{"/echo?msg=hello%20there", "hello there", 200},
		{"/echo?msg=gone&code=410", "gone", 410},
		{"/echo?code=abc", "argument 'code' must be an integer or empty, got \"abc\"\n", 200},
		{"/serverport", "8080", 200},
		{"/healthz", "", 200},
		{"/readyz", "ok", 200},
		{"/", "NOW: 2025-03-04 05:06:07 +0000 UTC", 200},
		{"/exit?timeout=abc", "argument 'timeout' must be a valid golang duration or empty, got \"abc\"\n", 200},
		{"/exit?wait=x", "argument 'wait' must be a valid golang duration or empty, got \"x\"\n", 200},
		{"/exit?code=z", "argument 'code' must be an integer [0-127] or empty, got \"z\"\n", 200},
		{"/redirect?code=x", "argument 'code' must be an integer or empty, got \"x\"\n", 200},
		{"/dial?host=127.0.0.1&port=8080", "request parameter not specified. <nil>\n", 400},
		{"/dial?request=hostname&host=127.0.0.1&port=8080&tries=x", "tries parameter is invalid. strconv.Atoi: parsing \"x\": invalid syntax\n", 400},
		{"/dial?request=hostname&host=127.0.0.1&port=8080&protocol=icmp", "unsupported protocol. icmp\n", 400},
		{"/dial?request=hostname&host=127.0.0.1&port=8080", `{"responses":["pod-1"]}`, 200},
		{"/dial?request=hostname&host=127.0.0.1&port=8080&tries=2", `{"responses":["pod-1","pod-1"]}`, 200},
		{"/dial?request=echo%20Hi&host=127.0.0.1&port=8081&protocol=udp", `{"responses":["hi"]}`, 200},
		{"/shell?shellCommand=echo%20one%3B%20echo%20two", `{"output":"one\ntwo\n"}`, 200},
		{"/shell?cmd=exit%203", `{"error":"exit status 3"}`, 200},
		{"/upload", `{"error":"Unable to upload file."}`, 200},
	}
	for _, c := range cases {
		resp, body := p.get(t, base+c.path)
		if resp.StatusCode != c.status || body != c.body {
			t.Errorf("GET %s = %d %q, want %d %q", c.path, resp.StatusCode, body, c.status, c.body)
		}
	}
	// The client's address and a request header, as the server saw them.
	if _, body := p.get(t, base+"/clientip"); !strings.HasPrefix(body, "127.0.0.1:") {
		t.Errorf("/clientip = %q", body)
	}
	req, _ := http.NewRequest("GET", base+"/header?key=X-Probe", nil)
	req.Header.Set("X-Probe", "yes")
	if resp, err := p.http().Do(req); err != nil || resp.Header.Get("Content-Type") == "" {
		t.Errorf("/header?key: %v", err)
	} else {
		var b strings.Builder
		buf := make([]byte, 64)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		resp.Body.Close()
		if b.String() != "yes" {
			t.Errorf("/header?key=X-Probe = %q", b.String())
		}
	}
	_, body := p.get(t, base+"/header")
	var headers map[string][]string
	if err := json.Unmarshal([]byte(body), &headers); err != nil || len(headers["User-Agent"]) != 1 {
		t.Errorf("/header = %q %v", body, err)
	}
	resp, _ := p.get(t, base+"/redirect?location=/hostname&code=301")
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "/hostname" {
		t.Errorf("/redirect = %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = p.get(t, base+"/redirect?location=/x")
	if resp.StatusCode != http.StatusFound {
		t.Errorf("/redirect without code = %d, want 302", resp.StatusCode)
	}
	r.logged(t, "Started HTTP server on port 8080")
	r.logged(t, "Started UDP server on port  8081")
	r.logged(t, "GET /echo?msg=gone&code=410")
	if code := r.stop(t); code != 0 {
		t.Errorf("netexec stopped with %d, want 0", code)
	}
}

// The UDP server answers hostname, echo (lower-cased, as upstream reads
// the datagram) and clientip, and ignores anything else.
func TestNetexecUDPCommands(t *testing.T) {
	p := newPod()
	r := p.start(t, NetexecSetup, nil, "--http-port=8080", "--udp-port=9000")
	if got := p.udp(t, "9000", "hostname\n"); got != "pod-1" {
		t.Errorf("hostname = %q", got)
	}
	if got := p.udp(t, "9000", "echo Hello World"); got != "hello world" {
		t.Errorf("echo = %q", got)
	}
	if got := p.udp(t, "9000", "clientip"); !strings.HasPrefix(got, "127.0.0.1:") {
		t.Errorf("clientip = %q", got)
	}
	// An unknown command gets no answer, only a log line.
	c, err := p.sys.Net.Dial(context.Background(), "udp", "127.0.0.1:9000")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "Bogus")
	r.logged(t, "Unknown UDP command received from 127.0.0.1:")
	r.logged(t, ": bogus")
}

// /exit?code=N ends netexec with N, /shutdown with 0; --http-override
// answers every path as the given one.
func TestNetexecExitAndOverride(t *testing.T) {
	p := newPod()
	r := p.start(t, NetexecSetup, nil, "--http-port=8080", "--udp-port=-1")
	p.get(t, "http://127.0.0.1:8080/hostname")
	go p.http().Get("http://127.0.0.1:8080/exit?code=7")
	if code := r.wait(t); code != 7 {
		t.Errorf("/exit?code=7 ended with %d", code)
	}
	p = newPod()
	r = p.start(t, NetexecSetup, nil, "--http-port=8080", "--udp-port=-1")
	p.get(t, "http://127.0.0.1:8080/hostname")
	go p.http().Get("http://127.0.0.1:8080/shutdown")
	if code := r.wait(t); code != 0 {
		t.Errorf("/shutdown ended with %d", code)
	}
	p = newPod()
	p.start(t, NetexecSetup, nil, "--http-port=8080", "--http-override=/echo?msg=fixed")
	if _, body := p.get(t, "http://127.0.0.1:8080/anything"); body != "fixed" {
		t.Errorf("--http-override: %q", body)
	}
	// Without a UDP or SCTP server, /healthz says the server is not ready.
	p = newPod()
	p.start(t, NetexecSetup, nil, "--udp-port=-1")
	if resp, _ := p.get(t, "http://127.0.0.1:8080/healthz"); resp.StatusCode != http.StatusPreconditionFailed {
		t.Errorf("/healthz without UDP = %d, want 412", resp.StatusCode)
	}
}

// Bad flags end netexec as upstream's log.Fatal would, with status 1.
func TestNetexecBadFlags(t *testing.T) {
	p := newPod()
	r := p.start(t, NetexecSetup, nil, "--udp-listen-addresses=10.0.0.1,nonsense")
	if code := r.wait(t); code != 1 {
		t.Errorf("status %d, want 1", code)
	}
	r.logged(t, "parseAddress: invalid address nonsense")
	p = newPod()
	r = p.start(t, NetexecSetup, nil, "--tls-cert-file=/nosuch.crt", "--tls-private-key-file=/k")
	if code := r.wait(t); code != 1 {
		t.Errorf("status %d, want 1", code)
	}
	r.logged(t, "open /nosuch.crt: no such file or directory")
	// Two servers cannot bind one port.
	p = newPod()
	p.start(t, NetexecSetup, nil, "--udp-port=-1")
	p.get(t, "http://127.0.0.1:8080/hostname")
	r = p.start(t, NetexecSetup, nil, "--udp-port=-1")
	if code := r.wait(t); code != 1 {
		t.Errorf("second netexec on 8080: %d, want 1", code)
	}
	r.logged(t, "listen tcp :8080: ")
	if got, _ := udpAddresses("10.0.0.2,10.0.0.1,10.0.0.2"); strings.Join(got, ",") != "10.0.0.1,10.0.0.2" {
		t.Errorf("udpAddresses = %q, want sorted without repeats", got)
	}
}
