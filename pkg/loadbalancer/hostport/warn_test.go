package hostport

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// refusePrivileged binds as a host that does not let this user take ports
// below 1024 would: the bind fails with EACCES.
func refusePrivileged(ctx context.Context, addr string) (net.Listener, error) {
	ap := netip.MustParseAddrPort(addr)
	if ap.Port() < 1024 {
		return nil, &net.OpError{Op: "listen", Net: "tcp4", Err: &os.SyscallError{Syscall: "bind", Err: syscall.EACCES}}
	}
	return listenTCP(ctx, addr)
}

// A port the host refuses gives one warning line naming the Service and
// the port, not an error: the other ports are served, and a later change
// of the Service does not repeat the line.
func TestPrivilegedPortWarnsOnce(t *testing.T) {
	ip := "127.127.201.20"
	high := freePort(t, ip)
	highAddr := netip.AddrPortFrom(netip.MustParseAddr(ip), high).String()
	svc := lbService("iis", ip, tcp(80), tcp(high))
	s := start(t, newFakeCluster(highAddr), refusePrivileged, svc)
	eventually(t, highAddr+" is served", serving(s.f, highAddr))
	svc.Labels = map[string]string{"changed": "yes"}
	s.update(t, svc)
	// The update is handled before this one: the handler runs in order.
	other := lbService("other", ip, tcp(freePort(t, ip)))
	if _, err := s.client.CoreV1().Services("default").Create(context.Background(), other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the next Service is served", func() bool { return len(s.f.Serving()) == 2 })

	got := s.warned()
	if len(got) != 1 {
		t.Fatalf("warnings = %q, want exactly one", got)
	}
	for _, want := range []string{"LoadBalancer Service default/iis", ip + ":80", "ports below 1024 need root or CAP_NET_BIND_SERVICE", "ip_unprivileged_port_start=80"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("warning %q does not say %q", got[0], want)
		}
	}
	if strings.Contains(got[0], "\n") {
		t.Errorf("warning %q is more than one line", got[0])
	}
}

// On this machine, as a user who may not bind ports below 1024, the real
// bind is refused and worded the same way.
func TestPrivilegedPortOnThisMachine(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start")
	if err != nil || os.Geteuid() == 0 || strings.TrimSpace(string(b)) == "0" {
		t.Skip("needs Linux, a user without root, and ip_unprivileged_port_start above 80")
	}
	s := start(t, newFakeCluster(), nil, lbService("iis", "127.127.201.21", tcp(80)))
	eventually(t, "the warning", func() bool { return len(s.warned()) == 1 })
	t.Logf("warning: %s", s.warned()[0])
	if got := s.warned()[0]; !strings.Contains(got, "127.127.201.21:80") || !strings.Contains(got, "CAP_NET_BIND_SERVICE") {
		t.Errorf("warning = %q", got)
	}
}

// An address another program holds, or another Service already has (two
// Services showing one IP: status is writable by anyone), is warned about
// by name.
func TestAddressInUseWarns(t *testing.T) {
	ip := "127.127.201.22"
	busy, err := net.Listen("tcp4", ip+":0")
	if err != nil {
		t.Skipf("loopback does not answer %s: %v", ip, err)
	}
	defer busy.Close()
	busyPort := uint16(busy.Addr().(*net.TCPAddr).Port)
	shared := freePort(t, ip)
	first := lbService("first", ip, tcp(shared))
	first.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Hour))
	s := start(t, newFakeCluster(), nil, first)
	sharedAddr := netip.AddrPortFrom(netip.MustParseAddr(ip), shared).String()
	eventually(t, "the first Service is served", serving(s.f, sharedAddr))
	for _, svc := range []*corev1.Service{lbService("second", ip, tcp(shared)), lbService("taken", ip, tcp(busyPort))} {
		if _, err := s.client.CoreV1().Services("default").Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "two warnings", func() bool { return len(s.warned()) == 2 })
	got := strings.Join(s.warned(), "\n")
	for _, want := range []string{
		"LoadBalancer Service default/second: cannot serve " + sharedAddr + " on this machine: already served for Service default/first",
		"LoadBalancer Service default/taken: cannot serve " + busy.Addr().String() + " on this machine: another program of this machine listens there",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings:\n%s\nwant a line %q", got, want)
		}
	}
}
