package agnhost

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// lan is an in-memory network of several pods: names resolve to pod
// IPs and a dial reaches the listener of that IP and port.
type lan struct {
	mu    sync.Mutex
	names map[string]string
	ls    map[string]*pipeListener
}

type lanHost struct {
	lan *lan
	ip  string
}

func (h lanHost) PodIP() string { return h.ip }

func (h lanHost) LookupHost(_ context.Context, name string) ([]string, error) {
	if net.ParseIP(name) != nil {
		return []string{name}, nil
	}
	h.lan.mu.Lock()
	defer h.lan.mu.Unlock()
	if ip, ok := h.lan.names[name]; ok {
		return []string{ip}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (h lanHost) Listen(ctx context.Context, _ string, port int) (program.Listener, error) {
	l := &pipeListener{conns: make(chan io.ReadWriteCloser), done: make(chan struct{})}
	l.stop = context.AfterFunc(ctx, func() { l.Close() })
	h.lan.mu.Lock()
	h.lan.ls[net.JoinHostPort(h.ip, itoa(port))] = l
	h.lan.mu.Unlock()
	return l, nil
}

func (h lanHost) Dial(ctx context.Context, network, address string) (io.ReadWriteCloser, error) {
	host, port, _ := net.SplitHostPort(address)
	ips, err := h.LookupHost(ctx, host)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	h.lan.mu.Lock()
	l := h.lan.ls[net.JoinHostPort(ips[0], port)]
	h.lan.mu.Unlock()
	if l == nil {
		return nil, errors.New("dial tcp " + address + ": connect: connection refused")
	}
	client, server := net.Pipe()
	select {
	case l.conns <- fromConn{server, &net.TCPAddr{IP: net.ParseIP(h.ip), Port: 40000}}:
		return client, nil
	case <-l.done:
		return nil, errors.New("dial tcp " + address + ": connect: connection refused")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// fromConn is the server's end of a dial, which sees the dialer's
// address as its peer.
type fromConn struct {
	net.Conn
	from net.Addr
}

func (c fromConn) RemoteAddr() net.Addr { return c.from }

func (n *lan) waitListen(t *testing.T, hostPort string) {
	t.Helper()
	waitFor(t, func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		return n.ls[hostPort] != nil
	})
}

func (n *lan) host(ip string) program.Net { return lanHost{lan: n, ip: ip} }

// lanGet is GET url from the pod at ip.
func lanGet(t *testing.T, n *lan, ip, url string) (int, string) {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := n.host(ip).Dial(ctx, network, addr)
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

// The guestbook of the kubectl test: a frontend proxies set to the
// primary, which pushes it to its registered replica, and get to the
// replica.
func TestGuestbookPrimaryReplicaFrontend(t *testing.T) {
	base := runtimeGoroutines()
	n := &lan{names: map[string]string{"agnhost-primary": "10.0.0.2", "agnhost-replica": "10.0.0.3"}, ls: map[string]*pipeListener{}}
	pods := []struct {
		ip   string
		args []string
	}{
		{"10.0.0.2", []string{"guestbook", "--http-port", "6379"}},
		{"10.0.0.3", []string{"guestbook", "--replicaof", "agnhost-primary", "--http-port", "6379"}},
		{"10.0.0.4", []string{"guestbook", "--backend-port", "6379", "--http-port", "80"}},
	}
	var envs []*env
	var stops []func() int
	for _, pod := range pods {
		e := newEnv(nil, append([]string{"/agnhost"}, pod.args...)...)
		e.p.Sys.Net = n.host(pod.ip)
		envs = append(envs, e)
		stops = append(stops, e.start())
		// The replica registers at once: its primary listens first.
		n.waitListen(t, pod.ip+":"+pod.args[len(pod.args)-1])
	}
	waitFor(t, func() bool { return strings.Contains(envs[0].stderr.String(), "Node '10.0.0.3' registered.") })
	waitFor(t, func() bool { return strings.Contains(envs[1].stderr.String(), "Registered to node: agnhost-primary") })

	checks := []struct {
		url  string
		code int
		body string
	}{
		{"http://10.0.0.4/guestbook?cmd=set&key=messages&value=TestEntry", 200, `{"message":"Updated"}`},
		{"http://10.0.0.4/guestbook?cmd=get&key=messages", 200, `{"data":"TestEntry"}`},
		{"http://10.0.0.3:6379/get", 200, `{"data":{"messages":"TestEntry"}}`},
		{"http://10.0.0.2:6379/get?key=none", 200, `{"data":""}`},
		{"http://10.0.0.4/guestbook?cmd=del", 400, "unsupported cmd: 'del'\n"},
		{"http://10.0.0.4/guestbook?cmd=set", 400, "cannot set with empty key.\n"},
	}
	for _, c := range checks {
		if code, body := lanGet(t, n, "10.0.0.9", c.url); code != c.code || body != c.body {
			t.Errorf("%s: %d %q, want %d %q", c.url, code, body, c.code, c.body)
		}
	}
	for _, stop := range stops {
		if code := stop(); code != 0 {
			t.Errorf("status %d", code)
		}
	}
	if !strings.Contains(envs[1].stderr.String(), "log.go:245] Registering to primary: agnhost-primary:6379/register?host=10.0.0.3\n") {
		t.Errorf("replica stderr %q", envs[1].stderr)
	}
	settleGoroutines(t, base)
}

// A replica whose primary never resolves gives up after 15 seconds as
// log.Fatal does.
func TestGuestbookRegisterTimesOut(t *testing.T) {
	n := &lan{names: map[string]string{}, ls: map[string]*pipeListener{}}
	e := newEnv(nil, "/agnhost", "guestbook", "--replicaof", "nowhere")
	e.p.Sys.Net = n.host("10.0.0.3")
	if code := e.run(t, context.Background()); code != 1 {
		t.Errorf("status %d", code)
	}
	out := e.stderr.String()
	if !strings.Contains(out, "] unable to get IP nowhere:6379: dial udp: lookup nowhere: no such host. Retrying in 1s.\n") ||
		!strings.HasSuffix(out, "] Timed out while registering to primary.\n") {
		t.Errorf("stderr %q", out)
	}
}
