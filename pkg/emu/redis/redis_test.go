package redis

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/internal/syncbuf"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
)

var (
	epoch   = time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	redisIP = netip.MustParseAddr("10.244.1.5")
	appIP   = netip.MustParseAddr("10.244.2.7")
)

// router: the two pods reach each other; "redis" resolves to the redis
// pod; nothing else resolves or is routed.
type router struct{}

func (router) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	if dst.Addr() == redisIP || dst.Addr() == appIP {
		return dst, nil
	}
	return netip.AddrPort{}, syscall.ENETUNREACH
}

func (router) Lookup(_ context.Context, _ vnet.Host, name string) ([]netip.Addr, error) {
	if name == "redis" {
		return []netip.Addr{redisIP}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// cluster is a network of two pods, the redis pod and an app pod, on
// one clock.
type cluster struct {
	fabric     *vnet.Fabric
	clock      *clocktesting.FakeClock
	redis, app vnet.Host
}

func newCluster() *cluster {
	return &cluster{
		fabric: vnet.New(router{}), clock: clocktesting.NewFakeClock(epoch),
		redis: vnet.Host{IP: redisIP, Scope: "uid-redis", Source: "pod/default/redis"},
		app:   vnet.Host{IP: appIP, Scope: "uid-app", Source: "pod/default/app"},
	}
}

// proc is a process of the pod h with a fresh filesystem holding files.
func (c *cluster) proc(h *vnet.Host, files map[string]string, args ...string) (*program.Proc, *syncbuf.Buffer, *syncbuf.Buffer) {
	fsys := vfs.New(vfs.Options{})
	for name, text := range files {
		if err := fsys.MkdirAll(fsys.Abs("/", name[:strings.LastIndex(name, "/")+1]), 0o755); err != nil {
			panic(err)
		}
		f, err := fsys.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			panic(err)
		}
		io.WriteString(f, text)
		f.Close()
	}
	var stdout, stderr syncbuf.Buffer
	return &program.Proc{
		Args: args, Dir: "/", Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Sys: &program.Sys{Clock: c.clock, Hostname: "pod", FS: fsys, Net: c.fabric.Net(h), Programs: Table()},
	}, &stdout, &stderr
}

// startServer runs redis-server with args in the redis pod until the
// test ends; it returns its log and a function that stops it.
func (c *cluster) startServer(t *testing.T, files map[string]string, args ...string) (*syncbuf.Buffer, func()) {
	t.Helper()
	p, stdout, stderr := c.proc(&c.redis, files, append([]string{"redis-server"}, args...)...)
	// The node stops a process as this does: its context is cancelled and
	// its process scope closes what it bound.
	ctx, cancel := context.WithCancel(context.Background())
	ctx, end := vnet.WithProcess(ctx)
	stop := func() { cancel(); end() }
	if code := Server(ctx, p); code != program.Forever {
		stop()
		t.Fatalf("redis-server %q ended with %d: %s%s", args, code, stdout, stderr)
	}
	t.Cleanup(stop)
	return stdout, stop
}

// client is a RESP connection from the app pod.
type client struct {
	t  *testing.T
	c  io.ReadWriteCloser
	br *bufio.Reader
}

func (c *cluster) dial(t *testing.T, from *vnet.Host, addr string) *client {
	t.Helper()
	conn, err := c.fabric.Net(from).Dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &client{t: t, c: conn, br: bufio.NewReader(conn)}
}

// do sends cmd and returns the reply as redis-cli prints it on a terminal.
func (cl *client) do(cmd ...string) string {
	cl.t.Helper()
	if _, err := cl.c.Write(encode(cmd)); err != nil {
		cl.t.Fatal(err)
	}
	r, err := readReply(cl.br)
	if err != nil {
		cl.t.Fatalf("%q: %v", cmd, err)
	}
	return strings.TrimSuffix(formatTTY(r, ""), "\n")
}

func TestServerLogsAndServesOverThePodNetwork(t *testing.T) {
	c := newCluster()
	log, stop := c.startServer(t, nil)
	want := "1:C 27 Nov 2026 20:00:00.000 * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n" +
		"1:C 27 Nov 2026 20:00:00.000 * Redis version=7.2.6, bits=64, commit=00000000, modified=0, pid=1, just started\n" +
		"1:C 27 Nov 2026 20:00:00.000 # Warning: no config file specified, using the default config. In order to specify a config file use redis-server /path/to/redis.conf\n" +
		"1:M 27 Nov 2026 20:00:00.000 * monotonic clock: POSIX clock_gettime\n" +
		"1:M 27 Nov 2026 20:00:00.000 * Running mode=standalone, port=6379.\n" +
		"1:M 27 Nov 2026 20:00:00.000 * Server initialized\n" +
		"1:M 27 Nov 2026 20:00:00.000 * Ready to accept connections tcp\n"
	if log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log, want)
	}

	cl := c.dial(t, &c.app, "redis:6379")
	for _, step := range []struct{ cmd, want string }{
		{"PING", "PONG"},
		{"SET greeting hello", "OK"},
		{"GET greeting", `"hello"`},
		{"GET missing", "(nil)"},
		{"INCR hits", "(integer) 1"},
		{"RPUSH l a b", "(integer) 2"},
		{"LRANGE l 0 -1", "1) \"a\"\n2) \"b\""},
		{"GET", "(error) ERR wrong number of arguments for 'get' command"},
		{"nosuch a b", "(error) ERR unknown command 'nosuch', with args beginning with: 'a' 'b' "},
		{"SET k v EX 10", "OK"},
	} {
		if got := cl.do(strings.Fields(step.cmd)...); got != step.want {
			t.Errorf("%s: %q, want %q", step.cmd, got, step.want)
		}
	}
	// Keys expire on the container's clock.
	c.clock.Step(11 * time.Second)
	if got := cl.do("GET", "k"); got != "(nil)" {
		t.Errorf("GET k after its TTL: %q", got)
	}
	// The same data from the redis pod's own loopback.
	if got := c.dial(t, &c.redis, "127.0.0.1:6379").do("GET", "greeting"); got != `"hello"` {
		t.Errorf("over loopback: %q", got)
	}

	// Stopping the container disconnects its clients and frees the port.
	// The server closes on its own goroutine once the process's context
	// ends, so a few PINGs may still be answered before it does.
	stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		cl.c.Write(encode([]string{"PING"}))
		if _, err := readReply(cl.br); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a client of a stopped server still gets replies")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := c.fabric.Net(&c.app).Dial(context.Background(), "tcp", "redis:6379"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after stop: %v, want connection refused", err)
	}
	c.startServer(t, nil)
	if got := c.dial(t, &c.app, "redis:6379").do("GET", "greeting"); got != "(nil)" {
		t.Errorf("a restarted server has the old data: %q", got)
	}
}

