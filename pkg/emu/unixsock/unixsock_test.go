package unixsock

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Two Windows containers that mount the same node directory at different
// paths, and a HostProcess container that sees the node's C:\, reach one
// socket; a path outside the mounts is the container's own.
func TestViewsMeetThroughTheNodeDirectory(t *testing.T) {
	node := NewNamespace(true)
	driver := &View{Windows: true, Mounts: []Mount{{Path: `C:\csi`, NS: node, Dir: `C:\var\lib\kubelet\plugins\csi-secrets-store\`}}}
	registrar := &View{Windows: true, Mounts: []Mount{{Path: `c:\CSI\`, NS: node, Dir: `C:\\var\\lib\\kubelet\\plugins\\csi-secrets-store`}}}
	hpc := &View{Windows: true, Mounts: []Mount{{Path: `C:\`, NS: node, Dir: `C:\`}}}

	l, err := driver.Listen(`C:\csi\csi.sock`)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Addr().String(); got != `C:\csi\csi.sock` {
		t.Errorf("Addr = %q, want the container's path", got)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	for _, tc := range []struct {
		v    *View
		path string
	}{
		{registrar, `/csi/csi.sock`},
		{registrar, `c:\csi\CSI.sock`},
		{hpc, `C:\\var\\lib\\kubelet\\plugins\\csi-secrets-store\\csi.sock`},
	} {
		c, err := tc.v.Dial(context.Background(), tc.path)
		if err != nil {
			t.Fatalf("Dial(%q): %v", tc.path, err)
		}
		if _, err := c.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
			t.Fatalf("echo over %q = %q, %v", tc.path, buf, err)
		}
		c.Close()
	}
	if got := node.List(`C:\var\lib\kubelet\plugins\csi-secrets-store`); len(got) != 1 || got[0] != `C:\var\lib\kubelet\plugins\csi-secrets-store\csi.sock` {
		t.Errorf("node sockets = %q", got)
	}
	// Outside the mount: the registrar's own namespace.
	if registrar.Exists(`C:\tmp\csi.sock`) || driver.Exists(`C:\other\csi.sock`) {
		t.Error("a path outside the mounts reached the node")
	}
	_, err = registrar.Dial(context.Background(), `C:\tmp\csi.sock`)
	if !errors.Is(err, syscall.ENOENT) || err.Error() != `dial unix C:\tmp\csi.sock: connect: no such file or directory` {
		t.Errorf("dial of no socket: %v", err)
	}
	// A second bind of the name is refused; closing unbinds it.
	if _, err := hpc.Listen(`C:\var\lib\kubelet\plugins\csi-secrets-store\csi.sock`); !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("second Listen: %v", err)
	}
	l.Close()
	if registrar.Exists(`/csi/csi.sock`) {
		t.Error("the socket outlived its listener")
	}
}

// Linux names keep their case; the deepest mount wins.
func TestLinuxResolve(t *testing.T) {
	node, vol := NewNamespace(false), NewNamespace(false)
	v := &View{Mounts: []Mount{
		{Path: "/var/lib/kubelet", NS: node, Dir: "/var/lib/kubelet"},
		{Path: "/registration", NS: node, Dir: "/var/lib/kubelet/plugins_registry/"},
		{Path: "/csi", NS: vol, Dir: "/"},
	}}
	for in, want := range map[string]string{
		"/registration/Smb-reg.sock":        "/var/lib/kubelet/plugins_registry/Smb-reg.sock",
		"/registration":                     "/var/lib/kubelet/plugins_registry",
		"/var/lib/kubelet/plugins/x/a.sock": "/var/lib/kubelet/plugins/x/a.sock",
		"/csi//csi.sock":                    "/csi.sock",
	} {
		if _, got := v.Resolve(in); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
	if ns, _ := v.Resolve("/csi/csi.sock"); ns != vol {
		t.Error("/csi is not the volume's namespace")
	}
}

// The watch reports the sockets there and those that come and go, and
// real gRPC runs over the connections.
func TestWatchAndGRPC(t *testing.T) {
	node := NewNamespace(true)
	events := make(chan Event, 10)
	pre, err := node.Listen(`C:\var\lib\kubelet\plugins_registry\a-reg.sock`)
	if err != nil {
		t.Fatal(err)
	}
	stop := node.Watch(`c:\var\lib\kubelet\plugins_registry\`, func(e Event) { events <- e })
	defer stop()
	if e := <-events; !e.Bound || e.Path != `C:\var\lib\kubelet\plugins_registry\a-reg.sock` {
		t.Errorf("first event = %+v", e)
	}
	l, err := node.Listen(`C:\var\lib\kubelet\plugins_registry\b-reg.sock`)
	if err != nil {
		t.Fatal(err)
	}
	if e := <-events; !e.Bound || e.Path != `C:\var\lib\kubelet\plugins_registry\b-reg.sock` {
		t.Errorf("bind event = %+v", e)
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go func() { _ = srv.Serve(l) }()
	cc, err := grpc.NewClient("passthrough:///b", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return node.Dial(ctx, `C:\var\lib\kubelet\plugins_registry\b-reg.sock`)
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health over the socket = %v, %v", r, err)
	}
	cc.Close()
	srv.Stop() // closes the listener
	if e := <-events; e.Bound || e.Path != `C:\var\lib\kubelet\plugins_registry\b-reg.sock` {
		t.Errorf("unbind event = %+v", e)
	}
	if err := node.Remove(`C:\var\lib\kubelet\plugins_registry\A-REG.sock`); err != nil {
		t.Fatal(err)
	}
	if e := <-events; e.Bound {
		t.Errorf("remove event = %+v", e)
	}
	pre.Close() // its name is gone already: no second event
	select {
	case e := <-events:
		t.Errorf("unexpected event %+v", e)
	default:
	}
}
