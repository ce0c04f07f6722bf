package vnet

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"testing"
)

// router: pods 10.244.1.5 and 10.244.2.7 exist; the Service VIP 10.96.0.20
// balances to 10.244.2.7:8080; web.default resolves to it; everything
// else is unreachable.
type router struct{}

var (
	podA = Host{IP: netip.MustParseAddr("10.244.1.5"), Scope: "uid-a", Source: "pod/default/a"}
	podB = Host{IP: netip.MustParseAddr("10.244.2.7"), Scope: "uid-b", Source: "pod/default/b"}
	vip  = netip.MustParseAddrPort("10.96.0.20:80")
)

func (router) Route(_ Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	switch {
	case dst == vip:
		return netip.AddrPortFrom(podB.IP, 8080), nil
	case dst.Addr() == podA.IP || dst.Addr() == podB.IP:
		return dst, nil
	}
	return netip.AddrPort{}, syscall.ENETUNREACH
}

func (router) Lookup(_ context.Context, _ Host, name string) ([]netip.Addr, error) {
	if name == "web.default" {
		return []netip.Addr{vip.Addr()}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func serve(t *testing.T, f *Fabric, h Host, port int) *Listener {
	t.Helper()
	l, err := f.Listen(h, "tcp", port)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s from %s", h.Source, r.RemoteAddr)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l
}

func get(t *testing.T, f *Fabric, from Host, url string) (string, error) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return f.Dial(ctx, from, network, addr)
	}}}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestTrafficBetweenPods(t *testing.T) {
	f := New(router{})
	serve(t, f, podB, 8080)

	cases := []struct {
		from      Host
		url, want string
	}{
		{podA, "http://10.244.2.7:8080/", "pod/default/b from 10.244.1.5:"},
		{podA, "http://10.96.0.20/", "pod/default/b from 10.244.1.5:"},
		{podA, "http://web.default/", "pod/default/b from 10.244.1.5:"},
		{podB, "http://127.0.0.1:8080/", "pod/default/b from 127.0.0.1:"},
		{podB, "http://10.244.2.7:8080/", "pod/default/b from 10.244.2.7:"},
	}
	for _, c := range cases {
		got, err := get(t, f, c.from, c.url)
		if err != nil || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s GET %s: %q %v, want %q", c.from.Source, c.url, got, err, c.want)
		}
	}
}

func TestFailuresInTheOSWords(t *testing.T) {
	f := New(router{})
	serve(t, f, podB, 8080)
	cases := []struct {
		from Host
		addr string
		want string
	}{
		// Another pod's loopback is not yours.
		{podA, "127.0.0.1:8080", "dial tcp 127.0.0.1:8080: connect: connection refused"},
		{podA, "10.244.2.7:9999", "dial tcp 10.244.2.7:9999: connect: connection refused"},
		{podA, "192.168.1.1:80", "dial tcp 192.168.1.1:80: connect: network is unreachable"},
		{podA, "nowhere.default:80", "dial tcp: lookup nowhere.default: no such host"},
	}
	for _, c := range cases {
		_, err := f.Dial(context.Background(), c.from, "tcp", c.addr)
		if err == nil || err.Error() != c.want {
			t.Errorf("dial %s: %v, want %q", c.addr, err, c.want)
		}
	}
	_, err := f.Listen(podB, "tcp", 8080)
	if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("second bind: %v", err)
	}
}

func TestCloseUnbinds(t *testing.T) {
	f := New(router{})
	l := serve(t, f, podB, 8080)
	l.Close()
	if f.Listening(netip.MustParseAddrPort("10.244.2.7:8080")) {
		t.Error("still bound after close")
	}
	if _, err := f.Dial(context.Background(), podA, "tcp", "10.244.2.7:8080"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after close: %v", err)
	}
	if _, err := f.Listen(podB, "tcp", 8080); err != nil {
		t.Errorf("bind after close: %v", err)
	}
}

// A raw stream: what one end writes the other reads, both ways.
func TestStream(t *testing.T) {
	f := New(router{})
	l, _ := f.Listen(podB, "tcp", 7)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, strings.ToUpper(line))
	}()
	c, err := f.Dial(context.Background(), podA, "tcp", "10.244.2.7:7")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "echo\n")
	got, _ := io.ReadAll(c)
	if string(got) != "ECHO\n" {
		t.Errorf("got %q", got)
	}
}

func BenchmarkPodToServiceToPod(b *testing.B) {
	f := New(router{})
	l, _ := f.Listen(podB, "tcp", 8080)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(l)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return f.Dial(ctx, podA, network, addr)
	}}}
	b.ResetTimer()
	for b.Loop() {
		resp, err := client.Get("http://10.96.0.20/")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// A port served on the loopback alone (a server bound to 127.0.0.1) is
// reached from its own pod only, and still taken for a second bind.
func TestServeLoopback(t *testing.T) {
	f := New(router{})
	l, err := f.ServeLoopback(podB, "tcp", 6379, func(c net.Conn) { c.Close() })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if c, err := f.Dial(context.Background(), podB, "tcp", "127.0.0.1:6379"); err != nil {
		t.Errorf("from its pod: %v", err)
	} else {
		c.Close()
	}
	if _, err := f.Dial(context.Background(), podA, "tcp", "10.244.2.7:6379"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("from another pod: %v, want connection refused", err)
	}
	if f.Listening(netip.AddrPortFrom(podB.IP, 6379)) {
		t.Error("the pod's address listens")
	}
	if _, err := f.Listen(podB, "tcp", 6379); !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("second bind: %v", err)
	}
}