// TestIdleServerHoldsNoGoroutine: a started server, and one that a
// tcpSocket probe connects to and leaves, hold no goroutine.
func TestIdleServerHoldsNoGoroutine(t *testing.T) {
	c := newCluster()
	base := runtime.NumGoroutine()
	c.startServer(t, nil)
	for i := 0; i < 3; i++ {
		conn, err := c.fabric.DialFrom(context.Background(), vnet.Host{}, netip.AddrPortFrom(redisIP, 6379))
		if err != nil {
			t.Fatalf("probe: %v", err)
		}
		conn.Close()
	}
	for i := 0; i < 500 && runtime.NumGoroutine() > base; i++ {
		time.Sleep(2 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines left, want %d", n, base)
	}
}

func TestRequirepass(t *testing.T) {
	c := newCluster()
	c.startServer(t, nil, "--requirepass", "s3cret")
	cl := c.dial(t, &c.app, "redis:6379")
	for _, step := range []struct{ cmd, want string }{
		{"GET k", "(error) NOAUTH Authentication required."},
		{"AUTH wrong", "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{"AUTH default wrong", "(error) WRONGPASS invalid username-password pair or user is disabled."},
		{"GET k", "(error) NOAUTH Authentication required."},
		{"AUTH s3cret", "OK"},
		{"SET k v", "OK"},
		{"GET k", `"v"`},
	} {
		if got := cl.do(strings.Fields(step.cmd)...); got != step.want {
			t.Errorf("%s: %q, want %q", step.cmd, got, step.want)
		}
	}
	other := c.dial(t, &c.app, "redis:6379")
	if got := other.do("AUTH", "x"); got != "(error) WRONGPASS invalid username-password pair or user is disabled." {
		t.Errorf("a new connection: %q", got)
	}
}

func TestConfigFile(t *testing.T) {
	c := newCluster()
	log, _ := c.startServer(t, map[string]string{"/usr/local/etc/redis/redis.conf": "# mine\nport 7000\nrequirepass \"p w\"\nsave 60 1\nappendonly yes\n"},
		"/usr/local/etc/redis/redis.conf", "--loglevel", "warning")
	if !strings.Contains(log.String(), "* Configuration loaded\n") || !strings.Contains(log.String(), "port=7000.") {
		t.Errorf("log %q", log)
	}
	cl := c.dial(t, &c.app, "redis:7000")
	if got := cl.do("AUTH", "p w"); got != "OK" {
		t.Errorf("AUTH with the file's password: %q", got)
	}
}

func TestServerRefusesBadConfig(t *testing.T) {
	tests := []struct {
		args           []string
		files          map[string]string
		stdout, stderr string
	}{
		{args: []string{"/etc/nope.conf"},
			stdout: "1:C 27 Nov 2026 20:00:00.000 # Fatal error, can't open config file '/etc/nope.conf': No such file or directory\n"},
		{args: []string{"--port", "abc"},
			stderr: "\n*** FATAL CONFIG FILE ERROR (Redis 7.2.6) ***\nReading the configuration file, at line 2\n>>> 'port \"abc\"'\nargument couldn't be parsed into an integer\n"},
		{args: []string{"--port", "70000"},
			stderr: "\n*** FATAL CONFIG FILE ERROR (Redis 7.2.6) ***\nReading the configuration file, at line 2\n>>> 'port \"70000\"'\nargument must be between 0 and 65535 inclusive\n"},
		{args: []string{"/r.conf"}, files: map[string]string{"/r.conf": "port 1\nmaxmemory 1mb\nfrobnicate yes\n"},
			stderr: "\n*** FATAL CONFIG FILE ERROR (Redis 7.2.6) ***\nReading the configuration file, at line 3\n>>> 'frobnicate yes'\nBad directive or wrong number of arguments\n"},
		{args: []string{"--appendonly", "maybe"},
			stderr: "\n*** FATAL CONFIG FILE ERROR (Redis 7.2.6) ***\nReading the configuration file, at line 2\n>>> 'appendonly \"maybe\"'\nargument must be 'yes' or 'no'\n"},
		{args: []string{"--save", "60"},
			stderr: "\n*** FATAL CONFIG FILE ERROR (Redis 7.2.6) ***\nReading the configuration file, at line 2\n>>> 'save \"60\"'\nInvalid save parameters\n"},
		{args: []string{"--port", "1", "2"},
			stderr: "\n*** FATAL CONFIG FILE ERROR (Redis 7.2.6) ***\nReading the configuration file, at line 2\n>>> 'port \"1\" \"2\"'\nwrong number of arguments\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			c := newCluster()
			p, stdout, stderr := c.proc(&c.redis, tt.files, append([]string{"redis-server"}, tt.args...)...)
			if code := Server(context.Background(), p); code != 1 {
				t.Errorf("status %d", code)
			}
			if stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("stdout %q stderr %q\nwant %q %q", stdout, stderr, tt.stdout, tt.stderr)
			}
			if c.fabric.Listening(netip.AddrPortFrom(redisIP, 6379)) {
				t.Error("a server that failed listens")
			}
		})
	}
}

