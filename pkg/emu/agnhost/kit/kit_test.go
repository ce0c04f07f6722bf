package kit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

var epoch = time.Date(2025, 3, 4, 5, 6, 7, 890123000, time.UTC)

func newProc() (*program.Proc, *bytes.Buffer) {
	var errb bytes.Buffer
	fs := vfstest.New(nil)
	return &program.Proc{Args: []string{"/agnhost"}, Dir: "/tmp", Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errb,
		Sys: &program.Sys{FS: fs, Clock: clocktesting.NewFakeClock(epoch)}}, &errb
}

// klog's text header: severity, MMDD, time to the microsecond, the
// thread id (agnhost is pid 1) right-aligned in 7, the call site.
func TestKloggerFormat(t *testing.T) {
	p, errb := newProc()
	l := NewKlogger(p)
	l.Printf("Started HTTP server on port %d", 8080)
	l.Line('E', "netexec.go:99", "bad\n")
	fmt.Fprint(l, "http: TLS handshake error\n")
	want := "I0304 05:06:07.890123       1 log.go:245] Started HTTP server on port 8080\n" +
		"E0304 05:06:07.890123       1 netexec.go:99] bad\n" +
		"I0304 05:06:07.890123       1 log.go:245] http: TLS handshake error\n"
	if errb.String() != want {
		t.Errorf("got\n%s\nwant\n%s", errb.String(), want)
	}
}

// Files are read and written on the container's FS relative to its
// working directory; errors read as Go's os package words them.
func TestFilesAndGoErrors(t *testing.T) {
	p, _ := newProc()
	if err := WriteFile(p, "note", []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, "/tmp/note"); err != nil || string(b) != "hi" {
		t.Errorf("ReadFile = %q %v", b, err)
	}
	if info, err := p.Sys.FS.Stat("/tmp/note"); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v", info.Mode(), err)
	}
	_, err := ReadFile(p, "/nosuch")
	if got := GoError(p, err); got != "open /nosuch: no such file or directory" {
		t.Errorf("GoError = %q", got)
	}
	_, err = ReadNamed(p, "")
	if got := GoError(p, err); got != "open : no such file or directory" {
		t.Errorf("ReadNamed(\"\") = %q", got)
	}
	if err := WriteFile(p, "/nodir/x", nil, 0o644); err == nil || GoError(p, err) != "open /nodir/x: no such file or directory" {
		t.Errorf("WriteFile into a missing directory: %v", err)
	}
	if got := GoError(p, errors.New("plain")); got != "plain" {
		t.Errorf("a plain error = %q", got)
	}
	p.Sys.Windows = true
	err = &fs.PathError{Op: "open", Path: `C:\x`, Err: syscall.ENOENT}
	if got := GoError(p, err); got != `open C:\x: The system cannot find the file specified.` {
		t.Errorf("Windows wording = %q", got)
	}
}

func TestGoPanicAndContains(t *testing.T) {
	p, errb := newProc()
	if code := GoPanic(p, "boom"); code != 2 || errb.String() != "panic: boom\n\ngoroutine 1 [running]:\n" {
		t.Errorf("GoPanic = %d %q", code, errb.String())
	}
	if !Contains([]string{"a", "b"}, "b") || Contains(nil, "a") {
		t.Error("Contains")
	}
}

// loopbackNet is a pod network on real sockets of 127.0.0.1: Listen binds
// an ephemeral port and remembers it under the port the program asked
// for; Dial of "host:port" reaches that listener. With plain set,
// accepted and dialled connections hide their net.Conn, as a pod network
// that hands programs bare streams does.
type loopbackNet struct {
	mu    sync.Mutex
	ports map[int]string
	plain bool
}

func (n *loopbackNet) LookupHost(context.Context, string) ([]string, error) {
	return []string{"127.0.0.1"}, nil
}

func (n *loopbackNet) Listen(ctx context.Context, network string, port int) (program.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	if n.ports == nil {
		n.ports = map[int]string{}
	}
	n.ports[port] = l.Addr().String()
	n.mu.Unlock()
	context.AfterFunc(ctx, func() { l.Close() })
	return tcpListener{l, n.plain}, nil
}

