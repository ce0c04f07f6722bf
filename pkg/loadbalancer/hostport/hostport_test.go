package hostport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

// testPool is a loopback pool of its own, away from the default
// 127.127.131.0/24 that a `winkube up` on this machine may be serving.
var testPool = netip.MustParsePrefix("127.127.201.0/24")

// fakeCluster stands in for the node agent: it answers dials to the
// addresses it serves with an echo server that prefixes what it echoes,
// and refuses every other address as the network model would.
type fakeCluster struct {
	mu     sync.Mutex
	serve  map[string]bool
	dials  []string
	server []net.Conn // the cluster-side ends, to see them closed
}

func newFakeCluster(addrs ...string) *fakeCluster {
	fc := &fakeCluster{serve: map[string]bool{}}
	for _, a := range addrs {
		fc.serve[a] = true
	}
	return fc
}

func (fc *fakeCluster) dial(ctx context.Context, addr string) (net.Conn, error) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.dials = append(fc.dials, addr)
	if !fc.serve[addr] {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	}
	client, server := net.Pipe()
	fc.server = append(fc.server, server)
	go echo(server, addr)
	return client, nil
}

// echo answers each line with "ADDR: line" until the line "bye", then
// closes, as a server that ends the exchange does.
func echo(c net.Conn, addr string) {
	defer c.Close()
	buf := make([]byte, 1024)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		line := strings.TrimSpace(string(buf[:n]))
		if _, err := fmt.Fprintf(c, "%s: %s\n", addr, line); err != nil || line == "bye" {
			return
		}
	}
}

func (fc *fakeCluster) dialed() []string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]string(nil), fc.dials...)
}

// freePort is a TCP port nothing listens on at ip.
func freePort(t *testing.T, ip string) uint16 {
	t.Helper()
	l, err := net.Listen("tcp4", ip+":0")
	if err != nil {
		t.Skipf("this machine's loopback does not answer %s: %v", ip, err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

func lbService(name string, ip string, ports ...corev1.ServicePort) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: ports},
	}
	if ip != "" {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	}
	return svc
}

func tcp(port uint16) corev1.ServicePort {
	return corev1.ServicePort{Name: fmt.Sprint("tcp-", port), Port: int32(port), Protocol: corev1.ProtocolTCP}
}

type started struct {
	f        *Forwarder
	client   kubernetes.Interface
	mu       sync.Mutex
	warnings []string
}

func (s *started) warned() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

// start runs a forwarder over a fake API with the given Services.
func start(t *testing.T, fc *fakeCluster, listen ListenFunc, objs ...*corev1.Service) *started {
	t.Helper()
	s := &started{}
	cs := fake.NewClientset()
	for _, o := range objs {
		if _, err := cs.CoreV1().Services(o.Namespace).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Start(context.Background(), cs, Options{Pool: testPool, Dial: fc.dial, Listen: listen, Warn: func(line string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.warnings = append(s.warnings, line)
	}})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	s.f, s.client = f, cs
	t.Cleanup(func() {
		f.Stop()
		noForwarderGoroutines(t)
	})
	return s
}

func (s *started) update(t *testing.T, svc *corev1.Service) {
	t.Helper()
	if _, err := s.client.CoreV1().Services(svc.Namespace).Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond for up to five seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func serving(f *Forwarder, addr string) func() bool {
	return func() bool {
		for _, a := range f.Serving() {
			if a == addr {
				return true
			}
		}
		return false
	}
}

func notServing(f *Forwarder, addr string) func() bool {
	s := serving(f, addr)
	return func() bool { return !s() }
}

// ask sends line over conn and reads the answer line.
func ask(t *testing.T, conn net.Conn, line string) string {
	t.Helper()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(conn, "%s\n", line); err != nil {
		t.Fatalf("write %q: %v", line, err)
	}
	buf := make([]byte, 1024)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("read the answer to %q: %v", line, err)
	}
	return strings.TrimSpace(string(buf[:n]))
}

// refused reports whether nothing listens on addr any more.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp4", addr, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// noForwarderGoroutines fails if a goroutine of this package is still
// running: Stop must wait for every accept loop and connection.
func noForwarderGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("hostport.(*Forwarder).accept")) || bytes.Contains(g, []byte("hostport.forward")) ||
			bytes.Contains(g, []byte("hostport.copyHalf")) {
			t.Errorf("goroutine left after Stop:\n%s", g)
		}
	}
}
