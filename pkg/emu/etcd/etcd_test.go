package etcd

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

// router routes between the test's two pods and nowhere else.
type router struct{}

func (router) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	if dst.Addr() == podA.IP || dst.Addr() == podB.IP {
		return dst, nil
	}
	return netip.AddrPort{}, syscall.ENETUNREACH
}

func (router) Lookup(context.Context, vnet.Host, string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", IsNotFound: true}
}

var (
	podA = vnet.Host{IP: netip.MustParseAddr("10.244.0.5"), Scope: "pod-a", Source: "pod/ns/a"}
	podB = vnet.Host{IP: netip.MustParseAddr("10.244.0.6"), Scope: "pod-b", Source: "pod/ns/b"}
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// run starts etcd with args in pod a and returns its stderr and a
// function that waits for its exit status.
func run(t *testing.T, ctx context.Context, f *vnet.Fabric, args ...string) (*syncBuf, func() int) {
	return runEnv(t, ctx, f, nil, args...)
}

func runEnv(t *testing.T, ctx context.Context, f *vnet.Fabric, env []string, args ...string) (*syncBuf, func() int) {
	t.Helper()
	h := podA
	stderr := &syncBuf{}
	sys := &program.Sys{Net: f.Net(&h)}
	p := &program.Proc{Args: append([]string{"/usr/local/bin/etcd"}, args...), Env: env, Stdout: stderr, Stderr: stderr, Sys: sys}
	done := make(chan int, 1)
	go func() { done <- Main(ctx, p) }()
	return stderr, func() int {
		select {
		case code := <-done:
			return code
		case <-time.After(30 * time.Second):
			t.Fatal("etcd did not stop within 30s")
			return -1
		}
	}
}

// client is an etcd client in the pod given, dialling through the pod
// network.
func client(t *testing.T, f *vnet.Fabric, from vnet.Host, endpoint string) *clientv3.Client {
	t.Helper()
	dial := func(ctx context.Context, addr string) (net.Conn, error) { return f.Dial(ctx, from, "tcp", addr) }
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second,
		DialOptions: []grpc.DialOption{grpc.WithContextDialer(dial)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The etcd container of the Aggregator conformance test listens on its
// pod's loopback: a program of the same pod stores and reads keys there,
// another pod cannot reach the port, and stopping the container frees the
// port and removes etcd's data.
func TestEtcdServesThePodLoopback(t *testing.T) {
	f := vnet.New(router{})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "winkube-etcd-*"))
	stderr, wait := run(t, ctx, f, "--listen-client-urls", "http://127.0.0.1:2379", "--advertise-client-urls", "http://127.0.0.1:2379")

	c := client(t, f, podA, "127.0.0.1:2379")
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = c.Put(tctx, "/registry/wardle.example.com/flunders/x", "v")
		cancel()
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("put through the pod loopback: %v\nstderr:\n%s", err, stderr)
	}
	got, err := c.Get(ctx, "/registry/wardle.example.com/flunders/x")
	if err != nil || len(got.Kvs) != 1 || string(got.Kvs[0].Value) != "v" {
		t.Fatalf("get: %v %v", got, err)
	}
	if _, err := f.Dial(ctx, podB, "tcp", podA.IP.String()+":2379"); err == nil {
		t.Error("another pod reached etcd's loopback port through the pod IP")
	}
	if !strings.Contains(stderr.String(), `"msg":"serving client traffic insecurely`) && !strings.Contains(stderr.String(), `"level":"info"`) {
		t.Errorf("etcd's JSON log is not on the container's stderr:\n%s", stderr)
	}

	stop()
	if code := wait(); code != 0 {
		t.Errorf("exit status after stop: %d\n%s", code, stderr)
	}
	if _, err := f.Dial(context.Background(), podA, "tcp", "127.0.0.1:2379"); err == nil {
		t.Error("port 2379 still bound after the container stopped")
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "winkube-etcd-*"))
	if len(after) > len(before) {
		t.Errorf("etcd's data directory was left: %v", after)
	}
}

// The container's ETCD_* variables set the flags the command line
// leaves unset: etcd listens where ETCD_LISTEN_CLIENT_URLS says.
func TestEtcdFlagsFromTheEnvironment(t *testing.T) {
	f := vnet.New(router{})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stderr, wait := runEnv(t, ctx, f, []string{"ETCD_LISTEN_CLIENT_URLS=http://0.0.0.0:12379", "ETCD_ADVERTISE_CLIENT_URLS=http://10.244.0.5:12379"})
	c := client(t, f, podB, podA.IP.String()+":12379")
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = c.Put(tctx, "k", "v")
		cancel()
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Errorf("put from another pod to port 12379: %v\n%s", err, stderr)
	}
	stop()
	wait()
	stderr, wait = runEnv(t, context.Background(), f, []string{"ETCD_SNAPSHOT_COUNT=many"})
	if code := wait(); code != 1 || !strings.Contains(stderr.String(), `invalid value "many" for ETCD_SNAPSHOT_COUNT`) {
		t.Errorf("bad variable: status %d, %q", code, stderr)
	}
}

// Bad flags fail as etcd fails: an unknown flag with status 2, an address
// the pod does not have with status 1 and the bind error.
func TestEtcdBadFlags(t *testing.T) {
	f := vnet.New(router{})
	stderr, wait := run(t, context.Background(), f, "--no-such-flag")
	if code := wait(); code != 2 || !strings.Contains(stderr.String(), "flag provided but not defined: -no-such-flag") {
		t.Errorf("unknown flag: status %d, %q", code, stderr)
	}
	stderr, wait = run(t, context.Background(), f, "--listen-client-urls", "http://10.1.2.3:2379", "--advertise-client-urls", "http://10.1.2.3:2379")
	if code := wait(); code != 1 || !strings.Contains(stderr.String(), "listen tcp 10.1.2.3:2379: bind: cannot assign requested address") {
		t.Errorf("foreign address: status %d, %q", code, stderr)
	}
}