func (n *loopbackNet) Dial(ctx context.Context, network, address string) (io.ReadWriteCloser, error) {
	_, port, _ := net.SplitHostPort(address)
	var num int
	fmt.Sscan(port, &num)
	n.mu.Lock()
	real, ok := n.ports[num]
	n.mu.Unlock()
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", real)
	if err != nil || !n.plain {
		return c, err
	}
	return bare{c}, nil
}

type tcpListener struct {
	l     net.Listener
	plain bool
}

func (l tcpListener) Accept() (io.ReadWriteCloser, error) {
	c, err := l.l.Accept()
	if err != nil || !l.plain {
		return c, err
	}
	return bare{c}, nil
}

func (l tcpListener) Close() error { return l.l.Close() }

// bare hides a net.Conn's deadlines.
type bare struct{ io.ReadWriteCloser }

// ServeHTTP serves on the pod network until ctx is done, over net.Conns
// and over bare streams (which pumpConn adapts); keep-alive requests
// share a connection; stopping leaves no connection open.
func TestServeHTTPOverLoopback(t *testing.T) {
	for _, plain := range []bool{false, true} {
		p, _ := newProc()
		p.Sys.Net = &loopbackNet{plain: plain}
		ctx, cancel := context.WithCancel(context.Background())
		l, err := Listen(ctx, p, "tcp", 8080)
		if err != nil {
			t.Fatal(err)
		}
		if l.Addr().String() != "0.0.0.0:8080" {
			t.Errorf("Addr = %s", l.Addr())
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			ServeHTTP(ctx, l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				fmt.Fprintf(w, "%s %s %s", r.Method, r.URL.Path, body)
			}), io.Discard, nil)
		}()
		conn, err := DialConn(ctx, p, "tcp", "pod:8080")
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		for i, req := range []string{"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"} {
			if _, err := io.WriteString(conn, req); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("plain=%v request %d: %v", plain, i, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := []string{"GET /a ", "POST /b hi"}[i]; string(b) != want {
				t.Errorf("plain=%v request %d: %q, want %q", plain, i, b, want)
			}
		}
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("ServeHTTP did not stop with ctx")
		}
		if _, err := br.ReadByte(); err == nil {
			t.Errorf("plain=%v: the connection is still open after stop", plain)
		}
		conn.Close()
	}
}

// A closed stop channel ends ServeAll's servers, each with its handler.
func TestServeAllStops(t *testing.T) {
	p, _ := newProc()
	p.Sys.Net = &loopbackNet{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ls []net.Listener
	var hs []http.Handler
	for _, port := range []int{80, 81} {
		l, err := Listen(ctx, p, "tcp", port)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		msg := fmt.Sprint(port)
		hs = append(hs, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, msg) }))
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { ServeAll(ctx, ls, hs, io.Discard, stop); close(done) }()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return DialConn(ctx, p, network, addr)
	}}}
	for _, port := range []string{"80", "81"} {
		resp, err := client.Get("http://pod:" + port + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != port {
			t.Errorf("port %s answered %q", port, b)
		}
	}
	close(stop)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("ServeAll did not stop")
	}
	if _, err := DialConn(ctx, p, "tcp", "pod:99"); err == nil {
		t.Error("a port nobody listens on answered")
	}
}

// pumpConn: a read deadline in the past fails a Read with a timeout;
// cleared, reads see the bytes that arrive later.
func TestPumpConnAbandonedRead(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	c := asConn(bare{a}, 7)
	if c.LocalAddr().String() != "0.0.0.0:7" {
		t.Errorf("LocalAddr = %s", c.LocalAddr())
	}
	// net/http's way to stop its background read: a deadline long past.
	_ = c.SetReadDeadline(time.Unix(1, 0))
	var ne net.Error
	if _, err := c.Read(make([]byte, 4)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read past the deadline = %v, want a timeout", err)
	}
	_ = c.SetReadDeadline(time.Time{})
	go b.Write([]byte("late"))
	buf := make([]byte, 2)
	var all []byte
	for len(all) < 4 {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, buf[:n]...)
	}
	if string(all) != "late" {
		t.Errorf("after the deadline: %q", all)
	}
	c.Close()
	if _, err := c.Read(buf); !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Read after Close = %v", err)
	}
}
