package netcmds

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// connect runs agnhost connect in p with args and returns its stderr and
// status.
func (p *pod) connect(t *testing.T, args ...string) (string, int) {
	t.Helper()
	fs := pflag.NewFlagSet("connect", pflag.ContinueOnError)
	body := ConnectSetup(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	var errb syncbuf.Buffer
	proc := &program.Proc{Args: []string{"/agnhost"}, Dir: "/", Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errb, Sys: p.sys}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // hang guard
	defer cancel()
	code := body(ctx, &kit.App{P: proc, Log: kit.NewKlogger(proc)}, fs.Args())
	return errb.String(), code
}

// agnhost connect DEST prints nothing and exits 0 when it connects, else
// one of the prefixes the network policy tests match (UNKNOWN, DNS,
// TIMEOUT, REFUSED, OTHER) and exits 1.
func TestConnect(t *testing.T) {
	p := newPod()
	p.start(t, NetexecSetup, nil, "--http-port=8080", "--udp-port=8081")
	p.get(t, "http://127.0.0.1:8080/hostname")
	p.udp(t, "8081", "hostname")
	cases := []struct {
		args   []string
		stderr string
		code   int
	}{
		{[]string{"127.0.0.1:8080"}, "", 0},
		{[]string{"localhost:8080", "--timeout=5s"}, "", 0},
		{[]string{"127.0.0.1:9999"}, "REFUSED\n", 1},
		{[]string{"nohostport"}, "UNKNOWN: address nohostport: missing port in address\n", 1},
		{[]string{"127.0.0.1:http-alt"}, "DNS: lookup tcp/http-alt: unknown port\n", 1},
		{[]string{"nosuch.example:80"}, "DNS: lookup nosuch.example: no such host\n", 1},
		{[]string{"10.9.9.9:80"}, "OTHER: dial tcp 10.9.9.9:80: connect: network is unreachable\n", 1},
		{[]string{"--protocol=udp", "127.0.0.1:8081"}, "", 0},
		{[]string{"--protocol=udp", "--udp-data=echo x", "127.0.0.1:8081"}, "", 0},
		{[]string{"--protocol=udp", "nohostport"}, "DNS: address nohostport: missing port in address\n", 1},
		{[]string{"--protocol=sctp", "127.0.0.1:8080"}, "OTHER: dial sctp 127.0.0.1:8080: protocol not supported\n", 1},
		{[]string{"--protocol=icmp", "127.0.0.1:8080"}, "Unsupported protocol\nicmp", 1},
	}
	for _, c := range cases {
		stderr, code := p.connect(t, c.args...)
		if stderr != c.stderr || code != c.code {
			t.Errorf("connect %q = %q %d, want %q %d", c.args, stderr, code, c.stderr, c.code)
		}
	}
	// Without a pod network the name cannot be looked up at the
	// resolv.conf's server, and nothing can be dialled.
	p.sys.Net = nil
	p.fs.Put("/etc/resolv.conf", "nameserver 10.96.0.10\n", 0o644)
	for args, want := range map[string]string{
		"svc:80":      "DNS: lookup svc on 10.96.0.10:53: dial udp 10.96.0.10:53: connect: network is unreachable\n",
		"10.0.0.1:80": "OTHER: dial tcp 10.0.0.1:80: connect: network is unreachable\n",
	} {
		if stderr, code := p.connect(t, args); stderr != want || code != 1 {
			t.Errorf("connect %s without a network = %q %d, want %q", args, stderr, code, want)
		}
	}
}

// tcp-reset reads one byte of each connection and closes it: the client
// sees its connection end.
func TestTCPReset(t *testing.T) {
	p := newPod()
	r := p.start(t, TCPResetSetup, nil, "--port=8088")
	r.logged(t, "Serving on port 8088.")
	var c io.ReadWriteCloser
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if c, err = p.sys.Net.Dial(context.Background(), "tcp", "127.0.0.1:8088"); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	guard := time.AfterFunc(30*time.Second, func() { c.Close() })
	defer guard.Stop()
	io.WriteString(c, "GET / HTTP/1.1\r\n\r\n")
	if n, err := c.Read(make([]byte, 16)); err == nil {
		t.Errorf("read %d bytes from tcp-reset, want the connection ended", n)
	}
	r.logged(t, "TCP request from 127.0.0.1:")
	if code := r.stop(t); code != 0 {
		t.Errorf("status %d", code)
	}
	r.logged(t, "Awaiting pod deletion.")
}
