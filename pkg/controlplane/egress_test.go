package controlplane

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
)

// connect speaks to the proxy as kube-apiserver does: CONNECT, then the
// tunnelled bytes.
func connect(t *testing.T, socket, addr string) (net.Conn, *http.Response) {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	io.WriteString(c, "CONNECT "+addr+" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, resp
}

func echo(c net.Conn) {
	defer c.Close()
	_, _ = io.Copy(c, c)
}

func TestEgressProxy(t *testing.T) {
	// A loopback server stands for anything the dialer does not handle.
	direct, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	go func() {
		for {
			c, err := direct.Accept()
			if err != nil {
				return
			}
			go echo(c)
		}
	}()
	dialer := func(_ context.Context, addr string) (net.Conn, bool, error) {
		switch addr {
		case "win2019-1:10250":
			client, server := net.Pipe()
			go echo(server)
			return client, true, nil
		case "win2019-2:10250":
			return nil, true, errors.New("the node agent is stopping")
		}
		return nil, false, nil
	}
	var directDials []string
	var mu sync.Mutex
	l := &layout{opts: Options{DataDir: t.TempDir(), NodeDialer: dialer}}
	l.direct = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		directDials = append(directDials, addr)
		mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	p, err := startEgressProxy(l)
	if err != nil {
		t.Fatal(err)
	}
	config, _ := os.ReadFile(l.egressConfigFile())
	if !strings.Contains(string(config), "udsName: "+l.egressSocket()) || !strings.Contains(string(config), "proxyProtocol: HTTPConnect") {
		t.Errorf("egress config:\n%s", config)
	}

	for _, addr := range []string{"win2019-1:10250", direct.Addr().String()} {
		c, resp := connect(t, l.egressSocket(), addr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("CONNECT %s: %s", addr, resp.Status)
		}
		io.WriteString(c, "ping")
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
			t.Errorf("tunnel to %s: %q %v", addr, buf, err)
		}
	}
	if _, resp := connect(t, l.egressSocket(), "win2019-2:10250"); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("failed dial: %s, want 502", resp.Status)
	}

	// Nothing but loopback is dialled on the host: a Service or pod IP the
	// dialer does not answer, a LAN address or a name is refused at once.
	for _, addr := range []string{"10.96.0.10:443", "192.168.1.20:8080", "example.com:443", "[2001:db8::1]:80"} {
		_, resp := connect(t, l.egressSocket(), addr)
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "egress to "+addr+" refused") {
			t.Errorf("CONNECT %s: %s %q, want 502 and a refusal", addr, resp.Status, body)
		}
	}
	mu.Lock()
	if len(directDials) != 1 || directDials[0] != direct.Addr().String() {
		t.Errorf("dialled on the host: %v, want only %s", directDials, direct.Addr())
	}
	mu.Unlock()

	// An open tunnel does not keep close waiting, and the socket goes.
	connect(t, l.egressSocket(), "win2019-1:10250")
	p.close()
	if _, err := os.Stat(l.egressSocket()); !os.IsNotExist(err) {
		t.Errorf("socket left after close: %v", err)
	}
}

// The socket path must fit sun_path: a deep data dir gets a socket in the
// temporary directory instead, removed on close like the other.
func TestEgressSocketOfDeepDataDir(t *testing.T) {
	dir := t.TempDir()
	deep := dir + "/" + strings.Repeat("d", 120)
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	l := &layout{opts: Options{DataDir: deep}}
	p, err := startEgressProxy(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.path) > maxSocketPath || strings.HasPrefix(p.path, deep) {
		t.Errorf("socket %s", p.path)
	}
	p.close()
	if _, err := os.Stat(p.path); !os.IsNotExist(err) {
		t.Errorf("socket left after close: %v", err)
	}
}
