package hostport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A TCP port of a LoadBalancer ingress IP in the pool is served on the
// host: bytes flow both ways through the dial function, which is asked for
// the same IP:port, and the server's close reaches the client.
func TestForwardsToTheService(t *testing.T) {
	port := freePort(t, "127.127.201.7")
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.127.201.7"), port).String()
	fc := newFakeCluster(addr)
	udp := corev1.ServicePort{Name: "dns", Port: int32(port) + 1, Protocol: corev1.ProtocolUDP}
	s := start(t, fc, nil, lbService("web", "127.127.201.7", tcp(port), udp))
	eventually(t, addr+" is served", serving(s.f, addr))
	if got := s.f.Serving(); len(got) != 1 {
		t.Errorf("serving %v, want only %s (UDP ports are not forwarded)", got, addr)
	}

	conn, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatalf("connect to the EXTERNAL-IP: %v", err)
	}
	defer conn.Close()
	if got := ask(t, conn, "hello"); got != addr+": hello" {
		t.Errorf("answer = %q, want %q", got, addr+": hello")
	}
	if got := ask(t, conn, "bye"); got != addr+": bye" {
		t.Errorf("answer = %q", got)
	}
	// The server closed after "bye": the client reads the end of stream.
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := conn.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("after the server closed: read %d bytes, %v; want EOF", n, err)
	}
	if got := fc.dialed(); len(got) != 1 || got[0] != addr {
		t.Errorf("dialed %v, want [%s]", got, addr)
	}
}

// A dial the network model refuses closes the client's connection at once.
func TestRefusedDialClosesTheClient(t *testing.T) {
	port := freePort(t, "127.127.201.8")
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.127.201.8"), port).String()
	s := start(t, newFakeCluster(), nil, lbService("nothing-behind", "127.127.201.8", tcp(port)))
	eventually(t, addr+" is served", serving(s.f, addr))

	begin := time.Now()
	conn, err := net.Dial("tcp4", addr)
	if err != nil {
		// The reset can come before connect returns: as good as refused.
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("connect: %v, want success or a reset", err)
		}
		return
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := conn.Read(make([]byte, 1))
	if n != 0 || err == nil || os.IsTimeout(err) {
		t.Fatalf("read %d bytes, %v; want the connection closed", n, err)
	}
	if took := time.Since(begin); took > time.Second {
		t.Errorf("closed after %s, want at once", took)
	}
}

// Addresses outside the pool, non-loopback ones and Services of other types
// are never served; a pool outside 127.0.0.0/8 is refused outright.
func TestServesOnlyLoopbackPoolAddresses(t *testing.T) {
	fc := newFakeCluster()
	other := lbService("outside", "127.127.202.9", tcp(18080)) // loopback, not in the pool
	lan := lbService("lan", "10.127.131.1", tcp(18080))
	cluster := lbService("clusterip", "127.127.201.9", tcp(18080))
	cluster.Spec.Type = corev1.ServiceTypeClusterIP
	s := start(t, fc, nil, other, lan, cluster)
	time.Sleep(100 * time.Millisecond)
	if got := s.f.Serving(); len(got) != 0 {
		t.Errorf("serving %v, want nothing", got)
	}
	for _, pool := range []string{"10.127.131.0/24", "0.0.0.0/0", "126.0.0.0/7"} {
		_, err := Start(context.Background(), fake.NewClientset(), Options{Pool: netip.MustParsePrefix(pool), Dial: fc.dial})
		if err == nil || !strings.Contains(err.Error(), "network.loadBalancerCIDR") {
			t.Errorf("Start with pool %s: %v, want a refusal naming network.loadBalancerCIDR", pool, err)
		}
	}
	// The last guard, should addresses() ever let one through.
	if _, err := s.f.listen("10.127.131.1:18080"); err == nil || !strings.Contains(err.Error(), "only loopback") {
		t.Errorf("listen on a LAN address: %v, want a refusal", err)
	}
}

// A Service whose address or port changes moves; one that goes away, or
// stops being a LoadBalancer, stops being served and its connections end.
func TestFollowsTheService(t *testing.T) {
	ip := "127.127.201.10"
	p1, p2 := freePort(t, ip), freePort(t, ip)
	a1 := netip.AddrPortFrom(netip.MustParseAddr(ip), p1).String()
	a2 := netip.AddrPortFrom(netip.MustParseAddr(ip), p2).String()
	a3 := netip.AddrPortFrom(netip.MustParseAddr("127.127.201.11"), p2).String()
	fc := newFakeCluster(a1, a2, a3)
	svc := lbService("web", ip, tcp(p1))
	s := start(t, fc, nil, svc)
	eventually(t, a1+" is served", serving(s.f, a1))
	open, err := net.Dial("tcp4", a1)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	ask(t, open, "hi")

	svc.Spec.Ports = []corev1.ServicePort{tcp(p2)}
	s.update(t, svc)
	eventually(t, "the port moves", serving(s.f, a2))
	eventually(t, a1+" is closed", func() bool { return refused(a1) })
	_ = open.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := open.Read(make([]byte, 1)); err == nil || os.IsTimeout(err) {
		t.Errorf("a connection to the old port stays open: %v", err)
	}

	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "127.127.201.11"}}
	s.update(t, svc)
	eventually(t, "the address moves", serving(s.f, a3))
	eventually(t, a2+" is closed", notServing(s.f, a2))

	svc.Spec.Type = corev1.ServiceTypeNodePort
	s.update(t, svc)
	eventually(t, "a NodePort Service is not served", notServing(s.f, a3))

	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	s.update(t, svc)
	eventually(t, "a LoadBalancer again", serving(s.f, a3))
	if err := s.client.CoreV1().Services("default").Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a deleted Service is not served", notServing(s.f, a3))
	eventually(t, a3+" is closed", func() bool { return refused(a3) })
}

// Stop closes the listeners and the connections in flight, cluster side
// included, and leaves no goroutine behind (checked in start's cleanup).
func TestStopEndsEverything(t *testing.T) {
	port := freePort(t, "127.127.201.12")
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.127.201.12"), port).String()
	fc := newFakeCluster(addr)
	s := start(t, fc, nil, lbService("web", "127.127.201.12", tcp(port)))
	eventually(t, addr+" is served", serving(s.f, addr))
	conn, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ask(t, conn, "hi")

	s.f.Stop()
	s.f.Stop() // twice is fine
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil || os.IsTimeout(err) {
		t.Errorf("client connection open after Stop: %v", err)
	}
	if !refused(addr) {
		t.Errorf("%s still accepts after Stop", addr)
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, c := range fc.server {
		if _, err := c.Write([]byte("x")); err == nil {
			t.Errorf("cluster-side connection open after Stop")
		}
	}
}

// Cancelling the context Start was given stops the forwarder too.
func TestContextEndStops(t *testing.T) {
	port := freePort(t, "127.127.201.13")
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.127.201.13"), port).String()
	cs := fake.NewClientset(lbService("web", "127.127.201.13", tcp(port)))
	ctx, cancel := context.WithCancel(context.Background())
	f, err := Start(ctx, cs, Options{Pool: testPool, Dial: newFakeCluster(addr).dial})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, addr+" is served", serving(f, addr))
	cancel()
	eventually(t, addr+" is closed", func() bool { return refused(addr) })
	f.Stop()
	noForwarderGoroutines(t)
}
