package netapplets

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

// router: every pod address routes to itself; "web.default" names the
// server pod.
type router struct{}

var (
	serverPod = vnet.Host{IP: netip.MustParseAddr("10.244.2.7"), Scope: "uid-server", Source: "pod/default/server"}
	clientPod = vnet.Host{IP: netip.MustParseAddr("10.244.1.5"), Scope: "uid-client", Source: "pod/default/client"}
)

func (router) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	return dst, nil
}

func (router) Lookup(_ context.Context, _ vnet.Host, name string) ([]netip.Addr, error) {
	if name == "web.default" {
		return []netip.Addr{serverPod.IP}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

type env struct {
	fabric *vnet.Fabric
	fs     *vfstest.FS
	clock  *clocktesting.FakeClock
	sys    *program.Sys
}

func newEnv(t *testing.T) *env {
	t.Helper()
	clock := clocktesting.NewFakeClock(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	fs := vfstest.New(clock)
	fs.Put("/etc/services", "http\t\t80/tcp\t\twww\n", 0o644)
	fabric := vnet.New(router{})
	host := clientPod
	sys := &program.Sys{FS: fs, Clock: clock, Hostname: "client", Net: fabric.Net(&host), Programs: map[string]program.Main{
		"nc": NcOpenBSD, "busybox-nc": Nc, "ncwin": NcWin32, "curl": Curl, "wget": Wget, "timeout": Timeout,
		"cat": func(_ context.Context, p *program.Proc) int { io.Copy(p.Stdout, p.Stdin); return 0 },
		"sleep": func(ctx context.Context, p *program.Proc) int {
			if !p.Sys.Sleep(ctx, time.Hour) {
				return 143
			}
			return 0
		},
	}}
	return &env{fabric: fabric, fs: fs, clock: clock, sys: sys}
}

// run runs argv with stdin and returns stdout, stderr and the status.
func (e *env) run(t *testing.T, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	p := &program.Proc{Args: argv, Env: []string{"PATH=/bin"}, Dir: "/",
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Sys: e.sys}
	code, err := e.sys.Exec(context.Background(), p)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return out.String(), errb.String(), code
}

// echoServer answers each connection to port with what it reads,
// prefixed, and closes once its client stops sending a line.
func (e *env) echoServer(t *testing.T, proto string, port int) {
	t.Helper()
	l, err := e.fabric.Serve(serverPod, proto, port, func(c net.Conn) {
		defer c.Close()
		buf := make([]byte, 1024)
		n, _ := c.Read(buf)
		io.WriteString(c, proto+" echo: "+string(buf[:n]))
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// httpServer serves / with "hello" and /missing with 404.
func (e *env) httpServer(t *testing.T, port int) {
	t.Helper()
	l, err := e.fabric.Listen(serverPod, "tcp", port)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/moved":
			http.Redirect(w, r, "/", http.StatusFound)
		case "/echo":
			body, _ := io.ReadAll(r.Body)
			io.WriteString(w, r.Method+" "+r.Header.Get("X-Test")+" "+string(body))
		default:
			io.WriteString(w, "hello "+r.URL.RawQuery)
		}
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