func TestServerArgsAccepted(t *testing.T) {
	c := newCluster()
	c.startServer(t, nil, "--save", "--appendonly", "no", "--port 6380", "--save", "900 1 300 10")
	if got := c.dial(t, &c.app, "redis:6380").do("PING"); got != "PONG" {
		t.Errorf("PING: %q", got)
	}
}

func TestBind(t *testing.T) {
	c := newCluster()
	c.startServer(t, nil, "--bind", "127.0.0.1", "-::1")
	if _, err := c.fabric.Net(&c.app).Dial(context.Background(), "tcp", "redis:6379"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("from another pod: %v, want connection refused", err)
	}
	if got := c.dial(t, &c.redis, "127.0.0.1:6379").do("PING"); got != "PONG" {
		t.Errorf("over loopback: %q", got)
	}

	c = newCluster()
	p, stdout, _ := c.proc(&c.redis, nil, "redis-server", "--bind", "10.9.9.9")
	if code := Server(context.Background(), p); code != 1 ||
		!strings.HasSuffix(stdout.String(), "# Warning: Could not create server TCP listening socket 10.9.9.9:6379: bind: Cannot assign requested address\n"+
			"1:M 27 Nov 2026 20:00:00.000 # Failed listening on port 6379 (tcp), aborting.\n") {
		t.Errorf("bind to an address the pod lacks: %d %q", code, stdout)
	}
}

func TestPortInUse(t *testing.T) {
	c := newCluster()
	c.startServer(t, nil)
	p, stdout, _ := c.proc(&c.redis, nil, "redis-server")
	if code := Server(context.Background(), p); code != 1 ||
		!strings.HasSuffix(stdout.String(), "# Warning: Could not create server TCP listening socket *:6379: bind: Address already in use\n"+
			"1:M 27 Nov 2026 20:00:00.000 # Failed listening on port 6379 (tcp), aborting.\n") {
		t.Errorf("second server: %d %q", code, stdout)
	}
}

func TestServerVersionAndHelp(t *testing.T) {
	c := newCluster()
	p, stdout, _ := c.proc(&c.redis, nil, "redis-server", "--version")
	if code := Server(context.Background(), p); code != 0 || !strings.HasPrefix(stdout.String(), "Redis server v=7.2.6 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=") {
		t.Errorf("--version: %d %q", code, stdout)
	}
	p, _, stderr := c.proc(&c.redis, nil, "redis-server", "-h")
	if code := Server(context.Background(), p); code != 1 || !strings.HasPrefix(stderr.String(), "Usage: ./redis-server [/path/to/redis.conf] [options] [-]\n") {
		t.Errorf("-h: %d %q", code, stderr)
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
		ok   bool
	}{
		{`port 7000`, []string{"port", "7000"}, true},
		{`requirepass "a b\x41\n"`, []string{"requirepass", "a bA\n"}, true},
		{`save ''`, []string{"save", ""}, true},
		{`x 'it\'s'`, []string{"x", "it's"}, true},
		{`x "open`, nil, false},
		{`x "a"b`, nil, false},
	} {
		got, ok := splitArgs(tt.line)
		if ok != tt.ok || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: %q %v, want %q %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}
